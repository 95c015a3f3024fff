/**
 * @module A test clock (the engine's `clock` option takes it): it stands still until told to move, and it
 * runs the engine's timers when it does, like Temporal's time-skipping test environment. A test of a
 * 48-hour escalation is `await clock.advanceBy(48 * 3600_000)`: every timer falling due on the way fires,
 * in due order, each applied completely (saved, relayed) before the next, at its own due time; timers
 * armed by those firings fire too if they fall due before the target.
 */
import type { Clock } from '../engine/runtime';

interface PendingTimer {
  readonly at: number;
  readonly order: number;
  readonly callback: () => Promise<void>;
}

export class ManualClock implements Clock {
  private ms: number;
  private pending: PendingTimer[] = [];
  private armed = 0;

  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.ms = typeof start === 'string' ? Date.parse(start) : start.getTime();
  }

  now = (): Date => new Date(this.ms);

  /** Called by the engine for each armed timer: `callback` runs when the clock reaches `at`. */
  setTimer(at: Date, callback: () => Promise<void>): void {
    this.pending.push({ at: at.getTime(), order: this.armed++, callback });
  }

  /** Timers armed and not yet run. */
  get pendingTimers(): number {
    return this.pending.length;
  }

  /**
   * Moves the clock forward by `ms` milliseconds, firing the timers due on the way (await it). Without
   * due timers the clock moves at once, before the returned promise settles.
   */
  advanceBy(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError('advanceBy takes a non-negative number of milliseconds');
    return this.advanceTo(new Date(this.ms + ms));
  }

  /** Moves the clock forward to `target` (never back), firing the timers due on the way. */
  async advanceTo(target: Date | string): Promise<void> {
    const targetMs = typeof target === 'string' ? Date.parse(target) : target.getTime();
    if (!(targetMs >= this.ms)) throw new RangeError('advanceTo moves the clock forward only');
    for (;;) {
      const next = this.nextDue(targetMs);
      if (!next) break;
      this.pending = this.pending.filter((timer) => timer !== next);
      this.ms = Math.max(this.ms, next.at);
      await next.callback();
    }
    this.ms = targetMs;
  }

  private nextDue(targetMs: number): PendingTimer | undefined {
    let next: PendingTimer | undefined;
    for (const timer of this.pending) {
      if (timer.at > targetMs) continue;
      if (!next || timer.at < next.at || (timer.at === next.at && timer.order < next.order)) next = timer;
    }
    return next;
  }
}
