/** @module Conditions and actions: the step types, their registry and the effects through which they call out. Code outside src/engine imports this folder, not its files. */
export * from './effects';
export * from './external-service-call';
export * from './outbound-port';
export * from './registry';
export * from './step-errors';
export * from './step-types';
export * from './actions';
export * from './conditions';
export { derivedChildId } from './actions/start-instance';
