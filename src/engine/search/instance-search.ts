/**
 * @module Finding and counting instances of a workflow by a filter: the plan's range of the search
 * index is read page by page, each row's instance is read (concurrently, at most READ_CONCURRENCY at a
 * time) and kept only if, as read, it is this workflow's, the row's incarnation, not being deleted, and
 * matches the whole filter (its values computed again from its own version). So a stale row, or a row
 * left by a crash, is never an answer. The fields a filter may name are the latest version's.
 */
import { NotFoundError, ValidationError } from '../model/errors';
import type { WorkflowDefinition, WorkflowVersion } from '../definition/definition';
import type { StoredInstance } from '../model/instance';
import type { InstanceStore, OperationOptions, PageOptions } from '../ports/ports';
import type { WorkflowVersions } from './search-port';
import { compareValues, checkFilter, planSearch, matchesFilter } from './query-plan';
import { filterError, parseFilter } from './query-language';
import { searchFieldsOf, type SearchField } from '../definition/search-indexes';
import { AFTER_SEPARATOR, decodeSegment, SEPARATOR, type IndexValue } from './encoding';
import type { SearchIndexStore, SearchRow } from './search-port';
import { searchValuesOf } from './search-values';
import { rowsNotHeld } from './search-indexing';

import { explanation, rowCountPlan, Tally, type RowCountPlan } from './search-counting';
import {
  MAX_ORDERED_MATCHES,
  MAX_SEARCH_PAGE_SIZE,
  type CountRequest,
  type CountResult,
  type Counters,
  type Match,
  type Prepared,
  type RowsOfInstance,
  type SearchPage,
  type SearchRequest,
  type SortedToken,
  type StreamToken,
} from './search-types';

export { MAX_ORDERED_MATCHES, MAX_SEARCH_PAGE_SIZE, type CountRequest, type CountResult, type SearchExplanation, type SearchPage, type SearchRequest } from './search-types';

/** Instance reads in flight per page. */
const READ_CONCURRENCY = 32;
/** Repairs rows of a workflow's partition a search found not held by their instances. Never throws. */
export type RepairRows = (workflowId: string, rows: readonly SearchRow[], options: OperationOptions) => Promise<void>;

export interface InstanceSearchPorts {
  readonly instances: InstanceStore;
  readonly search?: SearchIndexStore;
}

export class InstanceSearch {
  constructor(
    private readonly ports: InstanceSearchPorts,
    private readonly versions: WorkflowVersions,
    private readonly latest: (workflowId: string, options?: OperationOptions) => Promise<WorkflowVersion | undefined>,
    private readonly hmacKey: string | undefined,
    /** Removes rows a search found its instance not to hold (checked again under the instance's lease). */
    private readonly repair?: RepairRows,
  ) {}

  /** The fields a filter on the workflow may name (the latest version's, with the built-in ones). */
  async fieldsOf(workflowId: string, options: OperationOptions = {}): Promise<SearchField[]> {
    const workflow = await this.latest(workflowId, options);
    if (!workflow) throw new NotFoundError(`Workflow "${workflowId}" does not exist`);
    return [...searchFieldsOf(workflow.definition.indexes).values()];
  }

  async find(request: SearchRequest, options: PageOptions = {}): Promise<SearchPage> {
    const order = parseOrderBy(request.orderBy);
    const prepared = await this.prepare(request.workflowId, request.filter, order?.field, options);
    if (order) {
      const field = prepared.fields.get(order.field);
      if (!field) throw filterError('orderBy', 1, `unknown field "${order.field}"`);
      if (field.sensitive || field.type === 'keyword') throw filterError('orderBy', 1, `"${order.field}" is ${field.sensitive ? 'sensitive' : 'a keyword'}: it cannot order results`);
    }
    const counters: Counters = { indexPages: 0, indexRows: 0, instanceReads: 0 };
    const streamed = !order || (order.field === prepared.plan.field && order.direction === 'asc');
    if (streamed) {
      const token = options.continuationToken === undefined ? undefined : decodeToken<StreamToken>(options.continuationToken, (value) => typeof (value as StreamToken).t === 'string');
      const page = await this.scanPage(prepared, { ...options, ...(token ? { continuationToken: token.t } : { continuationToken: undefined }) }, counters);
      const items = page.matches.map((match) => match.instance);
      return {
        items,
        ...(page.continuationToken ? { continuationToken: encodeToken({ t: page.continuationToken }) } : {}),
        explain: explanation(prepared, order ? `${order.field} asc (the index order)` : 'index order', counters),
      };
    }
    // Sorted in memory: every match is read, then the page is cut from the sorted list.
    const matches: { instance: StoredInstance; values: ReadonlyMap<string, readonly IndexValue[]> }[] = [];
    let token: string | undefined;
    do {
      const page = await this.scanPage(prepared, { ...options, maxPageSize: 1000, continuationToken: token }, counters);
      matches.push(...page.matches);
      if (matches.length > MAX_ORDERED_MATCHES) throw filterError('orderBy', 1, `more than ${MAX_ORDERED_MATCHES} instances match: narrow the filter, or order by the field it is narrowed by`);
      token = page.continuationToken;
    } while (token);
    const field = prepared.fields.get(order!.field)!;
    const sign = order!.direction === 'asc' ? 1 : -1;
    matches.sort((left, right) => {
      const a = left.values.get(field.name)?.[0];
      const b = right.values.get(field.name)?.[0];
      // Instances without a value come last, whatever the direction.
      if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
      return sign * compareValues(field.type, a, b) || left.instance.id.localeCompare(right.instance.id);
    });
    const offset =
      options.continuationToken === undefined ? 0 : decodeToken<SortedToken>(options.continuationToken, (value) => Number.isInteger((value as SortedToken).o) && (value as SortedToken).o >= 0).o;
    const size = Math.min(Math.max(options.maxPageSize ?? 100, 1), MAX_SEARCH_PAGE_SIZE);
    const items = matches.slice(offset, offset + size).map((match) => match.instance);
    const end = offset + items.length;
    return {
      items,
      ...(end < matches.length ? { continuationToken: encodeToken({ o: end }) } : {}),
      explain: explanation(prepared, `${order!.field} ${order!.direction} (sorted in memory)`, counters),
    };
  }

