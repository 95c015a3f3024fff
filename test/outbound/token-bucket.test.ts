/**
 * The one token bucket behind the tenant trigger quota (src/host/tenant-quotas.ts) and the outbound rate
 * limits (src/outbound/rate-limiter.ts): refilled continuously at `limit` per `periodInMs` up to `burst`,
 * on a clock by hand.
 */
import { TokenBucket } from '../../src/outbound';

const rate = { limit: 2, periodInMs: 1000, burst: 3 };

describe('TokenBucket', () => {
  it('starts full, refills continuously up to the burst, and says how long until the next token', () => {
    const bucket = new TokenBucket(rate, 0);
    for (let taken = 0; taken < 3; taken += 1) expect(bucket.take(rate, 0)).toEqual({ taken: true });
    expect(bucket.take(rate, 0)).toEqual({ taken: false, waitInMs: 500 });
    expect(bucket.take(rate, 499)).toEqual({ taken: false, waitInMs: 1 });
    expect(bucket.take(rate, 500)).toEqual({ taken: true });
    // A long quiet spell refills up to the burst, no further.
    for (let taken = 0; taken < 3; taken += 1) expect(bucket.take(rate, 60_000).taken).toBe(true);
    expect(bucket.take(rate, 60_000).taken).toBe(false);
  });

  it('reserves into debt, so callers that wait are served in order, and gives a slot back', () => {
    const bucket = new TokenBucket(rate, 0);
    const waits = Array.from({ length: 5 }, () => bucket.reserve(rate, 0));
    expect(waits).toEqual([0, 0, 0, 500, 1000]);
    bucket.giveBack(rate);
    expect(bucket.reserve(rate, 0)).toBe(1000);
  });

  it('refills nothing while the clock goes back, and never takes tokens away', () => {
    const slow = { limit: 1, periodInMs: 10_000, burst: 1 };
    const bucket = new TokenBucket(slow, 10_000);
    expect(bucket.take(slow, 10_000).taken).toBe(true);
    expect(bucket.take(slow, 5_000)).toEqual({ taken: false, waitInMs: 10_000 });
    // Back at the time it was last refilled: the span the clock went back refills nothing twice.
    expect(bucket.take(slow, 12_500)).toEqual({ taken: false, waitInMs: 7_500 });
  });
});
