/**
 * @module Bounded retries on the Azure SDK's retry policy (its loop, its abortable waits). The strategies,
 * in order: `Retry-After` on 429/503 (bounded), then backoff for transient statuses and connection
 * failures. Anything else (other 4xx, timeouts, a body over the limit, refusals of the allow-list or of
 * an address, an aborted call) is returned or thrown at once.
 */
import { retryPolicy, type PipelinePolicy, type RetryStrategy } from '@azure/core-rest-pipeline';
import { retryAfterStrategy } from './retry-after-strategy';
import { transientFailureStrategy } from './transient-failure-strategy';
import { redactSecrets } from '../engine/model';

/** One wait before another attempt, for logs and tests. */
export interface OutboundRetry {
  /** Redacted (userinfo, query values, fragment: `redactSecrets`), as everything outside this layer sees it. */
  readonly url: string;
  /** The attempt that failed, from 0. */
  readonly attempt: number;
  readonly delayInMs: number;
  readonly strategy: string;
  readonly status?: number;
  readonly error?: string;
}

export interface OutboundRetryOptions {
  /** Retries after the first attempt. @default 2 */
  maxRetries?: number;
  /** Base of the exponential backoff (doubling, with jitter). @default 200 */
  retryDelayInMs?: number;
  /** @default 5000 */
  maxRetryDelayInMs?: number;
  /** The longest `Retry-After` honoured; a longer one fails the call. @default 30000 */
  maxRetryAfterInMs?: number;
  /** Told of every wait before a retry. */
  onRetry?: (retry: OutboundRetry) => void;
}

function observed(strategy: RetryStrategy, onRetry: ((retry: OutboundRetry) => void) | undefined): RetryStrategy {
  if (!onRetry) return strategy;
  return {
    name: strategy.name,
    retry(information) {
      const modifiers = strategy.retry(information);
      if (modifiers.retryAfterInMs !== undefined) {
        const { response, responseError, retryCount } = information;
        onRetry({
          url: redactSecrets(response?.request.url ?? responseError?.request?.url ?? ''),
          attempt: retryCount,
          delayInMs: modifiers.retryAfterInMs,
          strategy: strategy.name,
          ...(response ? { status: response.status } : {}),
          ...(responseError ? { error: redactSecrets(responseError.message) } : {}),
        });
      }
      return modifiers;
    },
  };
}

export function outboundRetryPolicy(options: OutboundRetryOptions = {}): PipelinePolicy {
  const backoff = { retryDelayInMs: options.retryDelayInMs ?? 200, maxRetryDelayInMs: options.maxRetryDelayInMs ?? 5000 };
  const strategies = [retryAfterStrategy(options.maxRetryAfterInMs ?? 30_000), transientFailureStrategy(backoff)];
  return retryPolicy(
    strategies.map((strategy) => observed(strategy, options.onRetry)),
    { maxRetries: options.maxRetries ?? 2 },
  );
}
