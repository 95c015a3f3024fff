/**
 * @module Bounded retry of transient failures only: network errors, 5xx and 429. Anything else (4xx,
 * timeouts, refusals by the allow-list, an aborted call) is returned or thrown at once. Backoff is
 * exponential with full jitter.
 */
import type { ExternalPolicy } from './types';
import { ExternalServiceError } from './types';
import { ExternalServiceTimeoutError } from './timeout-policy';

export interface RetryPolicyOptions {
  /** Retries after the first attempt. @default 2 */
  maxRetries?: number;
  /** Base delay; attempt n waits up to base * 2^n. @default 200 */
  retryDelayInMs?: number;
  /** Injected for tests. @default a setTimeout-based sleep */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** @default Math.random */
  random?: () => number;
}

export function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function isTransientStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

function isNetworkError(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return false;
  if (error instanceof ExternalServiceTimeoutError) return false;
  // fetch reports network failures as TypeError ("fetch failed"); our own refusals are ExternalServiceError.
  return !(error instanceof ExternalServiceError) && error instanceof Error && error.name !== 'AbortError';
}

export function retryPolicy(options: RetryPolicyOptions = {}): ExternalPolicy {
  const maxRetries = options.maxRetries ?? 2;
  const base = options.retryDelayInMs ?? 200;
  const sleep = options.sleep ?? sleepFor;
  const random = options.random ?? Math.random;
  return {
    name: 'retry',
    async sendRequest(request, next) {
      for (let attempt = 0; ; attempt++) {
        const last = attempt >= maxRetries;
        try {
          const response = await next(request);
          if (last || !isTransientStatus(response.status)) return response;
        } catch (error) {
          if (last || !isNetworkError(error, request.abortSignal)) throw error;
        }
        await sleep(Math.round(random() * base * 2 ** attempt), request.abortSignal);
      }
    },
  };
}
