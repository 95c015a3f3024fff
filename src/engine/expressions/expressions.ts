/**
 * @module JSONata expressions and `{{...}}` templates, as the engine's modules import them: evaluation
 * (expression-evaluation.ts: compile, evaluate, the scope), templates (templates.ts: parse, render), and what
 * the caches hold (expression-caches.ts). `$now()` and `$millis()` read the engine's clock (expression-program.ts).
 */
export * from './expression-evaluation';
export * from './templates';
export { EXPRESSION_CACHE_BUDGET_IN_BYTES, expressionCacheStats } from './expression-caches';
