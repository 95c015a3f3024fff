/** @module Closed vocabularies as `as const` objects plus unions; zod schemas are built from the same values. */
import { z } from 'zod';

export const InstanceStatus = {
  initializing: 'initializing',
  waiting: 'waiting',
  /** Paused by a client (from `waiting`): takes no triggers, its timers do not fire; `resume` makes it `waiting` again. */
  suspended: 'suspended',
  faulted: 'faulted',
  complete: 'complete',
  cancelled: 'cancelled',
} as const;
export type InstanceStatus = (typeof InstanceStatus)[keyof typeof InstanceStatus];
export const instanceStatusSchema = z.enum(Object.values(InstanceStatus) as [InstanceStatus, ...InstanceStatus[]]);

export const TriggerOutcome = {
  transitioned: 'transitioned',
  noTransition: 'noTransition',
  exitBlocked: 'exitBlocked',
  entryBlocked: 'entryBlocked',
  faulted: 'faulted',
  notActive: 'notActive',
  notInterested: 'notInterested',
  duplicate: 'duplicate',
  notFound: 'notFound',
  /** A step failed and the instance's `onError` took it to another state (error-handling.ts). */
  errorHandled: 'errorHandled',
  /** A step failed and its retry policy waits longer than it may in place: the instance holds a pending retry. */
  retryScheduled: 'retryScheduled',
  /** Held back by the workflow's `flow.debounce`: applied with the rest of its burst when it goes quiet (debounce.ts). */
  debounced: 'debounced',
  /** Its transition's target state is full for its key (`capacity`): it waits in that state's queue and is applied when room frees. */
  capacityQueued: 'capacityQueued',
  /** It waited for room in a full state longer than the state's `capacity.timeout`: it left the queue unapplied. */
  capacityTimeout: 'capacityTimeout',
} as const;
export type TriggerOutcome = (typeof TriggerOutcome)[keyof typeof TriggerOutcome];

/**
 * Per-instance outcomes of operations that are not triggers (migrations and bulk actions): each kind's
 * `summary` counts its own (operation-work.ts lists which).
 */
export const ActionOutcome = {
  migrated: 'migrated',
  cancelled: 'cancelled',
  recovered: 'recovered',
  suspended: 'suspended',
  resumed: 'resumed',
  deleted: 'deleted',
  /** Its search rows written (a `reindex` bulk action). */
  reindexed: 'reindexed',
  /** Nothing to do: already on the target version, or no longer matching the filter when its turn came. */
  skipped: 'skipped',
  /** A migration that cannot move it: its status or its state (the reason is in `error`). */
  notMigratable: 'notMigratable',
  /** Its status does not allow the action (the reason is in `error`). */
  conflict: 'conflict',
  /** An error that retrying cannot fix (the message is in `error`). */
  failed: 'failed',
} as const;
export type ActionOutcome = (typeof ActionOutcome)[keyof typeof ActionOutcome];

/** Every per-instance outcome an operation may report. */
export type OperationOutcome = TriggerOutcome | ActionOutcome;
export const operationOutcomeValues = [...new Set<OperationOutcome>([...Object.values(TriggerOutcome), ...Object.values(ActionOutcome)])] as [OperationOutcome, ...OperationOutcome[]];

export const OperationStatus = {
  notStarted: 'notStarted',
  running: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
} as const;
export type OperationStatus = (typeof OperationStatus)[keyof typeof OperationStatus];

/** Statuses that take no triggers (step 2 of processing). */
export const inactiveStatuses: ReadonlySet<InstanceStatus> = new Set([InstanceStatus.complete, InstanceStatus.suspended, InstanceStatus.faulted, InstanceStatus.cancelled]);
