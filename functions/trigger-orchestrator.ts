/**
 * @module The operation orchestrator (durable instance id = operation id), for every kind of operation
 * (a trigger, a migration, a bulk action): marks the operation running, pages the candidates (the
 * trigger's interest index lookup, or the selection), applies the operation to each page in an
 * `applyTriggerBatch` sub-orchestration (at most MAX_BATCHES_IN_FLIGHT at a time, the next page fetched
 * while earlier ones run), records `progress` as each batch finishes, then records the totals, or the
 * reason the dispatch could not finish.
 *
 * Deterministic code: it imports only durable-functions, pure engine helpers and the activity contract,
 * and reads no clock, environment or randomness (test/functions/determinism.test.ts checks the imports).
 * Every task is yielded inside at most one Task.any/Task.all and otherwise on its own: durable-functions
 * 3 schedules an action again when an already scheduled task is put in a new compound task
 * (Azure/azure-functions-durable-js#574).
 */
import * as df from 'durable-functions';
import type { OrchestrationContext, OrchestrationHandler, Task } from 'durable-functions';
import { countsToAdd, emptyTotals, mergeTotals, type OperationTotals } from '../src/engine/operation';
import {
  ActivityName,
  type BeginOperationOutput,
  type CompleteOperationInput,
  type CandidateSource,
  type FindCandidatesInput,
  type FindCandidatesOutput,
  type RecordProgressInput,
  type UncountedBatch,
  progressCheckpoint,
} from '../src/host/trigger-activities';
import { APPLY_TRIGGER_BATCH, activityRetryOptions, type ApplyTriggerBatchInput, type ApplyTriggerBatchOutput } from './apply-trigger-batch';

export const TRIGGER_ORCHESTRATOR = 'triggerOrchestrator';

/** Batches (pages of up to CANDIDATE_PAGE_SIZE instances) running at once in one operation. */
export const MAX_BATCHES_IN_FLIGHT = 8;

export interface TriggerOrchestratorInput {
  readonly operationId: string;
}

/** The orchestration's output (the durable status shows it); the operation record has the details. */
export interface TriggerOrchestratorOutput {
  readonly candidates: number;
  readonly summary: ApplyTriggerBatchOutput['summary'];
  readonly error?: string;
}

