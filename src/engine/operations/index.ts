/** @module Operations: the record of a trigger, migration or bulk action, and the one fan-out step every host drives. Code outside src/engine imports this folder, not its files. */
export * from './fan-out';
export * from './operation';
export * from './operation-cost';
export * from './operation-priority';
export * from './operation-selection';
