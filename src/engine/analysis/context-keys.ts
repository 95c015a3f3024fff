/**
 * @module Which context keys steps read and write, as far as the definition says. Used by the
 * `undefinedContextKey` analysis. Reads are `context.<key>` paths in expressions and `{{...}}`
 * templates, except under `$exists(...)` (testing for a key is how a definition handles its absence).
 */
import type { Step } from '../definition/definition';
import { parseTemplate } from '../expressions/expressions';

const contextRead = /(?<![\w.$])(\$exists\(\s*)?context\.([A-Za-z_][A-Za-z0-9_]*)/g;

/** The keys an expression reads (`context.a.b` reads `a`). */
export function contextKeysReadByExpression(expression: string): string[] {
  const keys: string[] = [];
  for (const match of expression.matchAll(contextRead)) if (!match[1]) keys.push(match[2]!);
  return keys;
}

export function contextKeysReadByTemplate(template: string): string[] {
  let parts: ReturnType<typeof parseTemplate>;
  try {
    parts = parseTemplate(template);
  } catch {
    return []; // validation reports malformed templates
  }
  return parts.flatMap((part) => ('expression' in part ? contextKeysReadByExpression(part.expression) : []));
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

function field(step: Step, name: string): unknown {
  return (step as Record<string, unknown>)[name];
}

/** The context keys a condition reads, nested conditions included. */
export function contextKeysReadByCondition(step: Step): string[] {
  switch (step.type) {
    case 'expression':
      return typeof field(step, 'expression') === 'string' ? contextKeysReadByExpression(field(step, 'expression') as string) : [];
    case 'all':
    case 'any':
      return (Array.isArray(field(step, 'conditions')) ? (field(step, 'conditions') as Step[]) : []).flatMap(contextKeysReadByCondition);
    case 'not': {
      const inner = field(step, 'condition');
      return inner !== null && typeof inner === 'object' ? contextKeysReadByCondition(inner as Step) : [];
    }
    case 'invokeExternalService':
      return strings(field(step, 'interests')).flatMap(contextKeysReadByTemplate);
    default:
      return [];
  }
}

/** What an action does to the context, as far as it can be told from the definition. */
export interface ContextEffect {
  readonly reads: readonly string[];
  /** Keys it may set. */
  readonly sets: readonly string[];
  /** Keys it removes (after setting). */
  readonly removes: readonly string[];
  /** It may set keys nobody can name in advance (an external service's answer, a custom action). */
  readonly setsUnknownKeys: boolean;
}

export function contextEffectOfAction(step: Step): ContextEffect {
  const none = { reads: [], sets: [], removes: [], setsUnknownKeys: false };
  switch (step.type) {
    case 'setContext': {
      const values = field(step, 'values');
      const expressions = field(step, 'expressions');
      const remove = field(step, 'remove');
      const objectKeys = (value: unknown) => (value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : []);
      return {
        ...none,
        reads: strings(expressions).flatMap(contextKeysReadByExpression),
        sets: [...objectKeys(values), ...objectKeys(expressions)],
        removes: Array.isArray(remove) ? remove.filter((key): key is string => typeof key === 'string') : [],
      };
    }
    case 'log':
      return { ...none, reads: strings(field(step, 'message')).flatMap(contextKeysReadByTemplate) };
    case 'raiseTrigger':
      return { ...none, reads: strings(field(step, 'trigger')).flatMap(contextKeysReadByTemplate) };
    case 'invokeExternalService':
      return { ...none, setsUnknownKeys: true };
    default:
      return { ...none, setsUnknownKeys: true };
  }
}
