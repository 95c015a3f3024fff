/**
 * @module The contract between the durable timer orchestration (functions/timer-orchestrator.ts) and its
 * one activity: pure names and shapes, so the orchestrator imports nothing impure.
 */
import type { DueTimer } from '../../engine/decide/timers';
import type { TenantScoped } from './tenant-scope';

/** The activity that fires a due timer: submits its trigger as an operation, like any trigger. */
export const FIRE_TIMER_ACTIVITY = 'fireTimer';

/** The due timer, and its tenant (tenant-scope.ts). */
export type FireTimerInput = DueTimer & TenantScoped;

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

/** The longest single durable timer a timer orchestration creates: well within the six-day limit of JavaScript apps. */
export const MAX_TIMER_INTERVAL_IN_MS = 3 * 24 * 3600_000;

/**
 * When the timer orchestration's next durable timer should fire, given the orchestration's current time
 * (`context.df.currentUtcDateTime`), or undefined when the timer is due. Pure, so the orchestrator stays
 * deterministic: the due time itself, or at most MAX_TIMER_INTERVAL_IN_MS ahead for a longer wait.
 */
export function nextTimerFireAt(current: Date, dueAt: string): Date | undefined {
  const dueMs = Date.parse(dueAt);
  const nowMs = current.getTime();
  if (nowMs >= dueMs) return undefined;
  return new Date(Math.min(dueMs, nowMs + MAX_TIMER_INTERVAL_IN_MS));
}
