/** @module Lifecycle events as CloudEvents and their delivery policy. Code outside src/engine imports this folder, not its files. */
export * from './cloud-event';
export * from './delivery-policy';
