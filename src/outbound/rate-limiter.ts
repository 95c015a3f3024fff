/**
 * @module The slots of outbound rate limits (`flow.rateLimits`), kept in process: one token bucket per
 * bucket name, refilled at `limit / periodInMs` and holding at most `burst`. A call reserves its slot at
 * once, going into debt when the bucket is empty, so waiting calls are served in the order they asked
 * and each knows its wait; a wait longer than the caller can afford reserves nothing.
 *
 * In process, per worker: the state is a Map, not a storage row, so a deployment of N workers lets up to
 * N times the limit through (the README's "Flow control" says so). A storage-backed bucket would cost a
 * conditional write per call, more than most calls it guards.
 */
import { BoundedMap, delay } from '../engine/model';
import type { OutboundRateLimit } from '../engine/steps';
import { TokenBucket, type TokenRate } from './token-bucket';

/** Where the limiter reads the time and waits (a manual clock in tests). */
export interface RateLimiterClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface RateLimiterOptions {
  /** @default the wall clock and setTimeout */
  clock?: RateLimiterClock;
  /** Buckets kept; past it the least recently used is forgotten (it starts full again). @default 10000 */
  maxBuckets?: number;
}

/** A reservation: how long to wait for each limit's slot (the longest is the wait), or the limit that has no slot soon enough. */
export type Reservation =
  | { readonly waitInMs: number; readonly waits: ReadonlyArray<{ readonly rateLimit: OutboundRateLimit; readonly waitInMs: number }> }
  | { readonly refusedBy: OutboundRateLimit; readonly waitInMs: number };

const wallClock: RateLimiterClock = { now: () => Date.now(), sleep: (ms, signal) => delay(ms, signal) };

export class RateLimiter {
  readonly clock: RateLimiterClock;
  private readonly buckets: BoundedMap<string, TokenBucket>;

  constructor(options: RateLimiterOptions = {}) {
    this.clock = options.clock ?? wallClock;
    this.buckets = new BoundedMap(options.maxBuckets ?? 10_000);
  }

  /**
   * Reserves one slot in every limit, or none when one of them has no slot within `maxWaitInMs`: the
   * wait is the longest of the limits' waits.
   */
  reserve(limits: readonly OutboundRateLimit[], maxWaitInMs: number): Reservation {
    const now = this.clock.now();
    const waits: Array<{ rateLimit: OutboundRateLimit; waitInMs: number }> = [];
    for (const rateLimit of limits) {
      const waitInMs = this.bucketOf(rateLimit, now).waitInMs(rateLimit, now);
      if (waitInMs > maxWaitInMs) return { refusedBy: rateLimit, waitInMs };
      waits.push({ rateLimit, waitInMs });
    }
    for (const { rateLimit } of waits) this.buckets.get(rateLimit.bucket)!.reserve(rateLimit, now);
    return { waitInMs: Math.max(0, ...waits.map((wait) => wait.waitInMs)), waits };
  }

  /** Gives reserved slots back (a call that never went: aborted while it waited). */
  release(limits: readonly OutboundRateLimit[]): void {
    for (const rateLimit of limits) this.buckets.get(rateLimit.bucket)?.giveBack(rateLimit);
  }

  /** The bucket of the limit's name, the most recently used from now on (a new one starts full). */
  private bucketOf(rateLimit: TokenRate & Pick<OutboundRateLimit, 'bucket'>, now: number): TokenBucket {
    const bucket = this.buckets.use(rateLimit.bucket) ?? new TokenBucket(rateLimit, now);
    this.buckets.set(rateLimit.bucket, bucket);
    return bucket;
  }
}
