/** @module Human tasks (issue 39): opened and closed with the instance's state, their commands, quorum, escalation and the inbox index. Code outside src/engine imports this folder, not its files. */
export * from './open-task';
export * from './quorum';
export * from './task-commands';
export * from './task-escalation';
export * from './task-index';
export * from './task-principals';
