/**
 * @module Re-offers of triggers waiting for room in a full state (`capacity`). A change that takes an
 * instance out of such a state (a trigger, a cancel, a migration, a deletion) reads the state's row for the
 * key it was counted under (Instance.capacityEntry) and writes, in its own save, one outbox trigger row per
 * waiter that now fits: addressed to the waiter's instance and incarnation (held while it is suspended or
 * faulted, held-triggers.ts), one step deeper in follow-up work than the change (a chain of states
 * re-offering onward stops at MAX_CAUSAL_DEPTH: the waiter then stays queued for the next change), with an
 * id derived from the leaving change and the waiter (a relay repeated after a crash is the same operation).
 * Applying the row applies the waiting trigger itself, under its own id (decide-trigger.ts), so it applies
 * once. The row count goes down after the save; a crash before that is mended by the reconciliation.
 */
import { budgetShare } from '../decide/causal-budget';
import { followUpActor, followUpDepth, type Cause, type Change } from '../decide/decision';
import { InstanceStatus } from '../model/enums';
import type { CapacityEntry, Instance } from '../model/instance';
import { OutboxKind, type TriggerOutboxRow } from '../model/outbox';
import { MAX_CAUSAL_DEPTH } from '../model/trigger';
import { raisedTriggerId } from '../model/trigger-ids';
import type { CapacityOffer } from './state-capacity';

/** Where `before` was counted and `next` (as the change saves it) no longer is: it left the state, ended or changed key. */
export function leftCapacity(before: Instance, next: Instance): CapacityEntry | undefined {
  const entry = before.capacityEntry;
  if (!entry) return undefined;
  const ended = next.status === InstanceStatus.complete || next.status === InstanceStatus.cancelled || next.deleting !== undefined;
  const still = !ended && next.stateId === entry.stateId && next.capacityEntry?.stateId === entry.stateId && next.capacityEntry.key === entry.key;
  return still ? undefined : entry;
}

/** The outbox rows offering `offers` again, made by the change `cause` of `leaver` (`otherPieces`: its other follow-up work). */
export function reofferRows(leaver: Instance, cause: Cause, offers: readonly CapacityOffer[], otherPieces: number): TriggerOutboxRow[] {
  const depth = followUpDepth(cause);
  if (offers.length === 0 || depth > MAX_CAUSAL_DEPTH) return [];
  const causalBudget = budgetShare(cause, otherPieces + offers.length);
  return offers.map(({ workflowId, stateId, key, waiter }) => {
    // `k<history length>.<waiter>`: a cause tag of its own (trigger-ids.ts), one per leaving change and waiter.
    const id = raisedTriggerId(leaver.id, `k${leaver.historyLength}.${waiter.id}`, 0, leaver.incarnation);
    return {
      id,
      kind: OutboxKind.trigger,
      payload: {
        id,
        name: waiter.trigger.name,
        subjects: [waiter.instanceId],
        ...(waiter.trigger.priority !== undefined ? { priority: waiter.trigger.priority } : {}),
        recipient: { instanceId: waiter.instanceId, ...(waiter.incarnation !== undefined ? { incarnation: waiter.incarnation } : {}) },
        internal: { kind: 'capacityReoffer', workflowId, stateId, key, trigger: waiter.trigger },
        causalDepth: depth,
        causalBudget,
        // Applied for whoever sent the waiting trigger (the history credits them), as if it had not waited.
        ...(waiter.trigger.actor ? { actor: waiter.trigger.actor } : followUpActor(cause)),
      },
    };
  });
}

/** The change with `rows` in its outbox (and listed on its instance), and the instance no longer counted where it left. */
export function withReoffers(change: Change, left: CapacityEntry, rows: readonly TriggerOutboxRow[]): Change {
  const current = change.instance.capacityEntry;
  const { capacityEntry: _left, ...rest } = change.instance;
  const instance = current && (current.stateId !== left.stateId || current.key !== left.key) ? change.instance : rest;
  if (rows.length === 0) return { ...change, instance };
  return { ...change, instance: { ...instance, outbox: [...instance.outbox, ...rows.map((row) => row.id)] }, outbox: [...change.outbox, ...rows] };
}
