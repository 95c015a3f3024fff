/** @module Builds the documented request of an external-service step and sends it through `effects.http`. */
import type { JsonObject } from '../model/json';
import type { StepContext } from './step-types';
import { ExternalServiceError, type StepRetry } from './outbound-port';
import { MAX_IN_PLACE_RETRY_WAIT_IN_MS, retryPolicyOf, type RetryPolicyDefinition } from '../definition/error-handling';
import { redactSecrets } from '../model/redaction';

export interface ExternalServiceStepConfig {
  readonly id?: string;
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly contextItemsToInclude: readonly string[];
  readonly authentication?: { readonly managedIdentity: string };
  readonly timeoutMs?: number;
  /** The step's own retry policy; without one, the workflow's `retry`; without that, the client's defaults. */
  readonly retry?: RetryPolicyDefinition;
}

/** The service answered 2xx with something the step cannot use (error type `response`). */
export function answerError(message: string): ExternalServiceError {
  const error = new ExternalServiceError(message);
  error.answered = true;
  return error;
}

function stepRetry(config: ExternalServiceStepConfig, context: StepContext): StepRetry | undefined {
  const policy = config.retry ?? context.definition.retry;
  if (!policy) return undefined;
  return {
    policy: retryPolicyOf(policy),
    firstAttempt: context.step?.firstAttempt ?? 1,
    inPlaceBudgetInMs: MAX_IN_PLACE_RETRY_WAIT_IN_MS,
    ...(context.step?.onRetry ? { onRetry: context.step.onRetry } : {}),
  };
}

/** The request body (shared/design/workflow-model.md): the context holds only the listed keys. */
export function externalServiceRequestBody(config: ExternalServiceStepConfig, context: StepContext): JsonObject {
  const { scope } = context;
  const included: JsonObject = {};
  for (const key of config.contextItemsToInclude) {
    const value = scope.context[key];
    if (value !== undefined) included[key] = value;
  }
  return {
    workflowId: context.definition.id,
    workflowVersion: context.workflowVersion,
    instanceId: scope.instance.id,
    stateId: scope.instance.stateId,
    status: scope.instance.status,
    invokedById: config.id ?? null,
    trigger: scope.trigger ? (JSON.parse(JSON.stringify(scope.trigger)) as JsonObject) : null,
    context: included,
  };
}

/** Sends the request; returns the response body of a 2xx answer and throws ExternalServiceError otherwise. */
export async function callExternalService(config: ExternalServiceStepConfig, context: StepContext): Promise<unknown> {
  const method = config.method ?? 'POST';
  const response = await context.effects.http.send({
    url: config.url,
    method,
    headers: method === 'POST' ? { 'content-type': 'application/json', accept: 'application/json' } : { accept: 'application/json' },
    // GET carries no body; the service gets what it needs from the URL.
    body: method === 'POST' ? JSON.stringify(externalServiceRequestBody(config, context)) : undefined,
    timeoutInMs: config.timeoutMs,
    managedIdentityResource: config.authentication?.managedIdentity,
    abortSignal: context.effects.signal,
    retry: stepRetry(config, context),
  });
  if (response.status < 200 || response.status > 299) {
    throw new ExternalServiceError(`the external service ${redactSecrets(config.url)} answered HTTP ${response.status}`, response.status);
  }
  return response.body;
}
