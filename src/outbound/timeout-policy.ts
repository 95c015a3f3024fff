/**
 * @module A deadline per attempt, covering the response body too (the HTTP client's own `timeout` stops
 * at the headers, so a service that trickles its body would hold the instance's lease). A timed-out
 * attempt is not retried: a slow service rarely gets faster under load.
 */
import type { PipelinePolicy, PipelineRequest } from '@azure/core-rest-pipeline';
import { ExternalServiceTimeoutError } from '../engine/steps';
import { redactSecrets } from '../engine/model';

export const timeoutPolicyName = 'signalboxTimeout';

/** Defined beside the engine's port, so steps can tell a timeout (`onError.when: timeout`). */
export { ExternalServiceTimeoutError };

/** `timeoutInMsOf(request)` is the step's `timeoutMs`, or undefined for the default. */
export function timeoutPolicy(defaultTimeoutInMs: number, timeoutInMsOf: (request: PipelineRequest) => number | undefined): PipelinePolicy {
  return {
    name: timeoutPolicyName,
    async sendRequest(request, next) {
      const timeoutInMs = timeoutInMsOf(request) ?? defaultTimeoutInMs;
      const outer = request.abortSignal;
      const deadline = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        deadline.abort(new Error('timeout'));
      }, timeoutInMs);
      request.abortSignal = outer ? AbortSignal.any([outer as AbortSignal, deadline.signal]) : deadline.signal;
      try {
        return await next(request);
      } catch (error) {
        if (timedOut) throw new ExternalServiceTimeoutError(`${request.method} ${redactSecrets(request.url)} timed out after ${timeoutInMs} ms`, undefined, { cause: error });
        throw error;
      } finally {
        clearTimeout(timer);
        request.abortSignal = outer;
      }
    },
  };
}
