/** @module Outbound HTTP for invokeExternalService: a small policy pipeline. */
export { allowListPolicy, isHostAllowed, isLoopbackHost } from './allow-list-policy';
export { fetchTransport, type FetchLike } from './fetch-transport';
export { callExternalService, externalServiceRequestBody, type ExternalServiceStepConfig } from './invoke';
export { defaultAzureTokenProvider, managedIdentityPolicy, scopeOf, type TokenProvider } from './managed-identity-policy';
export { composePolicies, createExternalServiceClient, type ExternalServiceClientOptions } from './pipeline';
export { isTransientStatus, retryPolicy, sleepFor, type RetryPolicyOptions } from './retry-policy';
export { ExternalServiceTimeoutError, timeoutPolicy } from './timeout-policy';
export { ExternalServiceError, type ExternalPolicy, type ExternalRequest, type ExternalResponse, type ExternalServiceClient } from './types';
