/**
 * @module Admission: flow control between the lease and the decision (docs/architecture.md). Concurrency
 * slots and their queue, state capacity, rate limits, debounce, and unique-key claims, over the flow store
 * and the search index's claims. The run loop (runtime/) asks it before and after deciding; a decision never
 * imports it. Code outside src/engine imports this folder, not its files.
 */
export * from './concurrency-slots';
export * from './state-capacity';
export * from './flow-keys';
export * from './flow-rows';
export * from './waiting-line';
export { MAX_CAPACITY_WAITS_PER_INSTANCE } from './capacity-waits';
export { PENDING_CLAIM_GRACE_IN_MS } from './key-claims';
export { AdmissionProtocol, MAX_ADMISSION_ATTEMPTS } from './admission-protocol';
export { CapacityGate } from './capacity-admission';
