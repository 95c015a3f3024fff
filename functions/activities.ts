/**
 * @module The activities of an operation's fan-out (the contract in src/host/contracts/operation-activities.ts),
 * registered with durable-functions. Each is a thin call into the OperationActivities shared with the
 * local server, in a span carrying the operation and
 * instance ids. They carry a durable client: an action may raise a trigger, which starts its own
 * orchestration.
 */
import type { InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import {
  ActivityName,
  type ApplyOperationInput,
  type BeginOperationInput,
  type CompleteOperationInput,
  type FindCandidatesInput,
  type RecordProgressInput,
  type OperationActivities,
} from '../src/host/contracts/operation-activities';
import { withSpan, type SpanIds } from './telemetry';
import { tenantOfInput } from '../src/host/contracts/tenant-scope';
import { activitiesFor, inInvocation } from './app-services';
import { CostAccumulator, meter } from '../src/host/cost/cost-scope';

/**
 * Runs an activity with its requests counted (decision 0021). An application answers its own cost
 * (AppliedOutcome.cost) and the completion records its own; the others answer theirs in `cost`, for the
 * orchestrator to carry to the completion.
 */
export async function countedActivity(name: ActivityFunctionName, run: () => Promise<unknown>): Promise<unknown> {
  const accumulator = new CostAccumulator();
  const output = await meter(accumulator, run);
  if (name === ActivityName.applyOperation || name === ActivityName.completeOperation) return output;
  const cost = accumulator.close();
  return output !== null && typeof output === 'object' ? { ...output, cost } : { cost };
}

export type ActivityFunctionName = (typeof ActivityName)[keyof typeof ActivityName];

/** Each activity's input as durable-functions delivers it, onto the shared contract. */
export function activityHandlers(activities: OperationActivities): Record<ActivityFunctionName, (input: unknown) => Promise<unknown>> {
  return {
    beginOperation: (input) => activities.beginOperation(input as BeginOperationInput),
    findCandidates: (input) => activities.findCandidates(input as FindCandidatesInput),
    // Keyed by registered name (ActivityName says why it is still `applyTrigger`).
    applyTrigger: (input) => activities.applyOperation(input as ApplyOperationInput),
    completeOperation: (input) => activities.completeOperation(input as CompleteOperationInput),
    recordProgress: (input) => activities.recordProgress(input as RecordProgressInput),
  };
}

function spanIds(input: unknown): SpanIds {
  if (typeof input === 'string') return { operationId: input };
  const { operationId, instanceId } = (input ?? {}) as { operationId?: unknown; instanceId?: unknown };
  return { ...(typeof operationId === 'string' ? { operationId } : {}), ...(typeof instanceId === 'string' ? { instanceId } : {}) };
}

export function runActivity(name: ActivityFunctionName, input: unknown, context: InvocationContext): Promise<unknown> {
  return inInvocation(context, () =>
    withSpan(`OperationActivities.${name}`, spanIds(input), () => countedActivity(name, async () => activityHandlers(await activitiesFor(context, tenantOfInput(input)))[name](input))),
  );
}

for (const name of Object.values(ActivityName)) {
  df.app.activity(name, {
    extraInputs: [df.input.durableClient()],
    handler: (input: unknown, context: InvocationContext) => runActivity(name, input, context),
  });
}
