/**
 * @module The contract between the durable timer orchestration (functions/timer-orchestrator.ts) and its
 * one activity: pure names and shapes, so the orchestrator imports nothing impure.
 */
import type { DueTimer } from '../engine/timers';

/** The activity that fires a due timer: submits its trigger as an operation, like any trigger. */
export const FIRE_TIMER_ACTIVITY = 'fireTimer';

export type FireTimerInput = DueTimer;

export interface FireTimerOutput {
  /** The timer's operation (its id is the timer's trigger id). */
  readonly operationId: string;
}

/**
 * The durable instance id of a timer's orchestration: derived from the timer id, so arming the same timer
 * twice finds the orchestration that exists; prefixed, because the timer's operation (a trigger
 * orchestration) already uses the timer id itself.
 */
export function timerOrchestrationId(timerId: string): string {
  return `wake:${timerId}`;
}
