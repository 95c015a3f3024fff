/** @module Workflow instances, their faults and their history; what an instance waits on (timers, debounces, capacity) is instance-waits.ts. */
import type { Actor } from './actor';
import type { ArmedTimer, CapacityEntry, CapacityWait, PendingDebounce, SelfCausedChanges } from './instance-waits';
import type { OperationCost } from './cost';
import type { InstanceStatus, TriggerOutcome } from './enums';
import type { JsonObject } from './json';
import type { Trigger } from './trigger';
import type { HistoryRecord } from './history-record';
import type { StepError, StepErrorType } from './step-error';
import type { OpenTask, TaskHistoryRecord } from './task';

/** Maximum number of recently applied triggers an instance remembers (with what each did) for idempotency. */
export const APPLIED_TRIGGER_MEMORY = 128;

export interface InstanceFault {
  readonly message: string;
  /** null when the fault happened during creation or recovery. */
  readonly triggerId: string | null;
  readonly at: string;
}

/**
 * What a retry of a fault re-applies (decide/decide-fault-retry.ts): the trigger whose application faulted
 * the instance, as it was delivered (id, name, subjects, parameters, actor), and the instance as it was
 * before that application began, so the retry applies the trigger to what the trigger first met. Recorded
 * with the fault in the same save and cleared with it; internal (the API says `fault.retryable`).
 */
export interface FaultedTrigger {
  readonly trigger: Trigger;
  /** The version the instance was on: a migration since makes the record meaningless (the retry is refused). */
  readonly workflowVersion: number;
  readonly stateId: string;
  readonly status: InstanceStatus;
  /** The context before the trigger; absent when it is the context the fault kept (nothing changed it). */
  readonly context?: JsonObject;
  readonly stateEntry?: number;
  readonly timers?: readonly ArmedTimer[];
}

/** What an applied trigger did, remembered so that a repeated delivery answers from the record. */
export interface AppliedTrigger {
  readonly triggerId: string;
  /**
   * `noTransition`, `exitBlocked` and `entryBlocked` are remembered only for a retried fault's trigger that
   * then moved nothing (decide-fault-retry.ts): it was applied, so a late repeat of it is a `duplicate`.
   */
  readonly outcome:
    | typeof TriggerOutcome.transitioned
    | typeof TriggerOutcome.faulted
    | typeof TriggerOutcome.errorHandled
    | typeof TriggerOutcome.debounced
    | typeof TriggerOutcome.noTransition
    | typeof TriggerOutcome.exitBlocked
    | typeof TriggerOutcome.entryBlocked;
  readonly transitionId?: string;
  readonly fromStateId?: string;
  readonly toStateId?: string;
  /** Only for `faulted`; shortened to MAX_APPLIED_ERROR_LENGTH characters. */
  readonly error?: string;
}

export const MAX_APPLIED_ERROR_LENGTH = 500;

export type { ArmedTimer, CapacityEntry, CapacityWait, PendingDebounce, SelfCausedChanges } from './instance-waits';

/**
 * A trigger whose application failed on a step with a retry policy, waiting for its next attempt: a
 * durable timer re-applies it at `nextAttemptAt` (README, "Errors that are handled"). At most one per
 * instance. The trigger itself is not recorded as applied until that attempt decides.
 */
export interface PendingRetry {
  readonly triggerId: string;
  readonly triggerName: string;
  /** The attempt the re-application makes (2 after the first failed attempt, ...). */
  readonly attempt: number;
  /** ISO 8601, UTC. */
  readonly nextAttemptAt: string;
  /** The failing step's JSON path in the definition. */
  readonly stepPath: string;
  readonly lastError: { readonly type: StepErrorType; readonly message: string; readonly status?: number };
}

