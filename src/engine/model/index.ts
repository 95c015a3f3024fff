/** @module The vocabulary every layer shares: instances, triggers, outbox rows, enums, errors, JSON, ids. Code outside src/engine imports this folder, not its files. */
export * from './enums';
export * from './errors';
export * from './instance';
export * from './instance-size';
export * from './json';
export * from './json-equal';
export * from './log-text';
export * from './merge-patch';
export * from './outbox';
export * from './redaction';
export * from './step-error';
export * from './trigger';
export * from './trigger-ids';
export * from './validation';
export * from './actor';
export * from './delay';
export * from './bounded-map';
export type { OperationCost, OutboundCounts, StorageRequestCounts, StorageRequestKind } from './cost';
