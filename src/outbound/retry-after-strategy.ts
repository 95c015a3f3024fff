/**
 * @module Honours the wait a throttled service asks for: on 429 and 503, `retry-after-ms` /
 * `x-ms-retry-after-ms` (milliseconds) or `Retry-After` (seconds or an HTTP date), read as the Azure
 * SDK's throttling strategy reads them. Bounded: a service that asks for more than `maxRetryAfterInMs`
 * gets no retry, and the call fails at once saying so, instead of holding the instance's lease that long.
 */
import type { PipelineResponse, RetryStrategy } from '@azure/core-rest-pipeline';
import { ExternalServiceError } from '../engine/steps';
import { redactSecrets } from '../engine/model';

const THROTTLED = new Set([429, 503]);

/** The wait asked for, in ms; undefined when the response asks for none (or cannot be read). */
export function retryAfterInMs(response: PipelineResponse | undefined, now: () => number = Date.now): number | undefined {
  if (!response || !THROTTLED.has(response.status)) return undefined;
  for (const header of ['retry-after-ms', 'x-ms-retry-after-ms']) {
    const value = response.headers.get(header)?.trim();
    if (value && /^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value));
  }
  const retryAfter = response.headers.get('retry-after')?.trim();
  if (!retryAfter) return undefined;
  if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
  const date = Date.parse(retryAfter);
  return Number.isFinite(date) ? Math.max(0, date - now()) : undefined;
}

export function retryAfterStrategy(maxRetryAfterInMs: number): RetryStrategy {
  return {
    name: 'signalboxRetryAfter',
    retry({ response }) {
      const wait = retryAfterInMs(response);
      if (wait === undefined) return { skipStrategy: true };
      if (wait <= maxRetryAfterInMs) return { retryAfterInMs: wait };
      return {
        errorToThrow: new ExternalServiceError(
          `the external service ${redactSecrets(response!.request.url)} answered HTTP ${response!.status} and asked to retry after ${wait} ms, longer than the ${maxRetryAfterInMs} ms Signalbox waits`,
          response!.status,
        ),
      };
    },
  };
}
