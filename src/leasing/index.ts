/** @module Leases: per-name mutual exclusion across workers (the engine's LeaseProvider port). */
export { BlobLeaseProvider, LEASE_CARRY_OVER_IN_MS, type BlobLeaseProviderOptions } from './blob-lease-provider';
export { backoffDelayInMs, type BackoffOptions } from './backoff';
export { leaseBlobName, MAX_BLOB_NAME_LENGTH } from './lease-name';
