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
import { conditionsOf, filterError, parseFilter, type FilterNode } from './query-language';
import { searchFieldsOf, type SearchField } from '../definition/search-indexes';
import { AFTER_SEPARATOR, decodeSegment, SEPARATOR, type IndexValue } from './encoding';
import type { SearchIndexStore, SearchRow } from './search-port';
import { searchValuesOf } from './search-values';
import { rowsNotHeld } from './search-indexing';

/** Instance reads in flight per page. */
const READ_CONCURRENCY = 32;
/** Instances on one page of a search (the API's `maxPageSize` is at most this too). */
export const MAX_SEARCH_PAGE_SIZE = 1000;
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
  /** A count's: whether it was made from the index rows or by reading the instances. */
  readonly counted?: string;
}

export interface SearchPage extends Page<StoredInstance> {
  readonly explain: SearchExplanation;
}

export interface CountResult {
  readonly count: number;
  /**
   * `index`: counted from the index rows, which also count an instance being deleted (until its deletion
   * removes its rows) and a creation a crash stopped after writing its rows (until a search meets them);
   * `instances`: every instance counted was read and checked.
   */
  readonly countedFrom: 'index' | 'instances';
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

interface Match {
  readonly instance: StoredInstance;
  readonly values: ReadonlyMap<string, readonly IndexValue[]>;
}

interface RowsOfInstance {
  readonly rows: SearchRow[];
  readonly values: Map<string, IndexValue[]>;
  readonly incarnations: Set<string | undefined>;
  /** The rows do not say the instance's values for sure: it is read. */
  unsure: boolean;
}

/** A field whose rows a count reads: all of them (`whole`), or only the plan's range; `candidates`: its rows name the instances counted. */
interface RowScan {
  readonly field: string;
  readonly whole: boolean;
  readonly candidates: boolean;
}

interface RowCountPlan {
  readonly scans: readonly RowScan[];
}

/** Fields whose value is always there (a lone row of them is never a stale one). */
const ALWAYS_HELD = new Set(['stateId', 'status', 'createdAt', 'updatedAt']);

/**
 * Whether a count can be made from the rows, and which: the plan's range (the instances counted) and
 * every row of the other fields the filter and the grouping name; with a field whose value can go away
 * (a declared one, the parent, the business key), the `updatedAt` rows too, since a lone stale row of
 * such a field looks like a value, and an instance with two `updatedAt` rows is one whose last save's
 * stale rows are still there (it is read). Not from rows: a filter on a sensitive field (its rows hold
 * hashes), or a selective equality without grouping (reading its few instances is cheaper).
 */
function rowCountPlan(prepared: Prepared, group: SearchField | undefined): RowCountPlan | undefined {
  const conditions = prepared.filter ? conditionsOf(prepared.filter).filter((condition) => condition.field !== 'workflowId') : [];
  if (conditions.some((condition) => prepared.fields.get(condition.field)!.sensitive)) return undefined;
  if (!group && prepared.plan.rank <= 2) return undefined;
  const named = new Set([...conditions.map((condition) => condition.field), ...(group ? [group.name] : [])]);
  const scans: RowScan[] = [];
  const ranged = prepared.plan.rank < 6;
  // Every instance has a state: its rows name them all when the count is not narrowed by a range.
  if (ranged) {
    const narrow = conditions.filter((condition) => condition.field === prepared.plan.field).length === 1 && group?.name !== prepared.plan.field;
    scans.push({ field: prepared.plan.field, whole: !narrow, candidates: true });
    // A whole scan of the plan's field names instances outside the range too: only those in it may match (a top-level `and` term).
    if (!narrow) return undefined;
    named.delete(prepared.plan.field);
  } else {
    scans.push({ field: 'stateId', whole: true, candidates: true });
    named.delete('stateId');
  }
  if ([...named, ...scans.map((scan) => scan.field)].some((name) => !ALWAYS_HELD.has(name))) named.add('updatedAt');
  for (const name of named) if (!scans.some((scan) => scan.field === name)) scans.push({ field: name, whole: true, candidates: false });
  return { scans };
}

/** Counts per group (a keyword counts once per value; no value: the `null` group). */
class Tally {
  count = 0;
  private readonly groups = new Map<string, { key: IndexValue | null; count: number }>();
  constructor(private readonly group: SearchField | undefined) {}

  add(values: ReadonlyMap<string, readonly IndexValue[]>): void {
    this.count++;
    if (!this.group) return;
    const keys: (IndexValue | null)[] = [...(values.get(this.group.name) ?? [])];
    for (const key of keys.length ? keys : [null]) {
      const id = JSON.stringify(key);
      const entry = this.groups.get(id) ?? { key, count: 0 };
      entry.count++;
      this.groups.set(id, entry);
    }
  }

  result(explain: SearchExplanation, countedFrom: CountResult['countedFrom']): CountResult {
    if (!this.group) return { count: this.count, countedFrom, explain };
    return {
      count: this.count,
      countedFrom,
      groups: [...this.groups.values()].sort((a, b) => b.count - a.count || String(a.key).localeCompare(String(b.key))),
      explain,
    };
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
