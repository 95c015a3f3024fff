/**
 * @module `{{...}}` templates: text with JSONata expressions in double braces (expression-evaluation.ts),
 * parsed once and cached, rendered to a string (interests, subjects, log messages) or inside a JSON value
 * (raised trigger parameters, where a lone placeholder keeps its value's type).
 */
import type { JsonObject, JsonValue } from '../model/json';
import { ExpressionSyntaxError, compileExpression, evaluateExpression, type ExpressionOptions, type ExpressionScope } from './expression-evaluation';
import { templateCache } from './expression-caches';

export type TemplatePart = { readonly text: string } | { readonly expression: string };

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