export const triggerOrchestrator: OrchestrationHandler = function* (context: OrchestrationContext) {
  const { operationId } = context.df.getInput<TriggerOrchestratorInput>();
  const callActivity = (name: string, input: unknown): Task => context.df.callActivityWithRetry(name, activityRetryOptions, input);
  const begun: BeginOperationOutput = yield callActivity(ActivityName.beginOperation, operationId);
  if (!begun.shouldRun) return undefined;
  const source: CandidateSource = {
    subjects: begun.subjects,
    ...(begun.selection ? { selection: begun.selection } : {}),
    ...(begun.includeDeleting ? { includeDeleting: true } : {}),
    ...(begun.instanceIds ? { instanceIds: begun.instanceIds } : {}),
  };
  const findPage = (continuationToken?: string): Task =>
    callActivity(ActivityName.findCandidates, { ...source, ...(continuationToken !== undefined ? { continuationToken } : {}) } satisfies FindCandidatesInput);

  // As the local runner does (src/host/local-operation-runner.ts): batches counted so far, each found
  // batch listed in the checkpoint recorded as a batch finishes, so that an orchestration started anew
  // (after one failed or was terminated) offers no counted instance again and reports every one.
  const resumed = begun.resume;
  let totals: OperationTotals = resumed ? resumed.totals : emptyTotals(begun.outcomes);
  let counted = resumed?.checkpoint.batches ?? 0;
  let error: string | undefined;
  /** Scheduled batches not yet consumed, oldest first; consumed in order so results keep candidate order. */
  const pending: (UncountedBatch & { readonly task: Task })[] = [];
  const seen = new Set<string>();
  /** The next page to read; undefined once every page has been read. */
  let nextPage: { continuationToken?: string } | undefined;
  /** Takes the oldest batch's totals, then records the progress (the total once every page is read) and the checkpoint. */
  function* consumeBatch(): Generator<Task, void, OperationTotals> {
    const finished: OperationTotals = yield pending.shift()!.task;
    const held = totals.instances.length;
    totals = mergeTotals(totals, finished);
    counted += 1;
    const found = pending.reduce((count, batch) => count + batch.instanceIds.length, 0);
    const progress = { processed: totals.candidates, ...(nextPage === undefined ? { total: totals.candidates + found } : {}) };
    const checkpoint = progressCheckpoint(counted, countsToAdd(finished, held), pending, nextPage?.continuationToken, nextPage === undefined);
    yield callActivity(ActivityName.recordProgress, { operationId, progress, checkpoint } satisfies RecordProgressInput);
  }
  try {
    let batchNumber = 0;
    let page: FindCandidatesOutput;
    let readWith: UncountedBatch['readWith'];
    if (resumed) {
      const { checkpoint } = resumed;
      page = { instanceIds: [...checkpoint.pending], ...(checkpoint.continuationToken !== undefined ? { continuationToken: checkpoint.continuationToken } : {}) };
      readWith = undefined;
      nextPage = checkpoint.allFound ? undefined : checkpoint.continuationToken !== undefined ? { continuationToken: checkpoint.continuationToken } : {};
    } else {
      page = yield findPage();
      readWith = {};
      nextPage = page.continuationToken !== undefined ? { continuationToken: page.continuationToken } : undefined;
    }
    for (;;) {
      // An instance can match several subjects and so appear on several pages: offer it the trigger once.
      const instanceIds: string[] = [];
      for (const id of page.instanceIds) {
        if (seen.has(id)) continue;
        seen.add(id);
        instanceIds.push(id);
      }
      const batch =
        instanceIds.length > 0
          ? context.df.callSubOrchestrator(APPLY_TRIGGER_BATCH, { operationId, instanceIds } satisfies ApplyTriggerBatchInput, `${operationId}:batch:${batchNumber++}`)
          : undefined;
      const readingWith = nextPage;
      const next = readingWith ? findPage(readingWith.continuationToken) : undefined;
      // Found, so listed in checkpoints from now on (it is yielded, and so scheduled, only below).
      if (batch) pending.push({ task: batch, instanceIds, ...(readWith ? { readWith } : {}) });
      while (batch && pending.length > MAX_BATCHES_IN_FLIGHT) yield* consumeBatch();
      if (batch && next) {
        // Schedules both; the batch keeps running while the next page is read.
        yield context.df.Task.any([batch, next]);
        page = yield next;
      } else if (next) {
        page = yield next;
      } else {
        break;
      }
      readWith = readingWith;
      nextPage = page.continuationToken !== undefined ? { continuationToken: page.continuationToken } : undefined;
    }
    // The last batch alone finishes the operation: its progress would be overwritten at once.
    while (pending.length > 1) yield* consumeBatch();
    if (pending.length > 0) totals = mergeTotals(totals, yield pending.shift()!.task);
  } catch (failure) {
    error = reasonOf(failure);
    // Let the batches already started finish, so that no trigger is applied after the operation ends.
    while (pending.length > 0) {
      try {
        totals = mergeTotals(totals, yield pending.shift()!.task);
      } catch {
        // The first failure is the one reported.
      }
    }
  }

  const completion: CompleteOperationInput = { operationId, ...totals, ...(error !== undefined ? { error } : {}) };
  yield callActivity(ActivityName.completeOperation, completion);
  const output: TriggerOrchestratorOutput = { candidates: totals.candidates, summary: totals.summary, ...(error !== undefined ? { error } : {}) };
  return output;
};

/** A failed task's message is "<reason> \n <details>", the details a stack trace: keep the reason. */
function reasonOf(failure: unknown): string {
  const message = failure instanceof Error ? failure.message : String(failure);
  const reason = (message.split('\n')[0] ?? '').trim();
  return (reason || 'The dispatch failed').slice(0, 1000);
}

df.app.orchestration(TRIGGER_ORCHESTRATOR, triggerOrchestrator);
