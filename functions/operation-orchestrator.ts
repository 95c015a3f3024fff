/**
 * @module The operation orchestrator (durable instance id = operation id), for every kind of operation
 * (a trigger, a migration, a bulk action): a thin scheduler of the one fan-out algorithm
 * (src/engine/operations/fan-out.ts), which the local runner and `Engine.publish` drive too. Each step
 * it is given becomes a task: a page read (the trigger's interest index lookup, or the selection) and a
 * progress record are activities, a batch is an `applyOperationBatch` sub-orchestration (at most
 * MAX_BATCHES_IN_FLIGHT at a time, or the tenant's narrower fan-out quota from the input, scheduled with the next task so that it runs while pages are read).
 *
 * Deterministic code: it imports only durable-functions, pure engine helpers and the activity contract,
 * and reads no clock, environment or randomness (test/functions/determinism.test.ts checks the imports).
 * Every task is yielded inside at most one Task.any/Task.all and otherwise on its own: durable-functions
 * 3 schedules an action again when an already scheduled task is put in a new compound task
 * (Azure/azure-functions-durable-js#574).
 */
import * as df from 'durable-functions';
import type { OrchestrationContext, OrchestrationHandler, Task } from 'durable-functions';
import { countOutcomes, countedAsActivity, emptyTotals, type AppliedOutcome } from '../src/engine/operations/operation';
import { addCost, emptyCost, type OperationCost } from '../src/engine/operations/operation-cost';
import { FanOut, failureReason, type BatchOutcome } from '../src/engine/operations/fan-out';
import {
  ActivityName,
  candidateSource,
  type ApplyOperationAnswer,
  type ApplyOperationInput,
  type BeginOperationInput,
  type BeginOperationOutput,
  type CompleteOperationInput,
  type CostedOutput,
  type FindCandidatesInput,
  type FindCandidatesOutput,
  type RecordProgressInput,
} from '../src/host/contracts/operation-activities';
import { tenantInstanceId, tenantOfInput, tenantScope, type TenantScoped } from '../src/host/contracts/tenant-scope';
import { APPLY_OPERATION_BATCH, activityRetryOptions, tryQueuedAgain, type ApplyOperationBatchInput, type ApplyOperationBatchOutput } from './apply-operation-batch';

/**
 * The registered name stays as first deployed (from when every operation was a trigger): orchestrations
 * in flight on a deployed app, and their durable status queries, go by this name.
 */
export const OPERATION_ORCHESTRATOR = 'triggerOrchestrator';

/** Batches (pages of up to DURABLE_PAGE_SIZE instances) running at once in one operation. */
export const MAX_BATCHES_IN_FLIGHT = 8;
/**
 * Instances a page (and so a batch) of a durable fan-out. Progress is recorded as batches finish, so this
 * is how far progress moves at a time on Azure: small enough that an operation of a hundred instances
 * shows it, at the cost of one candidate read and one progress write per 50 instances (each instance
 * costs several storage requests of its own).
 */
export const DURABLE_PAGE_SIZE = 50;
/**
 * An operation of one instance has its result (at most MAX_KEPT_RESULT_LENGTH characters) carried
 * through history to the completion, which records it, instead of a row of its own: one storage request
 * less for the common trigger to one instance, a bounded few kilobytes of history. Larger ones keep their
 * results out of history (decision 0015).
 */
export const MAX_KEPT_RESULTS_DURABLE = 1;

export interface OperationOrchestratorInput extends TenantScoped {
  readonly operationId: string;
  /**
   * The tenant's fan-out quota (tenant-quotas.ts `fanOutBatches`), fixed when the orchestration starts so
   * replays see the same: it narrows MAX_BATCHES_IN_FLIGHT, never widens it. Absent: MAX_BATCHES_IN_FLIGHT.
   */
  readonly batchesInFlight?: number;
  /**
   * An operation of one instance applies it with its activity in this orchestration, not in a batch
   * sub-orchestration: the same activity, retry policy and kept result, with a third of the history. Set
   * by the launcher; absent on orchestrations started before it was, which replay the sub-orchestration
   * their history holds (a replay must schedule what it scheduled before).
   */
  readonly applyOneInstanceDirectly?: boolean;
  /**
   * What recording the operation cost in the process that submitted it (decision 0021: the record's
   * creation), for the completion to count; absent on orchestrations started before costs were counted.
   */
  readonly submitted?: OperationCost;
}

/** The window of a fan-out: the tenant's quota within 1..MAX_BATCHES_IN_FLIGHT. */
export function batchesInFlightOf(input: OperationOrchestratorInput): number {
  const quota = input.batchesInFlight;
  return quota !== undefined && Number.isInteger(quota) && quota >= 1 ? Math.min(quota, MAX_BATCHES_IN_FLIGHT) : MAX_BATCHES_IN_FLIGHT;
}

/** The orchestration's output (the durable status shows it); the operation record has the details. */
export interface OperationOrchestratorOutput {
  readonly candidates: number;
  readonly summary: ApplyOperationBatchOutput['summary'];
  readonly error?: string;
}

