/**
 * @module How lifecycle events are retried: exponential backoff with jitter for a bounded number of
 * attempts, then dead-lettering. One policy for both hosts: the local dispatcher sleeps the delays it
 * returns, the Azure delivery orchestration waits them on durable timers.
 */

export interface EventDeliveryPolicy {
  /** Attempts before a retryable failure dead-letters the event. @default 12 */
  readonly maxAttempts: number;
  /** The delay before the second attempt (before jitter). @default 60000 (1 minute) */
  readonly firstRetryDelayInMs: number;
  /** The cap of one delay (before jitter). @default 1800000 (30 minutes) */
  readonly maxRetryDelayInMs: number;
  /** Per attempt. @default 10000 */
  readonly timeoutInMs: number;
}

/**
 * The production default: 12 attempts, delays doubling from 1 minute up to 30 minutes, each between half
 * and all of its nominal value, so the 11 waits add up to between 1.75 and 3.5 hours.
 */
export const defaultEventDeliveryPolicy: EventDeliveryPolicy = {
  maxAttempts: 12,
  firstRetryDelayInMs: 60_000,
  maxRetryDelayInMs: 30 * 60_000,
  timeoutInMs: 10_000,
};

export function resolveEventDeliveryPolicy(overrides: Partial<EventDeliveryPolicy> = {}): EventDeliveryPolicy {
  const policy = { ...defaultEventDeliveryPolicy, ...overrides };
  if (!(policy.maxAttempts >= 1) || !(policy.firstRetryDelayInMs >= 0) || !(policy.maxRetryDelayInMs >= policy.firstRetryDelayInMs) || !(policy.timeoutInMs > 0)) {
    throw new RangeError(`Invalid event delivery policy ${JSON.stringify(policy)}`);
  }
  return policy;
}

/**
 * The wait after the `attempts`-th failed attempt: nominal `first * 2^(attempts-1)` capped at the maximum,
 * then "equal jitter" (half fixed, half random), so subscribers recovering together are not hit together
 * while the total wait keeps its lower bound. `random` is in [0, 1).
 */
export function retryDelayInMs(policy: EventDeliveryPolicy, attempts: number, random: number = Math.random()): number {
  const nominal = Math.min(policy.maxRetryDelayInMs, policy.firstRetryDelayInMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(nominal / 2 + (nominal / 2) * random);
}

/** Network errors (no status), 5xx and 429 are worth retrying; any other status is final. */
export function isRetryableDeliveryFailure(status: number | undefined): boolean {
  return status === undefined || status === 429 || status >= 500;
}
