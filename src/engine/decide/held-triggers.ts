/**
 * @module Held triggers: a system trigger addressed to one instance (`Trigger.recipient`: a child's
 * `ChildCompleted`, `ChildFaulted`, `ChildCancelled`) is never lost while that instance cannot take it.
 * - For another incarnation of the id (the parent was deleted and created again): `notInterested`.
 * - Suspended or faulted: it is kept on the instance (`heldTriggers`, oldest first, at most
 *   MAX_HELD_TRIGGERS; one save, no history entry) and answered `notActive`.
 * - Resumed or recovered (`releaseRows`, in those decisions): the oldest held trigger is raised again as a
 *   copy marked `recipient.releases`, through the normal path (an operation on the hosts). Applying that
 *   copy applies the held trigger itself (its own id, so it is recorded, and a late repeat of it is a
 *   `duplicate`), removes it from the list and releases the next one: one at a time, so they apply in the
 *   order they arrived, whatever the host's concurrency. A notification arriving while some are still held
 *   queues behind them. A release that finds the instance suspended or faulted again leaves the trigger
 *   held (the next resume or recovery releases it again); one that finds it applied already is `notInterested`.
 * - Complete or cancelled: nothing more is applied, and what was held is dropped.
 */
import type { Decision } from './decision';
import { unchanged } from './decision';
import { InstanceStatus, TriggerOutcome } from '../model/enums';
import type { Instance } from '../model/instance';
import { OutboxKind, type TriggerOutboxRow } from '../model/outbox';
import type { Trigger } from '../model/trigger';
import { raisedTriggerId } from '../model/trigger-ids';

/** At most this many triggers are held for one instance; past it, one more is answered `notActive` and not kept. */
export const MAX_HELD_TRIGGERS = 100;

/** Statuses in which a trigger for the instance is held, not applied. */
const holdingStatuses: ReadonlySet<InstanceStatus> = new Set([InstanceStatus.suspended, InstanceStatus.faulted]);
/** Statuses in which a held trigger is applied. */
const takingStatuses: ReadonlySet<InstanceStatus> = new Set([InstanceStatus.waiting, InstanceStatus.initializing]);

/** The instance with `heldTriggers` set to `held` (the key left out when there are none). */
export function withHeld(instance: Instance, held: readonly Trigger[]): Instance {
  const { heldTriggers: _held, ...rest } = instance;
  return held.length > 0 ? { ...rest, heldTriggers: held } : rest;
}

/**
 * The row releasing the oldest held trigger of `next` (the instance as a change will save it), when it
 * can take it now: none otherwise. Its id is derived from the held trigger and the instance's history
 * length, so a release made again after a 412 is the same row, and a later release of the same trigger
 * (after a second suspension) a new one.
 */
export function releaseRows(next: Instance): TriggerOutboxRow[] {
  const head = next.heldTriggers?.[0];
  if (!head || !takingStatuses.has(next.status)) return [];
  const id = raisedTriggerId(next.id, `h${next.historyLength}.${head.id}`, 0, next.incarnation);
  const recipient = { instanceId: next.id, ...(next.incarnation !== undefined ? { incarnation: next.incarnation } : {}), releases: head.id };
  return [{ id, kind: OutboxKind.trigger, payload: { ...head, id, recipient } }];
}

/** `decision` with the release of `next`'s oldest held trigger added to its change (when there is one to release). */
export function withRelease(decision: Decision): Decision {
  const change = decision.change;
  if (!change) return decision;
  const rows = releaseRows(change.instance);
  if (rows.length === 0) return decision;
  return { ...decision, change: { ...change, instance: { ...change.instance, outbox: [...change.instance.outbox, ...rows.map((row) => row.id)] }, outbox: [...change.outbox, ...rows] } };
}

/**
 * What a trigger with a `recipient` does before the ordinary steps: undefined when it is to be decided as
 * usual. `decide` decides a held trigger for the instance (given without its held list).
 */
export async function decideAddressed(instance: Instance, trigger: Trigger, now: Date, decide: (instance: Instance, held: Trigger) => Promise<Decision>): Promise<Decision | undefined> {
  const recipient = trigger.recipient;
  if (!recipient) return undefined;
  const id = instance.id;
  if (recipient.instanceId !== id || recipient.incarnation !== instance.incarnation) return unchanged({ instanceId: id, outcome: TriggerOutcome.notInterested });
  const held = instance.heldTriggers ?? [];
  if (recipient.releases !== undefined) return release(instance, recipient.releases, now, decide);
  if (!holdingStatuses.has(instance.status) && !(takingStatuses.has(instance.status) && held.length > 0)) return undefined;
  // Held already (a repeated delivery), or no room left: nothing more to keep.
  if (held.some((kept) => kept.id === trigger.id)) return unchanged({ instanceId: id, outcome: TriggerOutcome.notActive });
  if (held.length >= MAX_HELD_TRIGGERS) {
    return unchanged({ instanceId: id, outcome: TriggerOutcome.notActive, error: `${MAX_HELD_TRIGGERS} triggers are held for the instance already; this one is not kept` });
  }
  return { result: { instanceId: id, outcome: TriggerOutcome.notActive }, change: { instance: withHeld(instance, [...held, trigger]), outbox: [] }, logs: [] };
}

async function release(instance: Instance, releases: string, now: Date, decide: (instance: Instance, held: Trigger) => Promise<Decision>): Promise<Decision> {
  const [head, ...rest] = instance.heldTriggers ?? [];
  if (!head || head.id !== releases) return unchanged({ instanceId: instance.id, outcome: TriggerOutcome.notInterested });
  if (!takingStatuses.has(instance.status)) return unchanged({ instanceId: instance.id, outcome: TriggerOutcome.notActive });
  const decision = await decide(withHeld(instance, []), head);
  const base = decision.change?.instance ?? { ...withHeld(instance, []), updatedAt: now.toISOString() };
  // A complete or cancelled instance takes nothing more: what was held goes.
  const next = withHeld(base, base.status === InstanceStatus.complete || base.status === InstanceStatus.cancelled ? [] : rest);
  return withRelease({ ...decision, change: decision.change ? { ...decision.change, instance: next } : { instance: next, outbox: [] } });
}
