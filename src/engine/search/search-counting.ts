/**
 * @module Counting from the index rows alone, where that is sure (search-types.ts; instance-search.ts reads
 * the rows): which fields' rows a count reads, the tally per group, and the explanation of the plan.
 */
import { conditionsOf } from './query-language';
import type { SearchField } from '../definition/search-indexes';
import type { IndexValue } from './encoding';
import type { Counters, CountResult, Prepared, SearchExplanation } from './search-types';

/** A field whose rows a count reads: all of them (`whole`), or only the plan's range; `candidates`: its rows name the instances counted. */
export interface RowScan {
  readonly field: string;
  readonly whole: boolean;
  readonly candidates: boolean;
}

export interface RowCountPlan {
  readonly scans: readonly RowScan[];
}

/** Fields whose value is always there (a lone row of them is never a stale one). */
export const ALWAYS_HELD = new Set(['stateId', 'status', 'createdAt', 'updatedAt']);

/**
 * Whether a count can be made from the rows, and which: the plan's range (the instances counted) and
 * every row of the other fields the filter and the grouping name; with a field whose value can go away
 * (a declared one, the parent, the business key), the `updatedAt` rows too, since a lone stale row of
 * such a field looks like a value, and an instance with two `updatedAt` rows is one whose last save's
 * stale rows are still there (it is read). Not from rows: a filter on a sensitive field (its rows hold
 * hashes), or a selective equality without grouping (reading its few instances is cheaper).
 */
export function rowCountPlan(prepared: Prepared, group: SearchField | undefined): RowCountPlan | undefined {
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
export class Tally {
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

export function explanation(prepared: Prepared, order: string, counters: Counters): SearchExplanation {
  return {
    index: { field: prepared.plan.field, condition: prepared.plan.condition, from: prepared.plan.range.from, to: prepared.plan.range.to },
    filter: prepared.filter ? 'the whole filter, on every instance read' : null,
    order,
    storageRequests: { ...counters, total: counters.indexPages + counters.instanceReads },
  };
}
