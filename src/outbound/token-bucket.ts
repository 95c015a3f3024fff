/**
 * @module The token bucket of every rate in the process: the outbound rate limits (`flow.rateLimits`,
 * rate-limiter.ts) and the tenants' trigger quota (src/host/tenant-quotas.ts). Refilled continuously at
 * `limit` per `periodInMs`, holding at most `burst`; it starts full. The rate is passed with each call,
 * since the outbound limits carry theirs with every call.
 */

/** `limit` tokens per `periodInMs`, at most `burst` kept. */
export interface TokenRate {
  readonly limit: number;
  readonly periodInMs: number;
  readonly burst: number;
}

export class TokenBucket {
  /** Negative when reservations wait for tokens not yet refilled. */
  private tokens: number;
  private refilledAt: number;

  constructor(rate: TokenRate, nowInMs: number) {
    this.tokens = rate.burst;
    this.refilledAt = nowInMs;
  }

  /** Takes a token when there is one; else says how long until there is (nothing taken). */
  take(rate: TokenRate, nowInMs: number): { readonly taken: true } | { readonly taken: false; readonly waitInMs: number } {
    const waitInMs = this.waitInMs(rate, nowInMs);
    if (waitInMs > 0) return { taken: false, waitInMs };
    this.tokens -= 1;
    return { taken: true };
  }

  /** Takes a token now, going into debt when there is none: answers how long the caller waits for it. */
  reserve(rate: TokenRate, nowInMs: number): number {
    const waitInMs = this.waitInMs(rate, nowInMs);
    this.tokens -= 1;
    return waitInMs;
  }

  /** Gives a reserved token back (a call that never went). */
  giveBack(rate: TokenRate): void {
    this.tokens = Math.min(rate.burst, this.tokens + 1);
  }

  /** Refills up to `nowInMs`, then the wait until a whole token is there (0: one is). */
  waitInMs(rate: TokenRate, nowInMs: number): number {
    // A clock that went back refills nothing (and never takes tokens away).
    this.tokens = Math.min(rate.burst, this.tokens + (Math.max(0, nowInMs - this.refilledAt) * rate.limit) / rate.periodInMs);
    this.refilledAt = Math.max(this.refilledAt, nowInMs);
    if (this.tokens >= 1) return 0;
    // Rounding noise of the refill (0.998 tokens leaving 1.0000000000000009 ms) is not a millisecond more to wait.
    return Math.ceil(((1 - this.tokens) * rate.periodInMs) / rate.limit - 1e-9);
  }
}
