/**
 * @module Waiting for a busy lease: exponential backoff with full jitter (AWS's "full jitter": a
 * uniformly random wait up to a ceiling that doubles each try), starting in milliseconds because a
 * trigger application takes milliseconds, and capped so a waiter notices a freed lease quickly.
 *
 * Why a 100 ms cap (measured in bench/storage.bench.ts): after a release, the next poll of k waiting
 * workers comes on average cap/2/k later, so a queue of n workers drains with about
 * cap/2 × (1 + 1/2 + ... + 1/n) of idle time; at 500 ms that tripled the time of 50 contended
 * applications across 5 workers, at 100 ms it is about 1.5×. A lower cap costs more polls: a waiting
 * worker polls about 20 times a second at 100 ms, against a limit of 500 requests/s per blob, and only
 * one waiter per worker process polls (the others queue locally in BlobLeaseProvider).
 */

export interface BackoffOptions {
  /** Ceiling of the first wait. @default 5 */
  initialBackoffInMs?: number;
  /** Largest ceiling. @default 100 */
  maxBackoffInMs?: number;
  /** @default Math.random */
  random?: () => number;
}

/** The wait before retry number `attempt` (0-based). */
export function backoffDelayInMs(attempt: number, options: BackoffOptions = {}): number {
  const initial = options.initialBackoffInMs ?? 5;
  const max = options.maxBackoffInMs ?? 100;
  const ceiling = Math.min(max, initial * 2 ** Math.min(attempt, 30));
  return (options.random ?? Math.random)() * ceiling;
}

// One abortable wait for the engine (flow-control slots) and the hosts: it lives with the engine's model.
export { delay } from '../engine/model';
