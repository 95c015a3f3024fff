/**
 * @module The sub-orchestrator that applies one operation (a trigger, a migration, a bulk action) to one
 * batch of candidate instances (a page, the fan-out's `apply` step: src/engine/operations/fan-out.ts): one
 * `applyTrigger` activity per instance, retried for lease and transient storage faults; one answered queued for a
 * concurrency slot is tried again after a durable timer (tryQueuedAgain, decision 0025). Batches are
 * sub-orchestrations so that each durable history holds at most one page of tasks. Each activity stores
 * its instance's result itself and answers only the outcome, so history holds counts, not results; only
 * an operation of one instance (operation-orchestrator.ts, MAX_KEPT_RESULTS_DURABLE) has its one short result answered, for the
 * completion to record (decision 0017).
 *
 * A batch runs to its end: when an instance's activity fails for good, the others (all scheduled at
 * once) are still waited for and counted, and the batch reports the first failure in its outcome, so
 * that the operation never ends while one of its instances is still being applied, nor leaves one uncounted.
 *
 * Deterministic code: it imports only durable-functions and pure engine helpers, and reads no clock,
 * environment or randomness (test/functions/determinism.test.ts checks the imports).
 */
import * as df from 'durable-functions';
import type { OrchestrationContext, OrchestrationHandler, Task } from 'durable-functions';
import { countOutcomes, countedAsActivity, emptyTotals, type AppliedOutcome } from '../src/engine/operations/operation';
import { failureReason, type BatchOutcome } from '../src/engine/operations/fan-out';
import { tenantOfInput, tenantScope, type TenantScoped } from '../src/host/contracts/tenant-scope';
import { addCost, emptyCost, type OperationCost } from '../src/engine/operations/operation-cost';
import {
  ACTIVITY_RETRY_POLICY,
  ActivityName,
  MAX_SLOT_TRIES,
  isQueuedForSlot,
  slotTryFireAt,
  slotWaitGivenUp,
  type ApplyOperationAnswer,
  type ApplyOperationInput,
} from '../src/host/contracts/operation-activities';

/**
 * The registered name stays as first deployed: an operation orchestration in flight on a deployed app
 * replays against the sub-orchestration name in its history.
 */
export const APPLY_OPERATION_BATCH = 'applyTriggerBatch';

export interface ApplyOperationBatchInput extends TenantScoped {
  readonly operationId: string;
  readonly instanceIds: readonly string[];
  /** The batch is the whole operation (FanOutBatch.keepResults): each activity answers its short result, which the completion records. */
  readonly keepResults?: boolean;
}

/** The batch's counts (its results are in the operation's results, written by each activity), and the first failure. */
export type ApplyOperationBatchOutput = BatchOutcome;

/** Retries for every Signalbox activity: the contract's one policy (ACTIVITY_RETRY_POLICY), which the local runner follows too. */
export const activityRetryOptions: df.RetryOptions = (() => {
  const options = new df.RetryOptions(ACTIVITY_RETRY_POLICY.firstRetryIntervalInMs, ACTIVITY_RETRY_POLICY.maxAttempts);
  options.backoffCoefficient = ACTIVITY_RETRY_POLICY.backoffCoefficient;
  options.maxRetryIntervalInMilliseconds = ACTIVITY_RETRY_POLICY.maxRetryIntervalInMs;
  return options;
})();

/** One instance's application, settled: the activity's answer, or why it failed for good. */
export type SettledApplication = { readonly answer: ApplyOperationAnswer } | { readonly failure: string };

/**
 * Applies each input once, all scheduled at once. Task.all ends at the first failure: then each task is
 * waited for on its own (as #574 requires), so that none is left running uncounted.
 */
