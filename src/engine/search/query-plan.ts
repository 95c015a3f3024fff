/**
 * @module Checking a parsed filter against a workflow's fields, choosing the index range a search reads
 * (the plan), and matching an instance's values against the filter (every row read is re-checked).
 *
 * The planner looks at the filter's top-level `and` terms, and reads the range of the one it expects
 * to be the most selective: an equality on a declared field, the business key or the parent first
 * (rank 1), a keyword equality (2), a bounded range or prefix (3), a one-sided range (4), an equality
 * on a state or status (5, few distinct values). Every other term is checked on the rows read. Without
 * such a term (only `or`, `not`, `!=`, a multi-value `in`), it reads every instance's `createdAt` row:
 * the plan says so.
 */
import { AFTER_SEGMENT, AFTER_SEPARATOR, encodeSensitive, encodeString, encodeValue, entryKey, parseDatetime, SEPARATOR, type IndexValue } from './encoding';
import { INDEX_KEY_SETTING, type SearchField } from '../definition/search-indexes';
import { conditionsOf, filterError, type ConditionNode, type FilterNode, type Literal } from './query-language';
import type { SearchRange } from './search-port';

/**
 * Checks every condition against the fields: a 400 at the position of the first that does not fit.
 * `sensitiveSearchable` is false when the deployment has no index key: its sensitive fields are left
 * unindexed (search-values.ts) and no value can be hashed to look one up, so naming one is refused as
 * the caller's to fix (set SIGNALBOX_INDEX_HMAC_KEY, or drop the condition), never a failed key import.
 */
export function checkFilter(node: FilterNode, fields: ReadonlyMap<string, SearchField>, options: { readonly parameter?: string; readonly sensitiveSearchable: boolean }): void {
  const parameter = options.parameter ?? 'filter';
  for (const condition of conditionsOf(node)) {
    const field = fields.get(condition.field);
    const at = (message: string) => filterError(parameter, condition.position, message);
    if (!field) throw at(`unknown field "${condition.field}"${suggestion(condition.field, fields)}`);
    if (field.sensitive && !options.sensitiveSearchable) {
      throw at(`"${field.name}" is sensitive and this deployment has no index key (${INDEX_KEY_SETTING}): it cannot be searched`);
    }
    const values = condition.kind === 'compare' ? [condition.value] : condition.kind === 'between' ? [condition.low, condition.high] : condition.kind === 'in' ? condition.values : [condition.prefix];
    for (const value of values) {
      const problem = typeProblem(field, value);
      if (problem) throw at(`"${field.name}" is a ${field.type}: ${problem}`);
    }
    if (field.sensitive && !(condition.kind === 'in' || (condition.kind === 'compare' && (condition.operator === '=' || condition.operator === '!=')))) {
      throw at(`"${field.name}" is sensitive: only =, != and in can be asked of it`);
    }
    if (condition.kind === 'startsWith' && field.type !== 'string' && field.type !== 'keyword') throw at(`"${field.name}" is a ${field.type}: startsWith needs a string field`);
    if (field.type === 'boolean' && condition.kind !== 'in' && !(condition.kind === 'compare' && (condition.operator === '=' || condition.operator === '!='))) {
      throw at(`"${field.name}" is a boolean: only =, != and in apply`);
    }
  }
}

function suggestion(name: string, fields: ReadonlyMap<string, SearchField>): string {
  const lower = name.toLowerCase();
  const close = [...fields.keys()].find((candidate) => candidate.toLowerCase().startsWith(lower.slice(0, 3)) && Math.abs(candidate.length - name.length) <= 2);
  return close ? ` (did you mean "${close}"?)` : '';
}