export interface Instance {
  readonly id: string;
  /**
   * Which instance of this id it is: set at creation (a random 12-character tag), kept for life, and part
   * of every id derived from the instance (timers, raised triggers, children, events), so an id used again
   * after a deletion is a new instance that nothing of the old one can reach. Absent on instances created
   * before incarnations existed: their derived ids stay as they were.
   */
  readonly incarnation?: string;
  readonly workflowId: string;
  readonly workflowVersion: number;
  readonly stateId: string;
  readonly status: InstanceStatus;
  readonly context: JsonObject;
  /** Subjects the instance is offered triggers for; always includes its own id. */
  readonly interests: readonly string[];
  readonly fault?: InstanceFault;
  /** With a fault a trigger's application caused: what a retry re-applies (absent: the fault cannot be retried). Internal. */
  readonly faultedTrigger?: FaultedTrigger;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The last triggers that changed this instance and what each did, oldest first (bounded by APPLIED_TRIGGER_MEMORY). */
  readonly appliedTriggers: readonly AppliedTrigger[];
  /**
   * When the instance last let an older record fall out of `appliedTriggers` (set by the runtime's save).
   * A record it lets go of is kept as a row beside the instance for its whole life, written by the save that
   * lets it go (InstanceStore.getApplied):
   * a trigger that could have been applied before this time and is not in `appliedTriggers` is looked
   * up there, so a trigger applies at most once however many others came in between.
   */
  readonly appliedForgottenAt?: string;
  /**
   * Ids of outbox rows (outbox.ts) written by this instance's saves and not known to be delivered: when
   * a load finds any, the rows still present are handed to the relay again.
   */
  readonly outbox: readonly string[];
  /** Number of history entries written so far; the next entry gets this sequence number. */
  readonly historyLength: number;
  /**
   * Set by the first step of a deletion (delete-instance.ts): the instance is gone for every reader
   * (the API, triggers, lists), and running the deletion again finishes removing its rows.
   */
  readonly deleting?: { readonly at: string };
  /**
   * Which entry into the current state this is: the sequence number of the history entry that entered it
   * (creation, transition, self-transition, recovery). A timer armed for another entry is stale.
   * Absent on instances saved before timers existed (they have no timers).
   */
  readonly stateEntry?: number;
  /** Timers armed for this entry and not yet fired or spent (absent: none). Leaving the state disarms them. */
  readonly timers?: readonly ArmedTimer[];
  /** Set on a child instance (the `startInstance` action): its parent hears when it ends. */
  readonly parent?: InstanceParent;
  /** Self-caused changes in the current window (causal-budget.ts); absent after outside input. Internal. */
  readonly selfCausedChanges?: SelfCausedChanges;
  /** Set once the instance has started a child: cancelling or deleting it then cascades to its children. */
  readonly startedChildren?: true;
  /**
   * Notifications addressed to this instance (a child's `ChildCompleted`, ...) that arrived while it could
   * not take them (suspended, faulted), oldest first (at most MAX_HELD_TRIGGERS): applied one by one, in
   * order, once it is resumed or recovered (held-triggers.ts).
   */
  readonly heldTriggers?: readonly Trigger[];
  /** The trigger waiting for another attempt (undefined when none). */
  readonly pendingRetry?: PendingRetry;
  /** The trigger `pendingRetry` re-applies, as it was delivered (id, subjects, parameters, causal depth). Internal. */
  readonly retryTrigger?: Trigger;
  /** Bursts of triggers held back by `flow.debounce`, one per trigger name (absent: none). */
  readonly debounces?: readonly PendingDebounce[];
  /** A key from the business (an invoice number), set at creation: the built-in search field `businessKey`. */
  readonly businessKey?: string;
  /**
   * Running totals of what its applications cost (decision 0021), carried in its own saves: each adds
   * what the application sent up to it and the save itself. Absent until a metered host saved it.
   */
  readonly cost?: OperationCost;
  /** Its workflow's `flow.unique` key, claimed at creation: no other non-final instance of the workflow has it. */
  readonly uniqueKey?: string;
  /**
   * The state with `capacity` it was counted in and the key it was counted under (a key may read the
   * trigger, or a context that changes later): leaving the state is counted against the same key.
   */
  readonly capacityEntry?: CapacityEntry;
  /**
   * Triggers of this instance waiting for room in a full state, each with the deadline its timer ends the
   * wait at (`capacityTimeout`): removed when the trigger is admitted or its wait ends.
   */
  readonly capacityWaits?: readonly CapacityWait[];
  /** The instance's rows in the search index (search/search-index.ts); absent: the instance is not indexed. */
  readonly search?: InstanceSearchState;
  /**
   * The migration operation that last moved the instance to another version, and what it did (decide-migrate.ts):
   * when that operation, resumed after a crash, offers it the instance again, it reports it migrated, as
   * it was, not `skipped`. Absent when a migration outside an operation moved it last. Internal.
   */
  readonly migratedBy?: MigratedBy;
  /** The open human task of the state it is in (model/task.ts, src/engine/tasks); absent: none. */
  readonly task?: OpenTask;
}

