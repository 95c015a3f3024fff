/**
 * @module An instance's values for the search index: built-in fields from the instance itself, declared
 * ones from their expressions. An expression that fails, or yields a value of the wrong type, leaves its
 * field without a value and names the problem (the instance says so); it never faults the instance.
 */
import type { WorkflowDefinition } from '../definition/definition';
import { evaluateExpression, type ExpressionOptions } from '../expressions/expressions';
import type { Instance } from '../model/instance';
import type { JsonValue } from '../model/json';
import { encodeSensitive, encodeValue, entryKey, parseDatetime, type IndexValue } from './encoding';
import { INDEX_KEY_SETTING, MAX_KEYWORD_VALUES, searchFieldsOf, type IndexType, type SearchField } from '../definition/search-indexes';

export interface SearchValues {
  /** Field name → its values (one, or a keyword's several); a field without a value is absent. */
  readonly values: ReadonlyMap<string, readonly IndexValue[]>;
  /** Field name → why it has no value. */
  readonly problems: Readonly<Record<string, string>>;
}

/** How an instance's values become entries: sensitive ones need the key (absent: they are left unindexed). */
export interface SearchKeyOptions {
  readonly hmacKey?: string;
}

function builtInValue(instance: Instance, name: string): IndexValue | undefined {
  switch (name) {
    case 'stateId':
      return instance.stateId;
    case 'status':
      return instance.status;
    case 'createdAt':
      return instance.createdAt;
    case 'updatedAt':
      return instance.updatedAt;
    case 'parentId':
      return instance.parent?.instanceId;
    case 'businessKey':
      return instance.businessKey;
    default:
      return undefined; // workflowId: the partition itself
  }
}

/** The value as the field's type wants it, or a message saying why it is not. */
export function typedValues(type: IndexType, value: JsonValue | undefined): IndexValue[] | string {
  if (value === undefined || value === null) return [];
  switch (type) {
    case 'string':
      return typeof value === 'string' ? [value] : `yielded ${describe(value)}, not a string`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [value] : `yielded ${describe(value)}, not a number`;
    case 'boolean':
      return typeof value === 'boolean' ? [value] : `yielded ${describe(value)}, not a boolean`;
    case 'datetime':
      return typeof value === 'string' && parseDatetime(value) !== undefined ? [value] : `yielded ${describe(value)}, not an ISO 8601 date-time`;
    case 'keyword': {
      const list = Array.isArray(value) ? value : [value];
      if (!list.every((item): item is string => typeof item === 'string')) return `yielded ${describe(value)}, not a string or a list of strings`;
      const unique = [...new Set(list)];
      return unique.length > MAX_KEYWORD_VALUES ? `yielded ${unique.length} values; at most ${MAX_KEYWORD_VALUES} are indexed` : unique;
    }
  }
}

function describe(value: JsonValue): string {
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Every field's values for `instance`, under the version `definition` declares. */
export async function searchValuesOf(definition: WorkflowDefinition, instance: Instance, options: ExpressionOptions = {}): Promise<SearchValues> {
  const values = new Map<string, IndexValue[]>();
  const problems: Record<string, string> = {};
  const scope = { trigger: null, context: instance.context, instance: { id: instance.id, workflowId: instance.workflowId, stateId: instance.stateId, status: instance.status } };
  for (const field of searchFieldsOf(definition.indexes).values()) {
    if (!field.expression) {
      const value = builtInValue(instance, field.name);
      if (value !== undefined) values.set(field.name, [value]);
      continue;
    }
    let result: JsonValue | undefined;
    try {
      result = await evaluateExpression(field.expression, scope, options);
    } catch (error) {
      problems[field.name] = `the expression failed: ${error instanceof Error ? error.message : String(error)}`;
      continue;
    }
    const typed = typedValues(field.type, result);
    if (typeof typed === 'string') problems[field.name] = `the expression ${typed}`;
    else if (typed.length > 0) values.set(field.name, typed);
  }
  return { values, problems };
}

/** The entry keys (`field!segment`) of the values: what the instance's rows are keyed by, deduplicated and sorted. */
export async function entriesOf(definition: WorkflowDefinition, searchValues: SearchValues, options: SearchKeyOptions = {}): Promise<{ entries: string[]; problems: Record<string, string> }> {
  const fields = searchFieldsOf(definition.indexes);
  const problems: Record<string, string> = { ...searchValues.problems };
  const entries = new Set<string>();
  for (const [name, list] of searchValues.values) {
    const field = fields.get(name) as SearchField;
    if (field.sensitive && !options.hmacKey) {
      problems[name] = `sensitive, and no index key is configured (${INDEX_KEY_SETTING})`;
      continue;
    }
    for (const value of list) entries.add(entryKey(name, field.sensitive ? await encodeSensitive(field.type, value, options.hmacKey!) : encodeValue(field.type, value)));
  }
  return { entries: [...entries].sort(), problems };
}
