/**
 * @module The contract of lifecycle event delivery on Azure: the orchestration's and activity's names,
 * the activity's input and output (the engine's one attempt), and the timer arithmetic, kept free of
 * I/O so the orchestrator may import it (test/functions/determinism.test.ts).
 */
import type { AttemptResult, EventDeliveryTarget } from '../../engine/runtime/event-delivery';
import type { TenantScoped } from './tenant-scope';

export const EVENT_DELIVERY_ORCHESTRATOR = 'eventDeliveryOrchestrator';
export const ATTEMPT_EVENT_DELIVERY = 'attemptEventDelivery';

/** Rounds (attempts and waits) per execution; then continue-as-new keeps the history short. */
export const MAX_ROUNDS_PER_EXECUTION = 50;

export type { AttemptResult, EventDeliveryTarget };

/** A delivery's orchestration input: the target, and its tenant (tenant-scope.ts). */
export type EventDeliveryInput = EventDeliveryTarget & TenantScoped;

/** When a wait of `delayInMs` from the orchestration's replay-safe `now` ends. */
export function dueAfter(now: Date, delayInMs: number): Date {
  return new Date(now.getTime() + delayInMs);
}
