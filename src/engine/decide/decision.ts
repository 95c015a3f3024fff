/**
 * @module The one result of every decision (apply a trigger or a timer, create, recover, cancel, fault,
 * migrate, suspend, resume, delete). A decision writes nothing: it says what the instance's result is and,
 * when something changes, the change to save atomically (the next instance, its history entry, its outbox
 * rows). It may call out through `effects` (effects.ts), so it is not pure; log lines are collected here
 * and emitted by the runtime once the change is saved, so a decision re-made after a 412 logs once
 * (docs/architecture.md, "What deciding guarantees").
 */
import type { HistoryEntry, Instance } from '../model/instance';
import type { AdmissionRequest } from './admission-request';
import type { InstanceResult } from './instance-result';
import type { LifecycleEventRecord } from './lifecycle-events';
import type { OutboxRow } from '../model/outbox';
import type { Trigger } from '../model/trigger';
import { systemActor, type Actor } from '../model/actor';

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly properties: Readonly<Record<string, unknown>>;
}

/** What one save writes, in one table transaction. */
export interface Change {
  /** The instance to save (conditional on the ETag it was decided from). */
  readonly instance: Instance;
  /** Absent only for a change that is no step of the instance's life (a timer spent without a transition). */
  readonly historyEntry?: HistoryEntry;
  /**
   * Entries the same save writes before `historyEntry`, oldest first: a change that took automatic
   * transitions (enter-state.ts) records its own entry, then each step; `historyEntry` is the last.
   */
  readonly precedingEntries?: readonly HistoryEntry[];
  /** Rows for the relay, written in the instance's partition with the save. */
  readonly outbox: readonly OutboxRow[];
  /** Lifecycle event records, added by the runtime from the change (events/lifecycle-events.ts). */
  readonly events?: readonly LifecycleEventRecord[];
}

export interface Decision {
  readonly result: InstanceResult;
  /** Present exactly when something must be saved. */
  readonly change?: Change;
  /** Emitted after the change is saved (or at once when there is none). */
  readonly logs: readonly LogLine[];
  /** Places in states with `capacity` the decision counts on, as planned: reserved by the run loop before the save (admission-request.ts). */
  readonly admissions?: readonly AdmissionRequest[];
}

/**
 * What caused a decision: it keys raised-trigger ids (trigger-ids.ts), causal depths (causal-budget.ts) and the journal of
 * external action responses (one delivery = one cause applied to one instance).
 */
export type Cause = (
  | { readonly kind: 'trigger'; readonly trigger: Trigger }
  /**
   * `causalDepth`, `causalBudget`: a child's creation is follow-up work of its parent's change (absent:
   * 0 and the whole budget, a client's request).
   */
  | { readonly kind: 'create'; readonly causalDepth?: number; readonly causalBudget?: number }
  | { readonly kind: 'recover'; readonly sequence: number }
  | { readonly kind: 'cancel'; readonly sequence: number }
  | { readonly kind: 'migrate'; readonly sequence: number }
  | { readonly kind: 'suspend'; readonly sequence: number }
  | { readonly kind: 'resume'; readonly sequence: number }
  | { readonly kind: 'delete'; readonly sequence: number }
  /** A human task's command (claim, release, delegate, complete) or escalation step (src/engine/tasks). */
  | { readonly kind: 'task'; readonly sequence: number }
) & {
  /** Who asked for a change that is not a trigger's (a trigger carries its own: `trigger.actor`). Not part of causeKey. */
  readonly actor?: Actor;
};

/** The actor of the change `cause` stands for, when one is known (absent for library callers that name none). */
export function actorOfCause(cause: Cause): Actor | undefined {
  return cause.kind === 'trigger' ? cause.trigger.actor : cause.actor;
}

/**
 * The decision with every history entry of its change naming `actor` where none names one yet: a chain of
 * automatic transitions is one change, so each of its entries is the same actor's.
 */
export function withEntryActor(decision: Decision, actor: Actor | undefined): Decision {
  const change = decision.change;
  if (!actor || !change?.historyEntry) return decision;
  const named = <T extends { readonly actor?: Actor }>(entry: T): T => (entry.actor ? entry : { ...entry, actor });
  return { ...decision, change: { ...change, historyEntry: named(change.historyEntry), ...(change.precedingEntries ? { precedingEntries: change.precedingEntries.map(named) } : {}) } };
}

/** `actor` of follow-up work (raised triggers, children, notifications): `system`, caused by the change's actor; nothing when that is unknown. */
export function followUpActor(cause: Cause): { actor?: Actor } {
  const actor = actorOfCause(cause);
  return actor ? { actor: systemActor(actor) } : {};
}

/**
 * A short, unambiguous tag of the cause: `t.<trigger id>`, `c`, `r<sequence>`, `x<sequence>`, and
 * `m`, `s`, `u`, `d` + sequence for migrate, suspend, resume (unsuspend), delete.
 */
export function causeKey(cause: Cause): string {
  switch (cause.kind) {
    case 'trigger':
      return `t.${cause.trigger.id}`;
    case 'create':
      return 'c';
    case 'recover':
      return `r${cause.sequence}`;
    case 'cancel':
      return `x${cause.sequence}`;
    case 'migrate':
      return `m${cause.sequence}`;
    case 'suspend':
      return `s${cause.sequence}`;
    case 'resume':
      return `u${cause.sequence}`;
    case 'delete':
      return `d${cause.sequence}`;
    case 'task':
      return `ht${cause.sequence}`;
  }
}

/** How deep in a chain of follow-up work a trigger is (0: a client's); rows written before causal depths said `hops`. */
export function triggerDepth(trigger: Pick<Trigger, 'causalDepth' | 'hops'>): number {
  return trigger.causalDepth ?? trigger.hops ?? 0;
}

/** The causal depth of a change made for `cause` (causal-budget.ts): 0 for a client's trigger or request. */
export function causalDepthOf(cause: Cause): number {
  if (cause.kind === 'trigger') return triggerDepth(cause.trigger);
  if (cause.kind === 'create') return cause.causalDepth ?? 0;
  return 0;
}

/** The causal depth of the follow-up work a change made for `cause` produces: one deeper than the change. */
export function followUpDepth(cause: Cause): number {
  return causalDepthOf(cause) + 1;
}

export function unchanged(result: InstanceResult, logs: readonly LogLine[] = []): Decision {
  return { result, logs };
}