function typeProblem(field: SearchField, value: Literal): string | undefined {
  switch (field.type) {
    case 'number':
      return typeof value === 'number' ? undefined : `${JSON.stringify(value)} is not a number`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${JSON.stringify(value)} is not true or false`;
    case 'datetime':
      return typeof value === 'string' && parseDatetime(value) !== undefined ? undefined : `${JSON.stringify(value)} is not an ISO 8601 date-time in quotes`;
    default:
      return typeof value === 'string' ? undefined : `${JSON.stringify(value)} is not a string in quotes`;
  }
}

/** The range a search reads, and why. */
export interface IndexPlan {
  /** The field whose rows are read. */
  readonly field: string;
  /** The condition chosen, as written (or `all instances` when none could be). */
  readonly condition: string;
  readonly range: SearchRange;
  /** 1 (most selective) to 6 (every instance). */
  readonly rank: number;
}

export function describeCondition(condition: ConditionNode): string {
  const show = (value: Literal) => (typeof value === 'string' ? `'${value.replaceAll("'", "''")}'` : String(value));
  switch (condition.kind) {
    case 'compare':
      return `${condition.field} ${condition.operator} ${show(condition.value)}`;
    case 'between':
      return `${condition.field} between ${show(condition.low)} and ${show(condition.high)}`;
    case 'in':
      return `${condition.field} in (${condition.values.map(show).join(', ')})`;
    case 'startsWith':
      return `${condition.field} startsWith ${show(condition.prefix)}`;
  }
}

async function segment(field: SearchField, value: Literal, hmacKey: string | undefined): Promise<string> {
  return field.sensitive ? encodeSensitive(field.type, value, hmacKey ?? '') : encodeValue(field.type, value);
}

/** The rows of `field` whose value segment is exactly `encoded`. */
function exactly(field: string, encoded: string): SearchRange {
  const prefix = entryKey(field, encoded);
  return { from: `${prefix}${SEPARATOR}`, to: `${prefix}${AFTER_SEPARATOR}` };
}

async function rangeOf(condition: ConditionNode, field: SearchField, hmacKey: string | undefined): Promise<{ range: SearchRange; rank: number } | undefined> {
  const all = { from: `${field.name}${SEPARATOR}`, to: `${field.name}${AFTER_SEPARATOR}` };
  const lowRank = field.name === 'stateId' || field.name === 'status' ? 5 : field.type === 'keyword' ? 2 : 1;
  switch (condition.kind) {
    case 'compare': {
      const encoded = await segment(field, condition.value, hmacKey);
      switch (condition.operator) {
        case '=':
          return { range: exactly(field.name, encoded), rank: lowRank };
        case '!=':
          return undefined;
        case '<':
        case '<=':
          // Inclusive of the bound: strings longer than the encoded prefix share it (the re-check decides).
          return { range: { from: all.from, to: `${entryKey(field.name, encoded)}${AFTER_SEPARATOR}` }, rank: 4 };
        case '>':
        case '>=':
          return { range: { from: entryKey(field.name, encoded), to: all.to }, rank: 4 };
      }
      return undefined;
    }
    case 'between': {
      const low = await segment(field, condition.low, hmacKey);
      const high = await segment(field, condition.high, hmacKey);
      return { range: { from: entryKey(field.name, low), to: `${entryKey(field.name, high)}${AFTER_SEPARATOR}` }, rank: 3 };
    }
    case 'in':
      return condition.values.length === 1 ? { range: exactly(field.name, await segment(field, condition.values[0]!, hmacKey)), rank: lowRank } : undefined;
    case 'startsWith': {
      const prefix = entryKey(field.name, `s${encodeString(condition.prefix)}`);
      return { range: { from: prefix, to: `${prefix}${AFTER_SEGMENT}` }, rank: 3 };
    }
  }
}

/** The range to read: the most selective top-level `and` term's, or every instance's `createdAt` row. */
export async function planSearch(node: FilterNode | undefined, fields: ReadonlyMap<string, SearchField>, hmacKey: string | undefined, preferField?: string): Promise<IndexPlan> {
  const terms = node === undefined ? [] : node.kind === 'and' ? node.items : [node];
  let best: IndexPlan | undefined;
  for (const term of terms) {
    if (!('field' in term) || term.field === 'workflowId') continue;
    const field = fields.get(term.field)!;
    const found = await rangeOf(term, field, hmacKey);
    if (!found) continue;
    // Between equals, the ordering field wins: its rows come in the order asked for.
    const better = !best || found.rank < best.rank || (found.rank === best.rank && term.field === preferField && best.field !== preferField);
    if (better) best = { field: term.field, condition: describeCondition(term), range: found.range, rank: found.rank };
  }
  if (best) return best;
  const field = preferField === 'updatedAt' ? 'updatedAt' : 'createdAt';
  return { field, condition: 'all instances', range: { from: `${field}${SEPARATOR}`, to: `${field}${AFTER_SEPARATOR}` }, rank: 6 };
}

/** Orders values of one type: numbers and instants as numbers, strings by code point. */
export function compareValues(type: SearchField['type'], left: IndexValue, right: IndexValue): number {
  if (type === 'number') return Number(left) - Number(right);
  if (type === 'datetime') return (parseDatetime(String(left)) ?? 0) - (parseDatetime(String(right)) ?? 0);
  if (type === 'boolean') return Number(left) - Number(right);
  return Buffer.compare(Buffer.from(String(left), 'utf8'), Buffer.from(String(right), 'utf8'));
}

/**
 * Whether an instance with these values matches. A condition on a field without a value is false (so
 * `not` of it is true, and `!=` is `not =`); a keyword matches when any of its values does.
 */
export function matchesFilter(node: FilterNode, values: ReadonlyMap<string, readonly IndexValue[]>, fields: ReadonlyMap<string, SearchField>, workflowId: string): boolean {
  switch (node.kind) {
    case 'and':
      return node.items.every((item) => matchesFilter(item, values, fields, workflowId));
    case 'or':
      return node.items.some((item) => matchesFilter(item, values, fields, workflowId));
    case 'not':
      return !matchesFilter(node.item, values, fields, workflowId);
    default: {
      const field = fields.get(node.field)!;
      const held = node.field === 'workflowId' ? [workflowId] : (values.get(node.field) ?? []);
      const compare = (left: IndexValue, right: Literal) => compareValues(field.type, left, right);
      switch (node.kind) {
        case 'compare':
          if (node.operator === '!=') return !held.some((value) => compare(value, node.value) === 0);
          return held.some((value) => {
            const order = compare(value, node.value);
            return node.operator === '=' ? order === 0 : node.operator === '<' ? order < 0 : node.operator === '<=' ? order <= 0 : node.operator === '>' ? order > 0 : order >= 0;
          });
        case 'between':
          return held.some((value) => compare(value, node.low) >= 0 && compare(value, node.high) <= 0);
        case 'in':
          return held.some((value) => node.values.some((candidate) => compare(value, candidate) === 0));
        case 'startsWith':
          return held.some((value) => String(value).startsWith(node.prefix));
      }
    }
  }
}
