/**
 * @module Waiting for a busy lease: exponential backoff with full jitter (AWS's "full jitter": a
 * uniformly random wait up to a ceiling that doubles each try), starting in milliseconds because a
 * trigger application takes milliseconds, and capped so a waiter notices a freed lease quickly.
 */

export interface BackoffOptions {
  /** Ceiling of the first wait. @default 8 */
  initialBackoffInMs?: number;
  /** Largest ceiling. @default 500 */
  maxBackoffInMs?: number;
  /** @default Math.random */
  random?: () => number;
}

/** The wait before retry number `attempt` (0-based). */
export function backoffDelayInMs(attempt: number, options: BackoffOptions = {}): number {
  const initial = options.initialBackoffInMs ?? 8;
  const max = options.maxBackoffInMs ?? 500;
  const ceiling = Math.min(max, initial * 2 ** Math.min(attempt, 30));
  return (options.random ?? Math.random)() * ceiling;
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
