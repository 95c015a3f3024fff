/**
 * @module What the run loop adds to a decision before it is saved, the same for every kind of change: its
 * lifecycle events, who made it and under which operation, the leftover outbox rows it still lists, the
 * applied-trigger records it lets go of, and its history entries. Pure: no I/O.
 */
import type { WorkflowDefinition } from '../definition/definition';
import { actorOfCause, withEntryActor, type Cause, type Change, type Decision } from '../decide/decision';
import { withLifecycleEvents } from '../decide/lifecycle-events';
import { markParent } from '../decide/child-cascade';
import type { AppliedTrigger, HistoryEntry, Instance, StoredInstance } from '../model/instance';
import type { OutboxRow } from '../model/outbox';
import type { CapacityGate } from '../admission/capacity-admission';
import type { ChangeOptions, InstancePrecondition } from './change-types';

/** The decision with its change's lifecycle events (records and outbox rows), written with it. */
export function withEvents(definition: WorkflowDefinition, before: Instance | undefined, cause: Cause, decision: Decision): Decision {
  return decision.change ? { ...decision, change: withLifecycleEvents(definition, before, markParent(decision.change), cause) } : decision;
}

/** The decision with its instance counted where a change from outside was admitted into a state with `capacity`. */
export function withCapacityCounted(gate: CapacityGate, decision: Decision): Decision {
  if (gate.places().length === 0 || !decision.change) return decision;
  return { ...decision, change: { ...decision.change, instance: gate.counted(decision.change.instance) } };
}

/** The cause with the requesting actor, for changes that are not a trigger's (a trigger carries its own). */
export function withRequestActor(cause: Cause, options: ChangeOptions): Cause {
  return options.actor && cause.kind !== 'trigger' && !cause.actor ? { ...cause, actor: options.actor } : cause;
}

/** The decision, its history entries naming who made the change (when known). */
export function withActor(decision: Decision, cause: Cause): Decision {
  return withEntryActor(decision, actorOfCause(cause));
}

/** The decision, its history entry naming the operation when one makes it (a trigger's entry names it as `triggerId`). */
export function withOperationId(decision: Decision, options: ChangeOptions): Decision {
  const entry = decision.change?.historyEntry;
  if (!options.operationId || !entry || entry.triggerId !== null) return decision;
  const preceding = decision.change!.precedingEntries?.map((earlier) => ({ ...earlier, operationId: options.operationId! }));
  return { ...decision, change: { ...decision.change!, historyEntry: { ...entry, operationId: options.operationId }, ...(preceding ? { precedingEntries: preceding } : {}) } };
}

export function guarded(stored: StoredInstance, guard: InstancePrecondition | undefined): Decision | undefined {
  const result = guard?.(stored);
  return result ? { result, logs: [] } : undefined;
}

/** The change, its instance still listing the leftover rows it will relay (so a second crash forgets none). */
export function withLeftovers(change: Change, leftovers: readonly OutboxRow[]): Change {
  if (leftovers.length === 0) return change;
  const ids = [...new Set([...leftovers.map((row) => row.id), ...change.instance.outbox])];
  return { ...change, instance: { ...change.instance, outbox: ids } };
}

/**
 * The records this save's instance lets go of (its bounded `appliedTriggers` is full), each to be kept as a
 * row beside it for its whole life, and the instance stamped `appliedForgottenAt` when it let one go. A
 * record still in the list needs no row: the list is saved in the same entity, so every applied trigger is
 * in the list or in a row, never neither (the row is written in the same transaction that drops it from
 * the list). An instance with fewer than APPLIED_TRIGGER_MEMORY triggers in its life writes no rows at all.
 */
export function withAppliedRows(before: Instance, next: Instance, now: Date): { instance: Instance; applied: AppliedTrigger[] } {
  const previous = before.appliedTriggers ?? [];
  const current = next.appliedTriggers ?? [];
  if (previous === current) return { instance: next, applied: [] };
  const kept = new Set(current.map((record) => record.triggerId));
  const letGo = previous.filter((record) => !kept.has(record.triggerId));
  return { instance: letGo.length ? { ...next, appliedForgottenAt: now.toISOString() } : next, applied: letGo };
}

/** The history entries a change appends, in order: those its automatic transitions made first, then its own. */
export function historyOf(change: Change): HistoryEntry[] {
  return change.historyEntry ? [...(change.precedingEntries ?? []), change.historyEntry] : [];
}
