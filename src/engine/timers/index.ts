/** @module Timer definitions and business calendars: when a timer is due, computed from its definition. Code outside src/engine imports this folder, not its files. */
export * from './business-calendar';
export * from './timer-definition';
