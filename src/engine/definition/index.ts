/** @module The workflow definition format: schemas, subscriptions and their validation as data. Code outside src/engine imports this folder, not its files. */
export * from './definition';
export * from './error-handling';
export * from './lifecycle-event-type';
export * from './step-schemas';
export * from './subscriptions';
export * from './actors-rule';
export * from './flow-policies';
export * from './flow-concurrency';
export * from './state-capacity';
export * from './history-policy';
export * from './human-task';
