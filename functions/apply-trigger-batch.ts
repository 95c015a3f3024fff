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
import { ActivityName, type ApplyTriggerInput } from '../src/host/trigger-activities';

export const APPLY_TRIGGER_BATCH = 'applyTriggerBatch';

export interface ApplyTriggerBatchInput {
  readonly operationId: string;
  readonly instanceIds: readonly string[];
}

/** The batch's totals; its results in the order of `instanceIds`. */
export type ApplyTriggerBatchOutput = OperationTotals;

/**
 * Retries for every Signalbox activity: the activities throw only retryable errors (lease unavailable
 * or lost, transient storage faults). Attempts at about 0, 1, 3, 7 and 15 s: a busy instance or a
 * storage hiccup gets about a lease's shortest duration (15 s) to clear, and a storage account that
 * stays down fails the operation in seconds rather than holding it open.
 */
export const activityRetryOptions: df.RetryOptions = (() => {
  const options = new df.RetryOptions(1000, 5);
  options.backoffCoefficient = 2;
  options.maxRetryIntervalInMilliseconds = 30_000;
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