  async count(request: CountRequest, options: OperationOptions = {}): Promise<CountResult> {
    const prepared = await this.prepare(request.workflowId, request.filter, undefined, options);
    let group: SearchField | undefined;
    if (request.groupBy !== undefined) {
      group = prepared.fields.get(request.groupBy);
      if (!group) throw filterError('groupBy', 1, `unknown field "${request.groupBy}"`);
      if (group.sensitive || !(group.name === 'stateId' || group.name === 'status' || group.type === 'keyword' || group.type === 'string' || group.type === 'boolean')) {
        throw filterError('groupBy', 1, `"${group.name}" cannot group counts: use stateId, status, or a keyword, string or boolean index that is not sensitive`);
      }
    }
    const counters: Counters = { indexPages: 0, indexRows: 0, instanceReads: 0 };
    const tally = new Tally(group);
    const fromRows = rowCountPlan(prepared, group);
    if (fromRows) {
      await this.countFromRows(prepared, fromRows, tally, options, counters);
    } else {
      let token: string | undefined;
      do {
        const page = await this.scanPage(prepared, { ...options, maxPageSize: 1000, continuationToken: token }, counters);
        for (const match of page.matches) tally.add(match.values);
        token = page.continuationToken;
      } while (token);
    }
    const counted = fromRows
      ? `from the index rows of ${fromRows.scans.map((scan) => (scan.whole ? scan.field : `${scan.field} (the range read)`)).join(', ')}; instances with conflicting rows read`
      : 'every instance the range names read and checked';
    const explain = { ...explanation(prepared, 'none', counters), counted };
    return tally.result(explain, fromRows ? 'index' : 'instances');
  }

  /**
   * A count from the rows of the fields it needs (rowCountPlan), an instance's values read from its rows'
   * keys. An instance whose rows do not say its values for sure is read and checked like a search's: one
   * with two rows of a single-valued field or of `updatedAt` (a later save made one stale and has not had
   * a successor to remove it with, or a crash left rows of a save that never happened), rows of
   * different incarnations, or a value the key does not hold exactly (a long string).
   */
  private async countFromRows(prepared: Prepared, plan: RowCountPlan, tally: Tally, options: OperationOptions, counters: Counters): Promise<void> {
    const seen = new Map<string, RowsOfInstance>();
    for (const scan of plan.scans) {
      const field = prepared.fields.get(scan.field)!;
      const range = scan.whole ? { from: `${field.name}${SEPARATOR}`, to: `${field.name}${AFTER_SEPARATOR}` } : prepared.plan.range;
      let token: string | undefined;
      do {
        const page = await this.ports.search!.scan(prepared.workflowId, range, { ...options, maxPageSize: 1000, continuationToken: token });
        counters.indexPages++;
        counters.indexRows += page.items.length;
        for (const row of page.items) {
          let rows = seen.get(row.instanceId);
          if (!rows) {
            // An instance is counted only if its rows in the range the candidates come from say it exists.
            if (!scan.candidates) continue;
            seen.set(row.instanceId, (rows = { rows: [], values: new Map(), incarnations: new Set(), unsure: false }));
          }
          rows.rows.push(row);
          rows.incarnations.add(row.incarnation);
          const segment = row.entry.slice(field.name.length + 1);
          const value = decodeSegment(field.type, segment);
          const held = rows.values.get(field.name) ?? [];
          if (value === undefined || (field.type !== 'keyword' && held.length > 0)) rows.unsure = true;
          if (value !== undefined) rows.values.set(field.name, [...held, value]);
        }
        token = page.continuationToken;
      } while (token);
    }
    const unsure: [string, RowsOfInstance][] = [];
    for (const [instanceId, rows] of seen) {
      if (rows.unsure || rows.incarnations.size > 1) {
        unsure.push([instanceId, rows]);
        continue;
      }
      if (prepared.filter && !matchesFilter(prepared.filter, rows.values, prepared.fields, prepared.workflowId)) continue;
      tally.add(rows.values);
    }
    const checked = await this.checkAll(
      prepared,
      unsure.map(([instanceId, rows]) => [instanceId, rows.rows] as const),
      options,
      counters,
    );
    for (const match of checked) if (match) tally.add(match.values);
  }

