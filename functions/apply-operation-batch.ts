/**
 * @module The sub-orchestrator that applies one operation (a trigger, a migration, a bulk action) to one
 * batch of candidate instances (a page, the fan-out's `apply` step: src/engine/operations/fan-out.ts): one
 * `applyTrigger` activity per instance, retried for lease and transient storage faults. Batches are
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
import type { OrchestrationContext, OrchestrationHandler } from 'durable-functions';
import { countOutcomes, countedAsActivity, emptyTotals, type AppliedOutcome } from '../src/engine/operations/operation';
import { failureReason, type BatchOutcome } from '../src/engine/operations/fan-out';
import { tenantOfInput, tenantScope, type TenantScoped } from '../src/host/contracts/tenant-scope';
import { ACTIVITY_RETRY_POLICY, ActivityName, type ApplyOperationInput } from '../src/host/contracts/operation-activities';

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

export const applyOperationBatch: OrchestrationHandler = function* (context: OrchestrationContext) {
  const input = context.df.getInput<ApplyOperationBatchInput>();
  const { operationId, instanceIds, keepResults = false } = input;
  const scope = tenantScope(tenantOfInput(input));
  const activityInput = (instanceId: string): ApplyOperationInput => ({ operationId, ...scope, instanceId, ...(keepResults ? { keepResult: true } : {}) });
  const tasks = instanceIds.map((instanceId) => context.df.callActivityWithRetry(ActivityName.applyOperation, activityRetryOptions, activityInput(instanceId)));
  let results: AppliedOutcome[] = [];
  let error: string | undefined;
  // Task.all refuses an empty list; the parent never sends one, but an empty page must not fail.
  if (tasks.length > 0) {
    try {
      results = yield context.df.Task.all(tasks);
    } catch {
      // Task.all ends at the first failure: wait for each of the others (each yielded on its own, as #574 requires).
      results = [];
      for (const task of tasks) {
        try {
          results.push(yield task);
        } catch (failure) {
          error ??= failureReason(failure);
        }
      }
    }
  }
  // Only the outcomes seen: the orchestrator's totals list the operation kind's outcomes at 0. Each
  // application was an activity of this batch's plan: counted on its cost (decision 0021).
  const output: ApplyOperationBatchOutput = { ...countOutcomes(emptyTotals([]), results.map(countedAsActivity)), ...(error !== undefined ? { error } : {}) };
  return output;
};

df.app.orchestration(APPLY_OPERATION_BATCH, applyOperationBatch);
