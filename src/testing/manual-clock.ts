/** @module A clock for tests: it stands still until told to move (the engine's `clock` option takes it). */
import type { Clock } from '../engine/engine-options';

export class ManualClock implements Clock {
  private ms: number;

  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.ms = typeof start === 'string' ? Date.parse(start) : start.getTime();
  }

  now = (): Date => new Date(this.ms);

  /** Moves the clock forward by `ms` milliseconds. */
  advanceBy(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('advanceBy takes a non-negative number of milliseconds');
    this.ms += ms;
  }
}
