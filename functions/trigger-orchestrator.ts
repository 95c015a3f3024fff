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
import { emptyTotals, mergeTotals, type OperationTotals } from '../src/engine/operation';
import {
  ActivityName,
  type BeginOperationOutput,
  type CompleteOperationInput,
  type CandidateSource,
  type FindCandidatesInput,
  type FindCandidatesOutput,
  type RecordProgressInput,
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

  let totals: OperationTotals = emptyTotals(begun.outcomes);
  let error: string | undefined;
  /** Scheduled batches not yet consumed, oldest first; consumed in order so results keep candidate order. */
  const pending: Task[] = [];
  const seen = new Set<string>();
  let allFound = false;
  /** Takes the oldest batch's totals, then records the progress (the total once every page is read). */
  function* consumeBatch(): Generator<Task, void, OperationTotals> {
    totals = mergeTotals(totals, yield pending.shift()!);
    const progress = { processed: totals.candidates, ...(allFound ? { total: seen.size } : {}) };
    yield callActivity(ActivityName.recordProgress, { operationId, progress } satisfies RecordProgressInput);
  }
  try {
    let batchNumber = 0;
    let page: FindCandidatesOutput = yield findPage();
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
      const next = page.continuationToken !== undefined ? findPage(page.continuationToken) : undefined;
      if (!next) allFound = true;
      while (batch && pending.length >= MAX_BATCHES_IN_FLIGHT) yield* consumeBatch();
      if (batch && next) {
        // Schedules both; the batch keeps running while the next page is read.
        yield context.df.Task.any([batch, next]);
        pending.push(batch);
        page = yield next;
      } else if (next) {
        page = yield next;
      } else {
        if (batch) pending.push(batch);
        break;
      }
    }
    // The last batch alone finishes the operation: its progress would be overwritten at once.
    while (pending.length > 1) yield* consumeBatch();
    if (pending.length > 0) totals = mergeTotals(totals, yield pending.shift()!);
  } catch (failure) {
    error = reasonOf(failure);
    // Let the batches already started finish, so that no trigger is applied after the operation ends.
    while (pending.length > 0) {
      try {
        totals = mergeTotals(totals, yield pending.shift()!);
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
