/** @module JSONata evaluation and templates, bounded in time and memory (a worker pool isolates the expensive ones). Code outside src/engine imports this folder, not its files. */
export * from './expression-isolation';
export * from './expression-limits';
export * from './expression-worker-pool';
export * from './expressions';
export { SizedCache } from './expression-caches';