export const operationOrchestrator: OrchestrationHandler = function* (context: OrchestrationContext) {
  const input = context.df.getInput<OperationOrchestratorInput>();
  const { operationId } = input;
  // Every activity and batch runs in the operation's tenant (its storage), whatever worker takes it.
  const tenantId = tenantOfInput(input);
  const scope = tenantScope(tenantId);
  const callActivity = (name: string, input: unknown): Task => context.df.callActivityWithRetry(name, activityRetryOptions, input);
  // `running` is written by the fan-out's first progress record, as on every host (fan-out.ts).
  const begun: BeginOperationOutput = yield callActivity(ActivityName.beginOperation, { operationId, ...scope, deferRunning: true } satisfies BeginOperationInput);
  if (!begun.shouldRun) return undefined;
  /**
   * What the run cost besides its applications (decision 0021): each activity's answer carries its
   * requests, and the activities are counted from this plan (begin, reads, records, the completion).
   */
  let overhead: OperationCost = emptyCost();
  let activities = 1;
  const counted = (output: unknown): void => {
    activities += 1;
    const cost = (output as CostedOutput | null | undefined)?.cost;
    if (cost) overhead = addCost(overhead, cost);
  };
  if (begun.cost) overhead = addCost(overhead, begun.cost);
  if (input.submitted) overhead = addCost(overhead, input.submitted);
  const source = candidateSource(begun);
  // A tenant's broadcast holds at most its quota of batches at once, so other tenants' work gets the workers too.
  const fanOut = new FanOut(begun, { batchesInFlight: batchesInFlightOf(input), maxKeptResults: MAX_KEPT_RESULTS_DURABLE });

  /** Batches started and not yet waited for, oldest first. */
  const batches: Task[] = [];
  /** Those of `batches` that are one instance's activity, answering its outcome rather than a batch's. */
  const appliedDirectly = new Map<Task, ApplyOperationInput>();
  /** Batches made and not yet yielded: durable-functions schedules a task only when it is yielded. */
  let unscheduled: Task[] = [];
  const scheduled = new Set<Task>();
  /**
   * Waits for `task`. One not yet scheduled is scheduled together with the batches started since the last
   * yield (in one Task.any), which go on running; one already scheduled is yielded alone, as #574 requires.
   */
  function* settle(task: Task): Generator<Task, unknown, unknown> {
    if (!scheduled.has(task)) {
      const all = [...unscheduled.filter((other) => other !== task), task];
      unscheduled = [];
      for (const each of all) scheduled.add(each);
      if (all.length > 1) yield context.df.Task.any(all);
    }
    scheduled.delete(task);
    return yield task;
  }

  for (;;) {
    const step = fanOut.next();
    switch (step.next) {
      case 'read': {
        const input: FindCandidatesInput = { ...source, ...scope, maxPageSize: DURABLE_PAGE_SIZE, ...(step.continuationToken !== undefined ? { continuationToken: step.continuationToken } : {}) };
        try {
          const page = (yield* settle(callActivity(ActivityName.findCandidates, input))) as FindCandidatesOutput;
          counted(page);
          fanOut.pageRead(page);
        } catch (failure) {
          fanOut.failed(failureReason(failure));
        }
        break;
      }
      case 'apply': {
        const [onlyInstanceId, ...others] = step.batch.instanceIds;
        if (input.applyOneInstanceDirectly && step.batch.keepResults && onlyInstanceId !== undefined && others.length === 0) {
          // The whole operation is this one instance: its kept result comes back with its outcome.
          const directInput: ApplyOperationInput = { operationId, ...scope, instanceId: onlyInstanceId, keepResult: true, parkWhenQueued: true };
          const applied = callActivity(ActivityName.applyOperation, directInput);
          appliedDirectly.set(applied, directInput);
          batches.push(applied);
          unscheduled.push(applied);
          break;
        }
        const batchInput: ApplyOperationBatchInput = { operationId, ...scope, instanceIds: step.batch.instanceIds, ...(step.batch.keepResults ? { keepResults: true } : {}) };
        const batch = context.df.callSubOrchestrator(APPLY_OPERATION_BATCH, batchInput, tenantInstanceId(tenantId, `${operationId}:batch:${step.batch.number}`));
        batches.push(batch);
        unscheduled.push(batch);
        break;
      }
      case 'wait': {
        const batch = batches.shift()!;
        try {
          const finished = yield* settle(batch);
          const directInput = appliedDirectly.get(batch);
          if (directInput) {
            // Queued for a concurrency slot: tried again after durable timers, as a batch's instances are.
            const [settled] = yield* tryQueuedAgain(context, [directInput], [{ answer: finished as ApplyOperationAnswer }]);
            if (!settled || 'failure' in settled) throw new Error(settled?.failure);
            fanOut.batchFinished(countOutcomes(emptyTotals([]), [countedAsActivity(settled.answer as AppliedOutcome)]));
          } else fanOut.batchFinished(finished as BatchOutcome);
        } catch (failure) {
          // A batch reports its instances' failures in its outcome: this is the sub-orchestration's own, or the
          // failure of an instance applied directly (counted as a batch of one counts it: not at all).
          fanOut.batchFinished({ ...emptyTotals([]), error: failureReason(failure) });
        }
        break;
      }
      case 'record': {
        try {
          counted(yield* settle(callActivity(ActivityName.recordProgress, { operationId, ...scope, progress: step.progress, checkpoint: step.checkpoint } satisfies RecordProgressInput)));
        } catch (failure) {
          fanOut.failed(failureReason(failure));
        }
        break;
      }
      case 'complete': {
        const { completion } = step;
        // The completion is an activity too; what it sends itself it counts itself.
        yield callActivity(ActivityName.completeOperation, { operationId, ...scope, ...completion, overhead: { ...overhead, activities: activities + 1 } } satisfies CompleteOperationInput);
        const output: OperationOrchestratorOutput = {
          candidates: completion.candidates,
          summary: completion.summary,
          ...(completion.error !== undefined ? { error: completion.error } : {}),
        };
        return output;
      }
    }
  }
};

df.app.orchestration(OPERATION_ORCHESTRATOR, operationOrchestrator);
