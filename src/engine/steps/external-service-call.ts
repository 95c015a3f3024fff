/** @module Builds the documented request of an external-service step and sends it through `effects.http`. */
import type { JsonObject } from '../model/json';
import type { StepContext } from './step-types';
import { ExternalServiceError, type OutboundRateLimit, type StepRetry } from './outbound-port';
import { evaluateFlowKey } from '../definition/flow-policies';
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

/** The host of a URL as rate limits name it (lower case), or undefined for one that does not parse. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The workflow's rate limits that apply to a call to `url` (definition/flow-policies.ts): those of its
 * host and those without a host, each in the bucket of its key's value (over the instance and trigger),
 * else of the host. A limit whose key yields nothing does not apply.
 */
export async function rateLimitsOf(url: string, context: StepContext): Promise<OutboundRateLimit[]> {
  const declared = context.definition.flow?.rateLimits ?? [];
  if (declared.length === 0) return [];
  const host = hostOf(url);
  const limits: OutboundRateLimit[] = [];
  for (const rule of declared) {
    if (rule.host !== undefined && rule.host.toLowerCase() !== host) continue;
    const keyValue = rule.key === undefined ? undefined : await evaluateFlowKey(rule.key, context.scope, { now: context.effects.now });
    if (rule.key !== undefined && keyValue === undefined) continue;
    const bucket = keyValue !== undefined ? `key:${keyValue}` : `host:${host ?? ''}`;
    limits.push({ bucket, limit: rule.limit, periodInMs: rule.periodMs, burst: rule.burst ?? rule.limit });
  }
  return limits;
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
  const rateLimits = await rateLimitsOf(config.url, context);
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
    ...(rateLimits.length > 0 ? { rateLimits, ...(context.step?.onThrottled ? { onThrottled: context.step.onThrottled } : {}) } : {}),
  });
  if (response.status < 200 || response.status > 299) {
    throw new ExternalServiceError(`the external service ${redactSecrets(config.url)} answered HTTP ${response.status}`, response.status);
  }
  return response.body;
}
