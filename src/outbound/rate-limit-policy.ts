/**
 * @module Policy: each attempt of a call under `flow.rateLimits` waits for a slot in every bucket that
 * applies (rate-limiter.ts), within the attempt's time limit, before anything is sent; the wait is
 * reported (the decision trace lists it) and counts against that time limit. A slot further away than
 * the time limit ends the attempt at once as a timeout (ExternalServiceTimeoutError), taking no slot.
 */
import type { PipelinePolicy, PipelineRequest } from '@azure/core-rest-pipeline';
import { ExternalServiceTimeoutError, type OutboundRateLimit, type Throttle } from '../engine/steps';
import { redactSecrets } from '../engine/model';
import type { RateLimiter } from './rate-limiter';

export const rateLimitPolicyName = 'signalboxRateLimit';

/** What a request carries to this policy. */
export interface RateLimitedRequest {
  readonly rateLimits: readonly OutboundRateLimit[];
  readonly onThrottled?: (throttle: Throttle) => void;
  /** The attempt's time limit (the step's `timeoutMs`, else the client's default). */
  readonly timeLimitInMs: number;
}

function describe(rateLimit: OutboundRateLimit): string {
  return `rate limit ${rateLimit.bucket} (${rateLimit.limit} per ${rateLimit.periodInMs} ms, burst ${rateLimit.burst})`;
}

/** `limitsOf(request)`: its limits, or undefined for a call without any; `spent(request, ms)` tells the timeout policy how long the attempt waited. */
export function rateLimitPolicy(
  limiter: RateLimiter,
  limitsOf: (request: PipelineRequest) => RateLimitedRequest | undefined,
  spent: (request: PipelineRequest, waitedInMs: number) => void,
): PipelinePolicy {
  return {
    name: rateLimitPolicyName,
    async sendRequest(request, next) {
      const limited = limitsOf(request);
      if (!limited || limited.rateLimits.length === 0) return next(request);
      // The attempt needs some of its time limit left once it has waited.
      const reservation = limiter.reserve(limited.rateLimits, limited.timeLimitInMs - 1);
      if ('refusedBy' in reservation) {
        throw new ExternalServiceTimeoutError(
          `${request.method} ${redactSecrets(request.url)} was not sent: ${describe(reservation.refusedBy)} has its next slot in ${reservation.waitInMs} ms, past the time limit of ${limited.timeLimitInMs} ms`,
        );
      }
      if (reservation.waitInMs > 0) {
        for (const wait of reservation.waits) if (wait.waitInMs > 0) limited.onThrottled?.({ bucket: wait.rateLimit.bucket, waitInMs: wait.waitInMs, rateLimit: wait.rateLimit });
        try {
          await limiter.clock.sleep(reservation.waitInMs, request.abortSignal as AbortSignal | undefined);
        } catch (error) {
          limiter.release(limited.rateLimits);
          throw error;
        }
      }
      spent(request, reservation.waitInMs);
      try {
        return await next(request);
      } finally {
        spent(request, 0);
      }
    },
  };
}
