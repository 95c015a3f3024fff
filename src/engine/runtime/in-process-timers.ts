/**
 * @module Timers for the engine hosted in-process without a host scheduler (the library, tests): the
 * `timer` outbox rows are held in memory and fired through the engine's own run loop. A timer already
 * due fires at once, inside the relay (after the arming change's lease is released). Later ones follow
 * the clock: a clock with `setTimer` (ManualClock) runs them when advanced, else a real timer does.
 * Nothing here survives the process: hosts that must keep timers across restarts bring a scheduler of
 * their own (the local server's storage-driven one, durable timers on Azure).
 */
import type { EngineLogger } from '../steps/effects';
import type { Clock } from './engine-options';
import type { DueTimer } from '../decide/timers';

/** setTimeout's longest delay (about 24.8 days); a longer wait is taken in several. */
const MAX_TIMEOUT_IN_MS = 2 ** 31 - 1;
const RETRY_DELAY_IN_MS = 1000;
const MAX_ATTEMPTS = 5;

export class InProcessTimers {
  constructor(
    private readonly clock: Clock,
    private readonly fire: (timer: DueTimer) => Promise<void>,
    private readonly logger: EngineLogger,
  ) {}

  /** Takes a timer from the relay: fires it now if due, else when the clock reaches its due time. */
  async arm(timer: DueTimer): Promise<void> {
    const dueMs = Date.parse(timer.dueAt);
    if (dueMs <= this.clock.now().getTime()) return this.fire(timer);
    if (this.clock.setTimer) this.clock.setTimer(new Date(dueMs), () => this.fire(timer));
    else this.wait(timer, dueMs, 1);
  }

  private wait(timer: DueTimer, dueMs: number, attempt: number): void {
    const delay = Math.min(Math.max(0, dueMs - this.clock.now().getTime()), MAX_TIMEOUT_IN_MS);
    // Unref'd: a pending timer does not keep a process alive (in-process timers end with the process anyway).
    setTimeout(() => {
      if (this.clock.now().getTime() < dueMs) return this.wait(timer, dueMs, attempt);
      this.fire(timer).catch((error: unknown) => {
        if (attempt >= MAX_ATTEMPTS) {
          this.logger.error('A timer could not be fired', { instanceId: timer.instanceId, timerId: timer.timerId, error: String(error) });
          return;
        }
        this.logger.warn('A timer could not be fired; trying again', { instanceId: timer.instanceId, timerId: timer.timerId, error: String(error) });
        this.wait(timer, this.clock.now().getTime() + RETRY_DELAY_IN_MS * attempt, attempt + 1);
      });
    }, delay).unref();
  }
}
