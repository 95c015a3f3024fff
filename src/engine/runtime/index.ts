/** @module The run loop: one lease, one read, a decision, one conditional save, relay after the lease; and what drives it. Code outside src/engine imports this folder, not its files. */
export * from './action-call-journal';
export * from './engine-options';
export * from './event-delivery';
export * from './event-dispatcher';
export * from './in-process-timers';
export * from './instance-runtime';
export * from './outbox-relay';
export * from './tracing';
export * from './workflow-service';
export * from './workflow-version-cache';
export * from './waiting-service';
export * from '../admission/state-capacity';
export { runLoopSteps, type RunLoopSteps } from './run-loop-steps';
export { ChangeFollowUp } from './change-follow-up';
export { IndexRows } from './index-rows';
export { guarded, historyOf, withAppliedRows, withLeftovers, withOperationId, withRequestActor } from './change-decoration';
export type { CapacityLeaving } from './change-under-lease';
export type { CapacityPlaces } from './change-types';