/** What a migration operation did to an instance (Instance.migratedBy). */
export interface MigratedBy {
  readonly operationId: string;
  readonly fromVersion: number;
  readonly fromStateId: string;
  /** Where the migration left it (past the automatic transitions it took). */
  readonly toStateId: string;
}

/** What the search index holds of an instance, kept on it like its interests, so a save knows what to add and remove. */
export interface InstanceSearchState {
  /** Entry keys (`field!value`) of the rows written for the instance as it is. */
  readonly entries: readonly string[];
  /** Entry keys of rows earlier saves wrote that no longer hold: removed with the next save's rows (one request). */
  readonly stale?: readonly string[];
  /** Fields left without a value, and why (an expression failed or yielded the wrong type). */
  readonly problems?: Readonly<Record<string, string>>;
}

export interface InstanceParent {
  readonly instanceId: string;
  /** The parent's incarnation (absent for a parent created before incarnations): its children are its own. */
  readonly incarnation?: string;
  /** Context keys of the child sent to the parent with `ChildCompleted`/`ChildFaulted`/`ChildCancelled`. */
  readonly returnContextItems?: readonly string[];
}

/** An instance as read from a store, with the ETag its next save must match. */
export interface StoredInstance extends Instance {
  readonly etag: string;
}

export const HistoryEvent = {
  created: 'created',
  transitioned: 'transitioned',
  faulted: 'faulted',
  recovered: 'recovered',
  cancelled: 'cancelled',
  migrated: 'migrated',
  suspended: 'suspended',
  resumed: 'resumed',
  /** Written by the first step of a deletion; removed with the rest of the history. */
  deleted: 'deleted',
  /** A step failed and an `onError` took the instance to its target state instead of faulting it. */
  errorHandled: 'errorHandled',
  /** A retry of a fault re-applied its trigger, which then moved nothing: the instance is back where the trigger found it. */
  retried: 'retried',
  /** A human task was claimed, released, delegated, decided or escalated (the `task` field says which). */
  task: 'task',
} as const;
export type HistoryEvent = (typeof HistoryEvent)[keyof typeof HistoryEvent];

export interface HistoryEntry {
  /** 0, 1, 2, ... per instance; orders the history. */
  readonly sequence: number;
  readonly at: string;
  readonly event: HistoryEvent;
  readonly triggerId: string | null;
  readonly transitionId: string | null;
  readonly fromStateId: string | null;
  readonly toStateId: string;
  /** The instance's status after this entry. */
  readonly status: InstanceStatus;
  /** Only for `migrated`: the versions it moved between. */
  readonly fromVersion?: number;
  readonly toVersion?: number;
  /**
   * The operation that made this change, when it was not a trigger's (whose operation id is its
   * `triggerId`): a migration or a bulk action.
   */
  readonly operationId?: string;
  /** Only for a recovery that repaired the context: the JSON Merge Patch applied before the state was entered. */
  readonly contextPatch?: JsonObject;
  /** Who asked for the change, where the host knows (a recovery: `api-key`, `anonymous`, ...). */
  readonly by?: string;
  /** Only for `errorHandled`: what failed. */
  readonly error?: StepError;
  /** Who made the change (actor.ts): the caller, or `system` with the causing actor for follow-up work. */
  readonly actor?: Actor;
  /** Only for a change a retry of a fault made: who asked for the retry (`actor` stays the trigger's sender). */
  readonly retriedBy?: Actor;
  /**
   * What came in and what changed (history-record.ts): on the last entry of each change (the entries of
   * its automatic transitions before it share it). Absent on entries written before records were kept.
   */
  readonly record?: HistoryRecord;
  /** Only for `task` entries: what happened to the task (a decision: who, when, outcome, comment). */
  readonly task?: TaskHistoryRecord;
}
