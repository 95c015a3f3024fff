/**
 * @module JSONata expressions and `{{...}}` templates. Expressions are compiled once and cached by their
 * source text (definitions are immutable, so the same text always means the same program). Plain dotted
 * paths over objects (`trigger.parameters.at`) are answered without JSONata: they are most expressions in
 * practice and JSONata's evaluation is asynchronous, which is the largest per-trigger cost otherwise.
 * `$now()` and `$millis()` read the engine's clock (when given), so expressions stay deterministic under
 * a fake clock and agree with the timestamps the engine records. Every evaluation is bounded in time and
 * memory: in-process by JSONata's guardrails and a budget on what it builds, or, for expressions that can
 * loop or blow up in one step, in a worker thread (expression-isolation.ts, expression-worker-pool.ts).
 */
import type { Actor } from '../model/actor';
import jsonata from 'jsonata';
import type { JsonObject, JsonValue } from '../model/json';
import type { Trigger } from '../model/trigger';
import type { InstanceStatus } from '../model/enums';
import { needsIsolation } from './expression-isolation';
import { EXPRESSION_DEADLINE_IN_MS, ExpressionLimitError, MAX_EXPRESSION_BUILT_SIZE, MAX_EXPRESSION_SEQUENCE, MAX_EXPRESSION_STRING_LENGTH, toExpressionError } from './expression-limits';
import { ExpressionWorkerPool } from './expression-worker-pool';

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

