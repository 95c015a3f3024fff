/** Backoff for busy leases: full jitter under a doubling, capped ceiling; waits that can be aborted. */
import { backoffDelayInMs, delay } from '../../src/leasing/backoff';

describe('backoffDelayInMs', () => {
  it('doubles the ceiling from milliseconds up to the cap', () => {
    const ceilings = [0, 1, 2, 3, 4, 5, 10, 60].map((attempt) => backoffDelayInMs(attempt, { random: () => 1 }));
    expect(ceilings).toEqual([5, 10, 20, 40, 80, 100, 100, 100]);
    expect(backoffDelayInMs(3, { random: () => 1, initialBackoffInMs: 1, maxBackoffInMs: 1000 })).toBe(8);
  });

  it('draws uniformly below the ceiling (full jitter)', () => {
    expect(backoffDelayInMs(2, { random: () => 0 })).toBe(0);
    expect(backoffDelayInMs(2, { random: () => 0.5 })).toBe(10);
  });
});

describe('delay', () => {
  it('rejects with the abort reason, at once when already aborted', async () => {
    const controller = new AbortController();
    const waiting = delay(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await expect(delay(60_000, controller.signal)).rejects.toThrow('stop');
  });

  it('resolves after the wait', async () => {
    await expect(delay(1)).resolves.toBeUndefined();
  });
});