function* applyEachOnce(context: OrchestrationContext, inputs: readonly ApplyOperationInput[]): Generator<Task, SettledApplication[], unknown> {
  const tasks = inputs.map((input) => context.df.callActivityWithRetry(ActivityName.applyOperation, activityRetryOptions, input));
  // Task.all refuses an empty list; the parent never sends one, but an empty page must not fail.
  if (tasks.length === 0) return [];
  try {
    const answers = (yield context.df.Task.all(tasks)) as ApplyOperationAnswer[];
    return answers.map((answer) => ({ answer }));
  } catch {
    const settled: SettledApplication[] = [];
    for (const task of tasks) {
      try {
        settled.push({ answer: (yield task) as ApplyOperationAnswer });
      } catch (failure) {
        settled.push({ failure: failureReason(failure) });
      }
    }
    return settled;
  }
}

/**
 * Tries again, after a durable timer, every application answered queued for a concurrency slot (decision
 * 0025): no lease is held meanwhile and no worker waits; the timer's fire time is computed from the
 * orchestration's clock (deterministic). After MAX_SLOT_TRIES tries one still queued is settled as failed,
 * naming its key. What the queued tries cost is added to the application that follows them (decision 0021).
 */
export function* tryQueuedAgain(context: OrchestrationContext, inputs: readonly ApplyOperationInput[], first: readonly SettledApplication[]): Generator<Task, SettledApplication[], unknown> {
  const settled = [...first];
  const spent = new Map<number, OperationCost>();
  for (let tries = 1; ; tries += 1) {
    const queued = settled.flatMap((each, index) => ('answer' in each && isQueuedForSlot(each.answer) ? [{ index, answer: each.answer }] : []));
    // Each queued try was an activity of the plan, with the requests it sent.
    for (const { index, answer } of queued) {
      const cost = answer.cost ?? emptyCost();
      spent.set(index, addCost(spent.get(index) ?? emptyCost(), { ...cost, activities: cost.activities + 1 }));
    }
    if (queued.length === 0) break;
    if (tries >= MAX_SLOT_TRIES) {
      for (const { index, answer } of queued) settled[index] = { failure: slotWaitGivenUp(inputs[index]!.instanceId, answer.queued, tries) };
      break;
    }
    yield context.df.createTimer(slotTryFireAt(context.df.currentUtcDateTime, tries));
    const again = yield* applyEachOnce(
      context,
      queued.map(({ index }) => inputs[index]!),
    );
    queued.forEach(({ index }, at) => (settled[index] = again[at]!));
  }
  return settled.map((each, index) => {
    const carried = spent.get(index);
    if (!carried || !('answer' in each) || isQueuedForSlot(each.answer)) return each;
    return { answer: { ...each.answer, cost: addCost(each.answer.cost ?? emptyCost(), carried) } };
  });
}

export const applyOperationBatch: OrchestrationHandler = function* (context: OrchestrationContext) {
  const input = context.df.getInput<ApplyOperationBatchInput>();
  const { operationId, instanceIds, keepResults = false } = input;
  const scope = tenantScope(tenantOfInput(input));
  // A trigger without a concurrency slot is answered queued at once (its lease released) and tried again here.
  const inputs = instanceIds.map((instanceId): ApplyOperationInput => ({ operationId, ...scope, instanceId, ...(keepResults ? { keepResult: true } : {}), parkWhenQueued: true }));
  const settled = yield* tryQueuedAgain(context, inputs, yield* applyEachOnce(context, inputs));
  const results: AppliedOutcome[] = [];
  let error: string | undefined;
  for (const each of settled) {
    if ('failure' in each) error ??= each.failure;
    else if (!isQueuedForSlot(each.answer)) results.push(each.answer);
  }
  // Only the outcomes seen: the orchestrator's totals list the operation kind's outcomes at 0. Each
  // application was an activity of this batch's plan: counted on its cost (decision 0021).
  const output: ApplyOperationBatchOutput = { ...countOutcomes(emptyTotals([]), results.map(countedAsActivity)), ...(error !== undefined ? { error } : {}) };
  return output;
};

df.app.orchestration(APPLY_OPERATION_BATCH, applyOperationBatch);
