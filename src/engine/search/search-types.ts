/** @module What a search and a count are asked and answer (instance-search.ts), and what they carry between their steps. */
import type { StoredInstance } from '../model/instance';
import type { Page } from '../ports/ports';
import type { IndexPlan } from './query-plan';
import type { FilterNode } from './query-language';
import type { SearchField } from '../definition/search-indexes';
import type { IndexValue } from './encoding';
import type { SearchRow } from './search-port';

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

export interface Prepared {
  readonly workflowId: string;
  readonly fields: ReadonlyMap<string, SearchField>;
  readonly filter?: FilterNode;
  readonly plan: IndexPlan;
}

export interface Counters {
  indexPages: number;
  indexRows: number;
  instanceReads: number;
}

export interface SortedToken {
  readonly o: number;
}
export interface StreamToken {
  readonly t: string;
}

export interface Match {
  readonly instance: StoredInstance;
  readonly values: ReadonlyMap<string, readonly IndexValue[]>;
}

export interface RowsOfInstance {
  readonly rows: SearchRow[];
  readonly values: Map<string, IndexValue[]>;
  readonly incarnations: Set<string | undefined>;
  /** The rows do not say the instance's values for sure: it is read. */
  unsure: boolean;
}
