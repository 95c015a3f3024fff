/**
 * @module JSONata expressions: compiled once and cached by their source text (definitions are immutable, so
 * the same text always means the same program). Plain dotted paths over objects (`trigger.parameters.at`) are
 * answered without JSONata: they are most expressions in practice and JSONata's evaluation is asynchronous,
 * which is the largest per-trigger cost otherwise. Every evaluation is bounded in time and memory: in-process
 * by JSONata's guardrails and a budget on what it builds (expression-program.ts), or, for expressions that can
 * loop or blow up in one step, in a worker thread (expression-isolation.ts, expression-worker-pool.ts).
 */
import type jsonata from 'jsonata';
import type { Actor } from '../model/actor';
import type { JsonObject, JsonValue } from '../model/json';
import type { Trigger } from '../model/trigger';
import type { InstanceStatus } from '../model/enums';
import { needsIsolation } from './expression-isolation';
import { toExpressionError } from './expression-limits';
import { ExpressionWorkerPool } from './expression-worker-pool';
import { clockBindings, newProgram } from './expression-program';
import { expressionCache } from './expression-caches';

/** What expressions and templates see (shared/design/workflow-model.md). */
export interface ExpressionScope {
  readonly trigger: Trigger | null;
  /** Who sent the trigger or asked for the change (actor.ts), null when unknown; absent in scopes made before actors. */
  readonly actor?: Actor | null;
  readonly context: JsonObject;
  readonly instance: { readonly id: string; readonly workflowId: string; readonly stateId: string; readonly status: InstanceStatus };
  /** Only while an `onError` sets the context: what failed (error-handling.ts, StepError). */
  readonly error?: { readonly type: string; readonly message: string; readonly status?: number; readonly stepPath: string };
}

/** A malformed expression or template; `position` is the character offset JSONata reports. */
export class ExpressionSyntaxError extends Error {
  constructor(
    message: string,
    readonly position?: number,
  ) {
    super(message);
    this.name = 'ExpressionSyntaxError';
  }
}

export interface CompiledExpression {
  readonly source: string;
  /** Set for plain dotted paths, evaluated without JSONata (which is compiled only if a path meets an array). */
  readonly path?: readonly string[];
  program?: jsonata.Expression;
  /** Whether it must run in the worker pool (expression-isolation.ts); decided when first compiled. */
  isolated?: boolean;
}

/** Where expressions get the time from. */
export interface ExpressionOptions {
  now?(): Date;
}

const reserved = new Set(['true', 'false', 'null', 'and', 'or', 'in']);
const simplePath = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Compiles an expression without caching it (validation); throws ExpressionSyntaxError. */
export function compileExpression(source: string): CompiledExpression {
  const cached = expressionCache.get(source);
  if (cached) return cached;
  const trimmed = source.trim();
  if (simplePath.test(trimmed)) {
    const path = trimmed.split('.');
    if (!path.some((segment) => reserved.has(segment))) return { source, path };
  }
  try {
    return { source, program: newProgram(source) };
  } catch (error) {
    const detail = error as { message?: string; position?: number };
    throw new ExpressionSyntaxError(`malformed expression: ${detail.message ?? String(error)}`, detail.position);
  }
}

/** The compiled expression, cached: only expressions that are evaluated (so were stored) get here. */
function cachedExpression(source: string): CompiledExpression {
  const cached = expressionCache.get(source);
  if (cached) return cached;
  const compiled = compileExpression(source);
  // JSONata's AST measured 26-34 bytes a character of source (arrays, conditions, sums, string literals;
  // node --expose-gc, heap before and after compiling), so 36 covers it and the source key; a plain path
  // keeps only its source.
  return expressionCache.set(source, compiled, 64 + source.length * (compiled.program ? 36 : 2));
}

const fallback = Symbol('fallback');

function lookup(path: readonly string[], scope: unknown): JsonValue | undefined | typeof fallback {
  let current: unknown = scope;
  for (const segment of path) {
    // JSONata maps a path over arrays; leave that (rarer) case to JSONata itself.
    if (Array.isArray(current)) return fallback;
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
    if (current === undefined) return undefined;
  }
  return current as JsonValue;
}

let workerPool: ExpressionWorkerPool | undefined;

/** Stops the isolated evaluators' workers (tests; they never keep a process alive anyway). */
export async function closeExpressionWorkers(): Promise<void> {
  const pool = workerPool;
  workerPool = undefined;
  await pool?.close();
}

/**
 * Evaluates an expression; the result is plain JSON (JSONata's sequences are normalised) or undefined.
 * Bounded: an overrun throws ExpressionLimitError (see expression-limits.ts).
 */
export async function evaluateExpression(source: string, scope: ExpressionScope, options: ExpressionOptions = {}): Promise<JsonValue | undefined> {
  const compiled = cachedExpression(source);
  if (compiled.path) {
    const value = lookup(compiled.path, scope);
    if (value !== fallback) return value;
  }
  compiled.program ??= newProgram(source);
  compiled.isolated ??= needsIsolation(compiled.program.ast());
  if (compiled.isolated) {
    workerPool ??= new ExpressionWorkerPool();
    return workerPool.evaluate(source, scope, options.now ? options.now().getTime() : undefined);
  }
  let result: unknown;
  try {
    result = await compiled.program.evaluate(scope, options.now ? clockBindings(() => options.now!()) : undefined);
  } catch (error) {
    throw toExpressionError(error);
  }
  return toJson(result);
}

/** Normalises a JSONata result to plain JSON (drops functions, sequence markers and undefined). */
export function toJson(value: unknown): JsonValue | undefined {
  if (value === undefined || typeof value === 'function') return undefined;
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`the expression yielded ${value}, which is not JSON`);
    return value as JsonValue;
  }
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}
