/** @module Aborts an attempt that takes longer than its timeout (per attempt, so retries get a fresh one). */
import type { ExternalPolicy } from './types';
import { ExternalServiceError } from './types';

/** Thrown when an attempt timed out; not retried (a slow service rarely gets faster under load). */
export class ExternalServiceTimeoutError extends ExternalServiceError {}

export function timeoutPolicy(defaultTimeoutInMs: number): ExternalPolicy {
  return {
    name: 'timeout',
    async sendRequest(request, next) {
      const timeoutInMs = request.timeoutInMs ?? defaultTimeoutInMs;
      const controller = new AbortController();
      const outer = request.abortSignal;
      const onOuterAbort = () => controller.abort(outer?.reason);
      if (outer?.aborted) controller.abort(outer.reason);
      else outer?.addEventListener('abort', onOuterAbort, { once: true });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error('timeout'));
      }, timeoutInMs);
      try {
        return await next({ ...request, abortSignal: controller.signal });
      } catch (error) {
        if (timedOut) throw new ExternalServiceTimeoutError(`${request.method} ${request.url} timed out after ${timeoutInMs} ms`, undefined, { cause: error });
        throw error;
      } finally {
        clearTimeout(timer);
        outer?.removeEventListener('abort', onOuterAbort);
      }
    },
  };
}
