/**
 * @module The local runner's retry of one activity call: again after retryable failures (lease busy or lost,
 * transient storage faults), at the durable host's intervals (ActivityRetryPolicy), until the policy's
 * attempts run out or the runner stops. A trigger handed back to wait for a concurrency slot is not retried
 * here: the runner parks it (slot-parking.ts) instead of holding its slot.
 */
import { isRetryable } from '../../engine/model';
import { delay } from '../../leasing/backoff';
import { retryIntervalInMs, type ActivityRetryPolicy } from '../contracts/operation-activities';
import { parkingQueueOf } from './slot-parking';

/** Runs `step`, again after each retryable failure, as the durable host would; throws 'shutting down' once `signal` aborts. */
export async function withActivityRetry<T>(step: () => Promise<T>, policy: ActivityRetryPolicy, signal: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    if (signal.aborted) throw new Error('shutting down');
    try {
      return await step();
    } catch (error) {
      if (!isRetryable(error) || parkingQueueOf(error) || attempt >= policy.maxAttempts) throw error;
      await delay(retryIntervalInMs(policy, attempt), signal);
    }
  }
}
