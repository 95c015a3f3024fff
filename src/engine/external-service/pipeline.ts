/** @module Composes the outbound policies into the client the processor uses as `effects.http`. */
import { allowListPolicy } from './allow-list-policy';
import { fetchTransport, type FetchLike } from './fetch-transport';
import { defaultAzureTokenProvider, managedIdentityPolicy, type TokenProvider } from './managed-identity-policy';
import { retryPolicy, type RetryPolicyOptions } from './retry-policy';
import { timeoutPolicy } from './timeout-policy';
import type { ExternalPolicy, ExternalRequest, ExternalResponse, ExternalServiceClient } from './types';

export interface ExternalServiceClientOptions extends RetryPolicyOptions {
  /** Hosts calls may reach (exact, or `*.suffix`); loopback only when listed exactly. @default [] (none) */
  allowedHosts?: readonly string[];
  /** Per attempt, unless the step sets `timeoutMs`. @default 10000 */
  defaultTimeoutInMs?: number;
  /** @default globalThis.fetch */
  fetch?: FetchLike;
  /** @default DefaultAzureCredential from @azure/identity (imported on first use) */
  tokenProvider?: TokenProvider;
}

export function composePolicies(policies: readonly ExternalPolicy[], transport: (request: ExternalRequest) => Promise<ExternalResponse>) {
  return policies.reduceRight<(request: ExternalRequest) => Promise<ExternalResponse>>((next, policy) => (request) => policy.sendRequest(request, next), transport);
}

export function createExternalServiceClient(options: ExternalServiceClientOptions = {}): ExternalServiceClient {
  const send = composePolicies(
    [
      allowListPolicy(options.allowedHosts ?? []),
      retryPolicy(options),
      managedIdentityPolicy(options.tokenProvider ?? defaultAzureTokenProvider()),
      timeoutPolicy(options.defaultTimeoutInMs ?? 10_000),
    ],
    fetchTransport(options.fetch ?? (globalThis.fetch as unknown as FetchLike)),
  );
  return { send };
}
