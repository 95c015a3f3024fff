/**
 * @module The deadline of a trigger waiting for room in a full state, kept on its instance
 * (Instance.capacityWaits) with a timer of its own (a `timer` outbox row, a due-timer row locally, a durable
 * timer on Azure), so the wait ends at its deadline (`capacityTimeout`) even when nothing else touches the
 * state's row. Queuing saves the instance once (no history entry); admission removes the entry (and so
 * disarms the timer); a timer that finds its wait gone (admitted, or another incarnation) is `notInterested`.
 */
import type { Decision } from '../decide/decision';
import { unchanged } from '../decide/decision';
import { capacityWaitTimersOf } from '../decide/timers';
import type { WorkflowDefinition } from '../definition';
import { TriggerOutcome } from '../model/enums';
import type { CapacityWait, Instance } from '../model/instance';
import { OutboxKind, type TimerOutboxRow } from '../model/outbox';
import type { Trigger } from '../model/trigger';
import type { CapacityWaitTarget } from '../model/internal-trigger';
import type { OperationOptions } from '../ports';
import type { StateCapacityRows } from './state-capacity';

/** Waits one instance keeps timers for; a trigger queued past them still waits, and its wait ends when it is next offered. */
export const MAX_CAPACITY_WAITS_PER_INSTANCE = 20;

/** The instance without the wait of `triggerId` (the key left out when none is left). */
export function withoutCapacityWait<Kept extends Instance>(instance: Kept, triggerId: string): Kept {
  const rest = (instance.capacityWaits ?? []).filter((wait) => wait.triggerId !== triggerId);
  if (rest.length === (instance.capacityWaits ?? []).length) return instance;
  if (rest.length > 0) return { ...instance, capacityWaits: rest };
  const { capacityWaits: _none, ...plain } = instance;
  return plain as Kept;
}

/** The change keeping `wait` on the instance with its timer, or undefined when it is kept already or there is no room for it. */
export function withCapacityWait(instance: Instance, wait: CapacityWait, now: Date): Decision['change'] {
  const waits = instance.capacityWaits ?? [];
  if (waits.some((kept) => kept.triggerId === wait.triggerId) || waits.length >= MAX_CAPACITY_WAITS_PER_INSTANCE) return undefined;
  const next: Instance = { ...instance, capacityWaits: [...waits, wait], updatedAt: now.toISOString() };
  const rows: TimerOutboxRow[] = capacityWaitTimersOf({ ...next, capacityWaits: [wait] }).map((timer) => ({ id: timer.timerId, kind: OutboxKind.timer, payload: timer }));
  return { instance: { ...next, outbox: [...instance.outbox, ...rows.map((row) => row.id)] }, outbox: rows };
}

/** `change` with `wait` kept on its instance and its timer among its outbox rows (unchanged when kept already or there is no room). */
export function withCapacityWaitIn(change: NonNullable<Decision['change']>, wait: CapacityWait, now: Date): NonNullable<Decision['change']> {
  const added = withCapacityWait(change.instance, wait, now);
  return added ? { ...change, instance: added.instance, outbox: [...change.outbox, ...added.outbox] } : change;
}

/**
 * A capacity timer's trigger: the wait ends (the waiter leaves the queue, `capacityTimeout`) if it still
 * waits; the entry goes either way. `waiting`: the waiting trigger, to record the outcome as its offer.
 */
export async function decideCapacityWaitEnd(
  rows: StateCapacityRows | undefined,
  definition: WorkflowDefinition,
  stored: Instance,
  trigger: Trigger,
  target: CapacityWaitTarget,
  now: Date,
  options: OperationOptions,
): Promise<{ decision: Decision; waiting?: Trigger }> {
  const wait = stored.capacityWaits?.find((kept) => kept.triggerId === target.triggerId);
  const timerId = wait && capacityWaitTimersOf({ ...stored, capacityWaits: [wait] })[0]!.timerId;
  if (!wait || !rows || target.incarnation !== stored.incarnation || timerId !== trigger.id) return { decision: unchanged({ instanceId: stored.id, outcome: TriggerOutcome.notInterested }) };
  const ended = await rows.expire(definition.id, wait.stateId, wait.key, wait.triggerId, options);
  const change = { instance: { ...withoutCapacityWait(stored, wait.triggerId), updatedAt: now.toISOString() }, outbox: [] };
  if (!ended) return { decision: { result: { instanceId: stored.id, outcome: TriggerOutcome.notInterested }, change, logs: [] } };
  const limit = definition.states[wait.stateId]?.capacity?.limit ?? 0;
  const detail = `capacityTimeout: ${wait.key} at ${ended.members}/${limit} in ${wait.stateId}, waited since ${ended.waiter.arrivedAt}`;
  return {
    decision: {
      result: {
        instanceId: stored.id,
        outcome: TriggerOutcome.capacityTimeout,
        fromStateId: stored.stateId,
        trace: [{ path: `states.${wait.stateId}.capacity`, type: 'capacity', result: false, detail }],
      },
      change,
      logs: [],
    },
    waiting: ended.waiter.trigger,
  };
}