  private async prepare(workflowId: string, filter: string | undefined, preferField: string | undefined, options: OperationOptions): Promise<Prepared> {
    if (!this.ports.search) throw new ValidationError('This host keeps no search index', [{ path: 'filter', message: 'searching needs the search index' }]);
    const workflow = await this.latest(workflowId, options);
    if (!workflow) throw new NotFoundError(`Workflow "${workflowId}" does not exist`);
    const fields = searchFieldsOf(workflow.definition.indexes);
    const node = filter === undefined || filter.trim() === '' ? undefined : parseFilter(filter);
    if (node) checkFilter(node, fields, { sensitiveSearchable: this.hmacKey !== undefined && this.hmacKey !== '' });
    const plan = await planSearch(node, fields, this.hmacKey, preferField);
    return { workflowId, fields, ...(node ? { filter: node } : {}), plan };
  }

  /** One page of the plan's range, its rows' instances read and checked. */
  private async scanPage(
    prepared: Prepared,
    options: PageOptions,
    counters: Counters,
  ): Promise<{ matches: { instance: StoredInstance; values: ReadonlyMap<string, readonly IndexValue[]> }[]; continuationToken?: string }> {
    const page = await this.ports.search!.scan(prepared.workflowId, prepared.plan.range, options);
    counters.indexPages++;
    counters.indexRows += page.items.length;
    // A keyword's several values are several rows of one instance (and a row an earlier incarnation left
    // may sit beside the current one's): each instance is read once, with the rows that named it.
    const rows = new Map<string, SearchRow[]>();
    for (const row of page.items) rows.set(row.instanceId, [...(rows.get(row.instanceId) ?? []), row]);
    const checked = await this.checkAll(prepared, [...rows.entries()], options, counters);
    const matches = checked.filter((match) => match !== undefined);
    return { matches, ...(page.continuationToken ? { continuationToken: page.continuationToken } : {}) };
  }

  /** Reads and checks the instances, at most READ_CONCURRENCY at a time; then the rows found not to hold are repaired. */
  private async checkAll(prepared: Prepared, candidates: readonly (readonly [string, readonly SearchRow[]])[], options: OperationOptions, counters: Counters): Promise<(Match | undefined)[]> {
    const checked: (Match | undefined)[] = new Array(candidates.length);
    const orphans: SearchRow[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < candidates.length) {
        const index = next++;
        const [instanceId, rows] = candidates[index]!;
        counters.instanceReads++;
        const instance = await this.ports.instances.get(instanceId, options);
        orphans.push(...rowsNotHeld(rows, instance, prepared.workflowId));
        checked[index] = await this.check(prepared, instance, rows, options);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, candidates.length) }, worker));
    if (orphans.length > 0 && this.repair) await this.repair(prepared.workflowId, orphans, options);
    return checked;
  }

  private async check(prepared: Prepared, instance: StoredInstance | undefined, rows: readonly SearchRow[], options: OperationOptions): Promise<Match | undefined> {
    if (!instance || instance.deleting || instance.workflowId !== prepared.workflowId || !rows.some((row) => row.incarnation === instance.incarnation)) return undefined;
    const definition: WorkflowDefinition = (await this.versions.get(instance.workflowId, instance.workflowVersion, options)).definition;
    const { values } = await searchValuesOf(definition, instance);
    // Fields this version does not declare have no value for it (the latest version's fields are asked).
    const known = new Map([...values].filter(([name]) => prepared.fields.has(name)));
    if (prepared.filter && !matchesFilter(prepared.filter, known, prepared.fields, prepared.workflowId)) return undefined;
    return { instance, values: known };
  }
}

function parseOrderBy(orderBy: string | undefined): { field: string; direction: 'asc' | 'desc' } | undefined {
  if (orderBy === undefined || orderBy.trim() === '') return undefined;
  const match = /^\s*([A-Za-z][A-Za-z0-9_]*)(?:\s+(asc|desc))?\s*$/.exec(orderBy);
  if (!match) throw filterError('orderBy', 1, 'expected a field name, optionally followed by asc or desc');
  return { field: match[1]!, direction: (match[2] as 'asc' | 'desc' | undefined) ?? 'asc' };
}

function encodeToken(value: SortedToken | StreamToken): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function decodeToken<T>(token: string, isValid: (value: unknown) => boolean): T {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof value === 'object' && value !== null && isValid(value)) return value as T;
  } catch {
    // refused below
  }
  throw new ValidationError('The continuation token is invalid', [{ path: 'continuationToken', message: 'not a token of this search (the filter and order must stay the same)' }]);
}
