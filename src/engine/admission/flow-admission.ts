/**
 * @module Admission of a trigger under its workflow's `concurrency` policy: the key computed from the
 * instance and the trigger, a slot taken (concurrency-slots.ts), and the trace entry that says so. Only a
 * workflow with a policy pays for it: without one, nothing here touches storage.
 */
import { concurrencyWaitInMs, evaluateFlowKey, type WorkflowDefinition } from '../definition';
import type { TraceEntry } from '../decide/decision-trace';
import type { Decision } from '../decide/decision';
import type { ExpressionScope } from '../expressions';
import type { Instance } from '../model/instance';
import type { Trigger } from '../model/trigger';
import type { OperationOptions } from '../ports';
import type { ConcurrencySlots, HeldSlot } from './concurrency-slots';

export const CONCURRENCY_TRACE_PATH = 'flow.concurrency';

/**
 * The key a flow-control `key` gives for this instance and trigger (concurrency, a state's capacity);
 * undefined when it yields nothing. `now` is the engine's clock (`$now()` in a key).
 */
export async function flowKeyOf(
  source: string,
  instance: Pick<Instance, 'id' | 'workflowId' | 'stateId' | 'status' | 'context'>,
  trigger: Trigger | null,
  now: () => Date,
): Promise<string | undefined> {
  const scope: ExpressionScope = {
    trigger,
    actor: trigger?.actor ?? null,
    context: instance.context,
    instance: { id: instance.id, workflowId: instance.workflowId, stateId: instance.stateId, status: instance.status },
  };
  // One evaluation for every flow-control key (templates, JSONata, the length bound).
  return evaluateFlowKey(source, scope, { now });
}

export interface Admission {
  /** Held until the application is over: release it then. Absent when no limit applied. */
  readonly slot?: HeldSlot;
  readonly trace: TraceEntry;
}

/**
 * Takes a slot for the trigger when the workflow has a concurrency policy; undefined when it has none.
 * Throws FlowQueuedError (retryable) when no slot came within the policy's wait, or within `maxWaitInMs`
 * when that is shorter (the caller parks the trigger instead of waiting).
 */
export async function admitTrigger(
  slots: ConcurrencySlots | undefined,
  definition: WorkflowDefinition,
  instance: Instance,
  trigger: Trigger,
  options: OperationOptions,
  now: () => Date,
  maxWaitInMs?: number,
): Promise<Admission | undefined> {
  const policy = definition.flow?.concurrency;
  if (!policy || !slots) return undefined;
  let key: string | undefined;
  try {
    key = await flowKeyOf(policy.key, instance, trigger, now);
  } catch (error) {
    return { trace: { path: CONCURRENCY_TRACE_PATH, type: 'concurrency', result: 'error', detail: `no limit applied: the key failed (${error instanceof Error ? error.message : String(error)})` } };
  }
  if (key === undefined) return { trace: { path: CONCURRENCY_TRACE_PATH, type: 'concurrency', result: true, detail: 'no limit applied: the key yields nothing' } };
  const slot = await slots.acquire(
    {
      workflowId: definition.id,
      key,
      limit: policy.limit,
      instanceId: instance.id,
      triggerId: trigger.id,
      ...(trigger.priority !== undefined ? { priority: trigger.priority } : {}),
      maxWaitInMs: Math.min(concurrencyWaitInMs(policy), maxWaitInMs ?? Number.POSITIVE_INFINITY),
      // A caller that parks the trigger keeps it listed in the queue for as long as the policy lets one wait.
      ...(maxWaitInMs !== undefined && maxWaitInMs < concurrencyWaitInMs(policy) ? { parkedListingInMs: concurrencyWaitInMs(policy) } : {}),
    },
    options,
  );
  return { slot, trace: { path: CONCURRENCY_TRACE_PATH, type: 'concurrency', result: true, detail: slot.detail } };
}

/** The decision, its result's trace opening with the admission. */
export function withAdmissionTrace(decision: Decision, admission: Admission | undefined): Decision {
  if (!admission) return decision;
  return { ...decision, result: { ...decision.result, trace: [admission.trace, ...(decision.result.trace ?? [])] } };
}
