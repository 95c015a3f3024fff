/**
 * @module JSONata expressions and `{{...}}` templates. Expressions are compiled once and cached by their
 * source text (definitions are immutable, so the same text always means the same program). Plain dotted
 * paths over objects (`trigger.parameters.at`) are answered without JSONata: they are most expressions in
 * practice and JSONata's evaluation is asynchronous, which is the largest per-trigger cost otherwise.
 * `$now()` and `$millis()` read the engine's clock (when given), so expressions stay deterministic under
 * a fake clock and agree with the timestamps the engine records.
 */
import jsonata from 'jsonata';
import type { JsonObject, JsonValue } from './json';
import type { Trigger } from './trigger';
import type { InstanceStatus } from './enums';

/** What expressions and templates see (shared/design/workflow-model.md). */
export interface ExpressionScope {
  readonly trigger: Trigger | null;
  readonly context: JsonObject;
  readonly instance: { readonly id: string; readonly workflowId: string; readonly stateId: string; readonly status: InstanceStatus };
}

/** A malformed expression or template; `position` is the character offset JSONata reports. */
export class ExpressionSyntaxError extends Error {
  constructor(message: string, readonly position?: number) {
    super(message);
    this.name = 'ExpressionSyntaxError';
  }
}

interface CompiledExpression {
  readonly source: string;
  /** Set for plain dotted paths, evaluated without JSONata (which is compiled only if a path meets an array). */
  readonly path?: readonly string[];
  program?: jsonata.Expression;
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

// Bounded so a long-lived process fed many distinct definitions cannot grow without end.
const MAX_CACHED = 10_000;
const expressionCache = new Map<string, CompiledExpression>();
const reserved = new Set(['true', 'false', 'null', 'and', 'or', 'in']);
const simplePath = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, value);
  return value;
}

/** Compiles (or returns the cached compilation of) an expression; throws ExpressionSyntaxError. */
export function compileExpression(source: string): CompiledExpression {
  const cached = expressionCache.get(source);
  if (cached) return cached;
  const trimmed = source.trim();
  if (simplePath.test(trimmed)) {
    const path = trimmed.split('.');
    if (!path.some((segment) => reserved.has(segment))) return remember(expressionCache, source, { source, path });
  }
  try {
    return remember(expressionCache, source, { source, program: jsonata(source) });
  } catch (error) {
    const detail = error as { message?: string; position?: number };
    throw new ExpressionSyntaxError(`malformed expression: ${detail.message ?? String(error)}`, detail.position);
  }
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

/** Evaluates an expression; the result is plain JSON (JSONata's sequences are normalised) or undefined. */
export async function evaluateExpression(source: string, scope: ExpressionScope, options: ExpressionOptions = {}): Promise<JsonValue | undefined> {
  const compiled = compileExpression(source);
  if (compiled.path) {
    const value = lookup(compiled.path, scope);
    if (value !== fallback) return value;
  }
  compiled.program ??= jsonata(source);
  const result: unknown = await compiled.program.evaluate(scope, options.now ? clockBindings(() => options.now!()) : undefined);
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
const templateCache = new Map<string, readonly TemplatePart[]>();

/** Splits a template into text and `{{expression}}` parts, compiling each expression; throws ExpressionSyntaxError. */
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
  return remember(templateCache, template, parts);
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
  for (const part of parseTemplate(template)) {
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
    const parts = parseTemplate(value);
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
