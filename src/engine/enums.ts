/** @module Closed vocabularies as `as const` objects plus unions; zod schemas are built from the same values. */
import { z } from 'zod';

export const InstanceStatus = {
  initializing: 'initializing',
  waiting: 'waiting',
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
} as const;
export type TriggerOutcome = (typeof TriggerOutcome)[keyof typeof TriggerOutcome];
export const triggerOutcomeValues = Object.values(TriggerOutcome) as [TriggerOutcome, ...TriggerOutcome[]];

export const OperationStatus = {
  notStarted: 'notStarted',
  running: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
} as const;
export type OperationStatus = (typeof OperationStatus)[keyof typeof OperationStatus];

/** Statuses that take no triggers (step 2 of processing). */
export const inactiveStatuses: ReadonlySet<InstanceStatus> = new Set([
  InstanceStatus.complete,
  InstanceStatus.faulted,
  InstanceStatus.cancelled,
]);
