/** @module Outbound HTTP for invokeExternalService, on the Azure SDK's pipeline: the engine's `http` port. */
export { createOutboundClient, type OutboundClientOptions } from './outbound-client';
export { isAddressAllowed, isHostAllowed, isListedExactly, isLoopbackHost, isPublicAddress } from './allowed-hosts';
export { allowListPolicy, allowListPolicyName, allowListRefusal } from './allow-list-policy';
export { ADDRESS_REFUSED, guardedLookup, type ResolveAll } from './guarded-lookup';
export { lazyDefaultAzureCredential, managedIdentityPolicy, scopeOf } from './managed-identity';
export { DEFAULT_MAX_RESPONSE_BYTES, ResponseTooLargeError, responseSizePolicy, responseSizePolicyName } from './response-size-policy';
export { retryAfterInMs, retryAfterStrategy } from './retry-after-strategy';
export { outboundRetryPolicy, type OutboundRetry, type OutboundRetryOptions } from './retry-policy';
export { stepRetryPolicy, stepRetryPolicyName } from './step-retry-policy';
export { TokenBucket, type TokenRate } from './token-bucket';
export { RateLimiter, type RateLimiterClock, type RateLimiterOptions, type Reservation } from './rate-limiter';
export { rateLimitPolicy, rateLimitPolicyName, type RateLimitedRequest } from './rate-limit-policy';
export { ExternalServiceTimeoutError, timeoutPolicy, timeoutPolicyName } from './timeout-policy';
export { isTransientStatus, transientFailureStrategy } from './transient-failure-strategy';
export {
  ExternalServiceError,
  OutboundRefusedError,
  RetryLaterError,
  type StepRetry,
  refusingExternalServiceClient,
  type ExternalRequest,
  type ExternalResponse,
  type ExternalServiceClient,
} from '../engine/steps';
export { callMeterPolicy, type OutboundCallMeter } from './call-meter-policy';
