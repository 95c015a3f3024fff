/**
 * @module The sub-orchestrator that applies one operation (a trigger, a migration, a bulk action) to one
 * page of candidate instances: one `applyTrigger` activity per instance, retried for lease and transient storage faults. Pages are
 * sub-orchestrations so that each durable history holds at most one page of tasks.
 *
 * Deterministic code: it imports only durable-functions and pure engine helpers, and reads no clock,
 * environment or randomness (test/functions/determinism.test.ts checks the imports).
 */
import * as df from 'durable-functions';
import type { OrchestrationContext, OrchestrationHandler } from 'durable-functions';
import { accumulateResults, emptyTotals, type InstanceResult, type OperationTotals } from '../src/engine/operation';
import { ACTIVITY_RETRY_POLICY, ActivityName, type ApplyTriggerInput } from '../src/host/trigger-activities';

export const APPLY_TRIGGER_BATCH = 'applyTriggerBatch';

export interface ApplyTriggerBatchInput {
  readonly operationId: string;
  readonly instanceIds: readonly string[];
}

/** The batch's totals; its results in the order of `instanceIds`. */
export type ApplyTriggerBatchOutput = OperationTotals;

/** Retries for every Signalbox activity: the contract's one policy (ACTIVITY_RETRY_POLICY), which the local runner follows too. */
export const activityRetryOptions: df.RetryOptions = (() => {
  const options = new df.RetryOptions(ACTIVITY_RETRY_POLICY.firstRetryIntervalInMs, ACTIVITY_RETRY_POLICY.maxAttempts);
  options.backoffCoefficient = ACTIVITY_RETRY_POLICY.backoffCoefficient;
  options.maxRetryIntervalInMilliseconds = ACTIVITY_RETRY_POLICY.maxRetryIntervalInMs;
  return options;
})();

export const applyTriggerBatch: OrchestrationHandler = function* (context: OrchestrationContext) {
  const { operationId, instanceIds } = context.df.getInput<ApplyTriggerBatchInput>();
  const tasks = instanceIds.map((instanceId) =>
    context.df.callActivityWithRetry(ActivityName.applyTrigger, activityRetryOptions, { operationId, instanceId } satisfies ApplyTriggerInput),
  );
  // Task.all refuses an empty list; the parent never sends one, but an empty page must not fail.
  const results: InstanceResult[] = tasks.length > 0 ? yield context.df.Task.all(tasks) : [];
  // Only the outcomes seen: the orchestrator's totals list the operation kind's outcomes at 0.
  const output: ApplyTriggerBatchOutput = accumulateResults(emptyTotals([]), results);
  return output;
};

df.app.orchestration(APPLY_TRIGGER_BATCH, applyTriggerBatch);
