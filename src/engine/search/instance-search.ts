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
import type { InstanceStore, OperationOptions, Page, PageOptions } from '../ports/ports';
import type { WorkflowVersions } from './search-port';
import { compareValues, checkFilter, planSearch, matchesFilter, type IndexPlan } from './query-plan';
import { filterError, parseFilter, type FilterNode } from './query-language';
import { searchFieldsOf, type SearchField } from '../definition/search-indexes';
import type { IndexValue } from './encoding';
import type { SearchIndexStore } from './search-port';
import { searchValuesOf } from './search-values';

/** Instance reads in flight per page. */
const READ_CONCURRENCY = 32;
/** Matches a search sorts in memory (an `orderBy` its index range does not give): past it, a 400. */
export const MAX_ORDERED_MATCHES = 5000;

export interface SearchRequest {
  readonly workflowId: string;
  readonly filter?: string;
  /** `field` or `field asc|desc`. */
  readonly orderBy?: string;
}

export interface CountRequest {
  readonly workflowId: string;
  readonly filter?: string;
  /** `stateId`, `status`, or a keyword (or string) index. */
  readonly groupBy?: string;
}

/** What a search did: its plan and the storage requests it made. */
export interface SearchExplanation {
  readonly index: { readonly field: string; readonly condition: string; readonly from: string; readonly to: string };
  /** Conditions checked on the instances read (all of them, always: the index is a superset). */
  readonly filter: string | null;
  readonly order: string;
  readonly storageRequests: { readonly indexPages: number; readonly indexRows: number; readonly instanceReads: number; readonly total: number };
}

export interface SearchPage extends Page<StoredInstance> {
  readonly explain: SearchExplanation;
}

export interface CountResult {
  readonly count: number;
  readonly groups?: readonly { readonly key: IndexValue | null; readonly count: number }[];
  readonly explain: SearchExplanation;
}

interface Prepared {
  readonly workflowId: string;
  readonly fields: ReadonlyMap<string, SearchField>;
  readonly filter?: FilterNode;
  readonly plan: IndexPlan;
}

interface Counters {
  indexPages: number;
  indexRows: number;
  instanceReads: number;
}

interface SortedToken {
  readonly o: number;
}
interface StreamToken {
  readonly t: string;
}

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
    const size = Math.min(Math.max(options.maxPageSize ?? 100, 1), 1000);
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
    let count = 0;
    const groups = new Map<string, { key: IndexValue | null; count: number }>();
    let token: string | undefined;
    do {
      const page = await this.scanPage(prepared, { ...options, maxPageSize: 1000, continuationToken: token }, counters);
      count += page.matches.length;
      if (group) {
        for (const match of page.matches) {
          const keys: (IndexValue | null)[] = [...(match.values.get(group.name) ?? [])];
          for (const key of keys.length ? keys : [null]) {
            const id = JSON.stringify(key);
            const entry = groups.get(id) ?? { key, count: 0 };
            entry.count++;
            groups.set(id, entry);
          }
        }
      }
      token = page.continuationToken;
    } while (token);
    const explain = explanation(prepared, 'none', counters);
    if (!group) return { count, explain };
    return { count, groups: [...groups.values()].sort((a, b) => b.count - a.count || String(a.key).localeCompare(String(b.key))), explain };
  }

  private async prepare(workflowId: string, filter: string | undefined, preferField: string | undefined, options: OperationOptions): Promise<Prepared> {
    if (!this.ports.search) throw new ValidationError('This host keeps no search index', [{ path: 'filter', message: 'searching needs the search index' }]);
    const workflow = await this.latest(workflowId, options);
    if (!workflow) throw new NotFoundError(`Workflow "${workflowId}" does not exist`);
    const fields = searchFieldsOf(workflow.definition.indexes);
    const node = filter === undefined || filter.trim() === '' ? undefined : parseFilter(filter);
    if (node) checkFilter(node, fields);
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
    // may sit beside the current one's): each instance is read once, with the incarnations its rows name.
    const rows = new Map<string, Set<string | undefined>>();
    for (const row of page.items) rows.set(row.instanceId, (rows.get(row.instanceId) ?? new Set()).add(row.incarnation));
    const candidates = [...rows.entries()];
    const checked: ({ instance: StoredInstance; values: ReadonlyMap<string, readonly IndexValue[]> } | undefined)[] = new Array(candidates.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < candidates.length) {
        const index = next++;
        checked[index] = await this.check(prepared, candidates[index]!, options, counters);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, candidates.length) }, worker));
    const matches = checked.filter((match) => match !== undefined);
    return { matches, ...(page.continuationToken ? { continuationToken: page.continuationToken } : {}) };
  }

  private async check(
    prepared: Prepared,
    [instanceId, incarnations]: [string, Set<string | undefined>],
    options: OperationOptions,
    counters: Counters,
  ): Promise<{ instance: StoredInstance; values: ReadonlyMap<string, readonly IndexValue[]> } | undefined> {
    counters.instanceReads++;
    const instance = await this.ports.instances.get(instanceId, options);
    if (!instance || instance.deleting || instance.workflowId !== prepared.workflowId || !incarnations.has(instance.incarnation)) return undefined;
    const definition: WorkflowDefinition = (await this.versions.get(instance.workflowId, instance.workflowVersion, options)).definition;
    const { values } = await searchValuesOf(definition, instance);
    // Fields this version does not declare have no value for it (the latest version's fields are asked).
    const known = new Map([...values].filter(([name]) => prepared.fields.has(name)));
    if (prepared.filter && !matchesFilter(prepared.filter, known, prepared.fields, prepared.workflowId)) return undefined;
    return { instance, values: known };
  }
}

function explanation(prepared: Prepared, order: string, counters: Counters): SearchExplanation {
  return {
    index: { field: prepared.plan.field, condition: prepared.plan.condition, from: prepared.plan.range.from, to: prepared.plan.range.to },
    filter: prepared.filter ? 'the whole filter, on every instance read' : null,
    order,
    storageRequests: { ...counters, total: counters.indexPages + counters.instanceReads },
  };
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
