/** @module The ports the runtime stores and leases through (implemented in src/storage, src/leasing and src/testing). Code outside src/engine imports this folder, not its files. */
export * from './lease-duration';
export * from './paging';
export * from './ports';
export * from './flow-store';
