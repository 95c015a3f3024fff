/**
 * @module Retries what is likely to pass on a second try, with exponential backoff and jitter (the Azure
 * SDK's `calculateRetryDelay`): 408, 429, 5xx except 501 and 505, and connection failures. Anything else
 * is left to the retry policy, which returns the response or throws the error as it is.
 */
import type { RetryStrategy } from '@azure/core-rest-pipeline';
import { calculateRetryDelay } from '@azure/core-util';

/** Connection failures worth another attempt (the SDK's list, plus a temporary DNS failure and the like). */
export const TRANSIENT_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

export function transientFailureStrategy(backoff: { retryDelayInMs: number; maxRetryDelayInMs: number }): RetryStrategy {
  return {
    name: 'signalboxTransientFailure',
    retry({ retryCount, response, responseError }) {
      const transient = response ? isTransientStatus(response.status) : TRANSIENT_ERROR_CODES.has(responseError?.code ?? '');
      return transient ? calculateRetryDelay(retryCount, backoff) : { skipStrategy: true };
    },
  };
}