interface CompiledExpression {
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

// `$now(picture, timezone)` with arguments formats through JSONata's own $fromMillis.
let fromMillis: jsonata.Expression | undefined;

function clockBindings(now: () => Date): Record<string, unknown> {
  // One timestamp per evaluation, as JSONata itself does.
  const at = now();
  const millis = at.getTime();
  return {
    millis: () => millis,
    now: (picture?: string, timezone?: string) => {
      if (picture === undefined && timezone === undefined) return at.toISOString();
      fromMillis ??= jsonata('$fromMillis($m, $p, $t)');
      return fromMillis.evaluate({}, { m: millis, p: picture, t: timezone });
    },
  };
}

/**
 * Compiled expressions and parsed templates, bounded by an estimate of their size in bytes (a count bound
 * let a few large expressions hold tens of MB). Only what runs is cached: validation compiles without
 * caching, so a rejected definition leaves nothing behind.
 */
export const EXPRESSION_CACHE_BUDGET_IN_BYTES = 32 * 1024 * 1024;

class SizedCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  constructor(private readonly budgetInBytes: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Caches `value` unless it alone is over the budget; evicts the oldest entries to make room. */
  set(key: string, value: V, bytes: number): V {
    if (bytes > this.budgetInBytes || this.entries.has(key)) return value;
    for (const [oldest, entry] of this.entries) {
      if (this.total + bytes <= this.budgetInBytes) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    return value;
  }

  get sizeInBytes(): number {
    return this.total;
  }

  get count(): number {
    return this.entries.size;
  }
}

const expressionCache = new SizedCache<CompiledExpression>(EXPRESSION_CACHE_BUDGET_IN_BYTES / 2);
const reserved = new Set(['true', 'false', 'null', 'and', 'or', 'in']);
const simplePath = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** What the caches hold now (tests and diagnostics). */
export function expressionCacheStats(): { entries: number; bytes: number } {
  return { entries: expressionCache.count + templateCache.count, bytes: expressionCache.sizeInBytes + templateCache.sizeInBytes };
}

/**
 * Guardrails JSONata checks at every step: the deadline and the sequence size (not its depth count: it
 * counts an array constructor's items as nesting, and in-process expressions cannot recurse). The exit
 * hook adds a budget on what one evaluation builds (string characters plus array items plus steps), so an
 * in-process evaluation is bounded in memory as well as time (expression-isolation.ts says what is not).
 */
function newProgram(source: string): jsonata.Expression {
  const program = jsonata(source, { timeout: EXPRESSION_DEADLINE_IN_MS, sequence: MAX_EXPRESSION_SEQUENCE });
  program.assign(EVALUATE_EXIT as unknown as string, countBuilt);
  return program;
}

const EVALUATE_EXIT = Symbol.for('jsonata.__evaluate_exit');

/** The per-evaluation frame JSONata passes to its hooks; `base` is the evaluation's root frame. */
interface BudgetFrame {
  readonly base: { signalboxBuilt?: number };
}

function countBuilt(_expression: unknown, _input: unknown, environment: BudgetFrame, result: unknown): void {
  let cost = 1;
  if (typeof result === 'string') {
    if (result.length > MAX_EXPRESSION_STRING_LENGTH)
      throw new ExpressionLimitError(`the expression built a string of ${result.length} characters; at most ${MAX_EXPRESSION_STRING_LENGTH} are allowed`);
    cost += result.length;
  } else if (Array.isArray(result)) {
    cost += result.length;
  }
  const base = environment.base;
  const built = (base.signalboxBuilt ?? 0) + cost;
  if (built > MAX_EXPRESSION_BUILT_SIZE) throw new ExpressionLimitError(`the expression built more than ${MAX_EXPRESSION_BUILT_SIZE} characters and items in one evaluation`);
  base.signalboxBuilt = built;
}

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

// ---- templates -------------------------------------------------------------------------------------

type TemplatePart = { readonly text: string } | { readonly expression: string };
const templateCache = new SizedCache<readonly TemplatePart[]>(EXPRESSION_CACHE_BUDGET_IN_BYTES / 2);

/**
 * Splits a template into text and `{{expression}}` parts, compiling each expression, without caching
 * (validation); throws ExpressionSyntaxError.
 */
export function parseTemplate(template: string): readonly TemplatePart[] {
  const cached = templateCache.get(template);
  if (cached) return cached;
  const parts: TemplatePart[] = [];
  let index = 0;
  while (index < template.length) {
    const open = template.indexOf('{{', index);
    if (open < 0) {
      parts.push({ text: template.slice(index) });
      break;
    }
    if (open > index) parts.push({ text: template.slice(index, open) });
    const close = template.indexOf('}}', open + 2);
    if (close < 0) throw new ExpressionSyntaxError(`unclosed "{{" at ${open}`, open);
    const expression = template.slice(open + 2, close).trim();
    if (!expression) throw new ExpressionSyntaxError(`empty "{{}}" at ${open}`, open);
    compileExpression(expression);
    parts.push({ expression });
    index = close + 2;
  }
  return parts;
}

/** The template's parts, cached (only templates that are rendered, so were stored, get here). */
function cachedTemplate(template: string): readonly TemplatePart[] {
  return templateCache.get(template) ?? templateCache.set(template, parseTemplate(template), 64 + template.length * 4);
}

export function hasPlaceholders(template: string): boolean {
  return template.includes('{{');
}

function stringify(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Renders a template. A placeholder that yields nothing (undefined or null) makes the whole result
 * undefined when `missing` is `'undefined'` (interests and subjects: "claimant:" would match the wrong
 * things), or renders as an empty string when it is `'empty'` (log messages).
 */
export async function renderTemplate(template: string, scope: ExpressionScope, missing: 'undefined' | 'empty', options: ExpressionOptions = {}): Promise<string | undefined> {
  if (!hasPlaceholders(template)) return template;
  let out = '';
  for (const part of cachedTemplate(template)) {
    if ('text' in part) {
      out += part.text;
      continue;
    }
    const value = await evaluateExpression(part.expression, scope, options);
    if (value === undefined || value === null) {
      if (missing === 'undefined') return undefined;
      continue;
    }
    out += stringify(value);
  }
  return out;
}

/**
 * Renders templates inside a JSON value (raised trigger parameters). A string that is exactly one
 * placeholder keeps the type of its value (`"{{context.amount}}"` stays a number).
 */
export async function renderJsonTemplates(value: JsonValue, scope: ExpressionScope, options: ExpressionOptions = {}): Promise<JsonValue | undefined> {
  if (typeof value === 'string') {
    if (!hasPlaceholders(value)) return value;
    const parts = cachedTemplate(value);
    const only = parts.length === 1 ? parts[0] : undefined;
    if (only && 'expression' in only) return evaluateExpression(only.expression, scope, options);
    return renderTemplate(value, scope, 'empty', options);
  }
  if (Array.isArray(value)) {
    const items: JsonValue[] = [];
    for (const item of value) {
      const rendered = await renderJsonTemplates(item, scope, options);
      items.push(rendered === undefined ? null : rendered);
    }
    return items;
  }
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      const rendered = await renderJsonTemplates(item, scope, options);
      if (rendered !== undefined) out[key] = rendered;
    }
    return out;
  }
  return value;
}

/** Every template string inside a JSON value, with its path, for validation. */
export function templatesIn(value: JsonValue, path: (string | number)[] = []): { path: (string | number)[]; template: string }[] {
  if (typeof value === 'string') return hasPlaceholders(value) ? [{ path, template: value }] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => templatesIn(item, [...path, index]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => templatesIn(item, [...path, key]));
  return [];
}
