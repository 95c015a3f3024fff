/**
 * @module A trigger whose transition would take the instance into a state with `capacity`
 * (definition/state-capacity.ts): counted in when there is room, else its decision is set aside (nothing
 * saved) and the trigger waits in the state's queue (state-capacity.ts), or its wait ends with
 * `capacityTimeout`. Each verdict opens the decision trace. A change that stays in its state, or a state
 * without `capacity`, costs nothing here.
 */
import { capacityTimeoutInMs, type StateCapacityDefinition, type WorkflowDefinition } from '../definition';
import type { Decision } from '../decide/decision';
import type { TraceEntry } from '../decide/decision-trace';
import { TriggerOutcome } from '../model/enums';
import { flowKeyOf, withAdmissionTrace } from './flow-admission';
import type { Instance } from '../model/instance';
import type { Trigger } from '../model/trigger';
import type { OperationOptions } from '../ports';
import type { CapacityOffer, StateCapacityRows } from './state-capacity';

export function capacityTracePath(stateId: string): string {
  return `states.${stateId}.capacity`;
}

/** The state's key over the instance (as it enters, or as it was in the state) and the trigger. */
export function capacityKeyOf(capacity: StateCapacityDefinition, instance: Instance, trigger: Trigger | null, now: () => Date): Promise<string | undefined> {
  return flowKeyOf(capacity.key, instance, trigger, now);
}

/**
 * The decision as the target state's capacity lets it stand: unchanged, with the admission traced, or
 * replaced by `capacityQueued` / `capacityTimeout` (nothing saved). Waiters to offer again go to `offers`.
 */
export async function capacityDecision(
  rows: StateCapacityRows | undefined,
  definition: WorkflowDefinition,
  stored: Instance,
  trigger: Trigger,
  decision: Decision,
  offers: CapacityOffer[],
  options: OperationOptions,
  now: () => Date,
): Promise<Decision> {
  const entering = decision.change?.instance;
  if (!rows || !entering || entering.stateId === stored.stateId) return decision;
  const capacity = definition.states[entering.stateId]?.capacity;
  if (!capacity) return decision;
  const path = capacityTracePath(entering.stateId);
  let key: string | undefined;
  try {
    key = await capacityKeyOf(capacity, entering, trigger, now);
  } catch (error) {
    return withAdmissionTrace(decision, { trace: { path, type: 'capacity', result: 'error', detail: `no limit applied: the key failed (${error instanceof Error ? error.message : String(error)})` } });
  }
  if (key === undefined) return withAdmissionTrace(decision, { trace: { path, type: 'capacity', result: true, detail: 'no limit applied: the key yields nothing' } });
  const verdict = await rows.enter(
    {
      workflowId: definition.id,
      stateId: entering.stateId,
      key,
      limit: capacity.limit,
      instanceId: stored.id,
      historyLength: stored.historyLength,
      ...(stored.incarnation !== undefined ? { incarnation: stored.incarnation } : {}),
      trigger,
      timeoutInMs: capacityTimeoutInMs(capacity),
    },
    options,
  );
  offers.push(...verdict.offer);
  const entry: TraceEntry = { path, type: 'capacity', result: verdict.verdict === 'admitted', detail: verdict.detail };
  if (verdict.verdict === 'admitted') return withAdmissionTrace(decision, { trace: entry });
  return {
    result: {
      instanceId: stored.id,
      outcome: verdict.verdict === 'queued' ? TriggerOutcome.capacityQueued : TriggerOutcome.capacityTimeout,
      fromStateId: stored.stateId,
      ...(decision.result.transitionId ? { transitionId: decision.result.transitionId } : {}),
      trace: [entry, ...(decision.result.trace ?? [])],
    },
    logs: [],
  };
}
