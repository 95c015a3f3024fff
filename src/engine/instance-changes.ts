/** @module Small pure helpers shared by processing, creation, recovery and cancellation. */
import { APPLIED_TRIGGER_MEMORY, type Instance, type RaisedTrigger, type StoredInstance } from './instance';
import type { TriggerToRaise } from './step-types';
import { toTriggerId } from './trigger-ids';

/** The instance without store metadata (the ETag is not part of what is saved). */
export function plainInstance(instance: Instance | StoredInstance): Instance {
  if (!('etag' in instance)) return instance;
  const { etag: _etag, ...rest } = instance;
  return rest;
}

/** The instance without its fault (leaving the key out rather than setting it to undefined). */
export function withoutFault(instance: Instance): Instance {
  if (!('fault' in instance)) return instance;
  const { fault: _fault, ...rest } = instance;
  return rest;
}

/** Appends a trigger id, keeping the newest APPLIED_TRIGGER_MEMORY. */
export function rememberTriggerId(ids: readonly string[], id: string): string[] {
  const next = [...ids, id];
  return next.length > APPLIED_TRIGGER_MEMORY ? next.slice(next.length - APPLIED_TRIGGER_MEMORY) : next;
}

/** Assigns deterministic ids `<base>.<n>` so a re-dispatched outbox is recognised as the same triggers. */
export function withTriggerIds(raised: readonly TriggerToRaise[], base: string): RaisedTrigger[] {
  return raised.map((trigger, index) => ({ ...trigger, subjects: [...trigger.subjects], id: toTriggerId(`${base}.${index}`) }));
}
