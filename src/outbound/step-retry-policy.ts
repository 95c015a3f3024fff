/**
 * @module A step's own retry policy (`retry` of an `invokeExternalService` step, or the workflow's
 * default), run by the Azure SDK's retry policy (its loop, its abortable waits) with one strategy built
 * from the step's policy. A request without one goes through the client's default retries unchanged.
 *
 * The strategy retries what the step's `retryOn` names: `timeout` (an attempt past its deadline), `network`
 * (connection failures), `http:5xx` and `http:429` (whose `Retry-After` is honoured, up to a day). The wait
 * is the policy's backoff with jitter, or the service's `Retry-After`. Waits happen in place while they fit
 * the step's in-place budget (all waits of the call together); the first that does not ends the call with
 * a RetryLaterError naming the next attempt and its wait, which the engine turns into a pending retry.
 */
import { RestError, retryPolicy, type PipelinePolicy, type PipelineRequest, type PipelineResponse, type RetryStrategy } from '@azure/core-rest-pipeline';
import { backoffDelayInMs, MAX_RETRY_DELAY_IN_MS, withJitter, type RetryableError } from '../engine/definition';
import { redactSecrets, StepErrorType, type StepError } from '../engine/model';
import { ExternalServiceTimeoutError, RetryLaterError, type StepRetry } from '../engine/steps';
import { retryAfterInMs } from './retry-after-strategy';
import { TRANSIENT_ERROR_CODES } from './transient-failure-strategy';

export const stepRetryPolicyName = 'signalboxStepRetry';

/** The RestError code a timed-out attempt travels under inside the SDK's loop (which retries RestErrors only). */
const TIMED_OUT = 'SIGNALBOX_ATTEMPT_TIMED_OUT';

/** What failed, as the step's `retryOn` names it, or undefined when it is not retryable at all. */
function retryableKind(response: PipelineResponse | undefined, error: RestError | undefined): RetryableError | undefined {
  if (error?.code === TIMED_OUT) return 'timeout';
  if (response) return response.status === 429 ? 'http:429' : response.status >= 500 ? 'http:5xx' : undefined;
  return TRANSIENT_ERROR_CODES.has(error?.code ?? '') ? 'network' : undefined;
}

function describeFailure(request: PipelineRequest, response: PipelineResponse | undefined, error: RestError | undefined): Omit<StepError, 'stepPath'> {
  if (error?.code === TIMED_OUT) return { type: StepErrorType.timeout, message: redactSecrets(error.message) };
  if (response) {
    const message = `the external service ${redactSecrets(request.url)} answered HTTP ${response.status}`;
    return { type: response.status >= 500 ? StepErrorType.http5xx : StepErrorType.http4xx, message, status: response.status };
  }
  return { type: StepErrorType.network, message: redactSecrets(`${request.method} ${request.url} failed: ${error?.message ?? 'no answer'}`) };
}

function stepStrategy(request: PipelineRequest, step: StepRetry, random: () => number): RetryStrategy {
  let waitedInMs = 0;
  return {
    name: stepRetryPolicyName,
    retry({ retryCount, response, responseError }) {
      const kind = retryableKind(response, responseError);
      if (kind === undefined || !step.policy.retryOn.includes(kind)) return { skipStrategy: true };
      const failedAttempt = step.firstAttempt + retryCount;
      const asked = retryAfterInMs(response);
      const delayInMs = asked !== undefined ? Math.min(asked, MAX_RETRY_DELAY_IN_MS) : withJitter(step.policy, backoffDelayInMs(step.policy, failedAttempt), random);
      const failure = describeFailure(request, response, responseError);
      if (waitedInMs + delayInMs > step.inPlaceBudgetInMs) return { errorToThrow: new RetryLaterError(failure, failedAttempt + 1, delayInMs) };
      waitedInMs += delayInMs;
      step.onRetry?.({ attempt: failedAttempt, delayInMs, error: failure });
      return { retryAfterInMs: delayInMs };
    },
  };
}

/**
 * Runs `stepRetryOf(request)`'s policy when the request has one, else `fallback` (the client's default
 * retries). Placed where the default retry policy would be: outside the token and the timeout.
 */
export function stepRetryPolicy(fallback: PipelinePolicy, stepRetryOf: (request: PipelineRequest) => StepRetry | undefined, random: () => number = Math.random): PipelinePolicy {
  return {
    name: stepRetryPolicyName,
    async sendRequest(request, next) {
      const step = stepRetryOf(request);
      if (!step) return fallback.sendRequest(request, next);
      const timeouts = new Map<RestError, ExternalServiceTimeoutError>();
      // The SDK's loop retries RestErrors only: a timeout goes through it as one, and comes out as itself.
      const attempt = async (sent: PipelineRequest) => {
        try {
          return await next(sent);
        } catch (error) {
          if (!(error instanceof ExternalServiceTimeoutError)) throw error;
          const wrapped = new RestError(error.message, { code: TIMED_OUT, request: sent });
          timeouts.set(wrapped, error);
          throw wrapped;
        }
      };
      const loop = retryPolicy([stepStrategy(request, step, random)], { maxRetries: Math.max(0, step.policy.attempts - step.firstAttempt) });
      try {
        return await loop.sendRequest(request, attempt);
      } catch (error) {
        throw (error instanceof RestError && timeouts.get(error)) || error;
      }
    },
  };
}
