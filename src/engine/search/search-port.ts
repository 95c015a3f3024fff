/**
 * @module The port of the search index: rows keyed `field!value!instance` in one partition per
 * workflow, so that every row an instance's save writes or removes is one batch (one request), and a
 * range of values of a field is one partition range scan. Invariant, as for the interest index: a
 * superset of the truth (rows added before the save that makes them true; rows a save made stale are
 * removed with the next save's batch, or right after a save that ends the instance). Queries check
 * every row against the instance as read.
 */
import type { WorkflowVersion } from '../definition/definition';
import type { OperationOptions, Page, PageOptions } from '../ports/ports';

/** One row read by a scan. */
export interface SearchRow {
  /** `field!segment` (encoding.ts). */
  readonly entry: string;
  readonly instanceId: string;
  /** The incarnation that wrote the row: a row of an earlier instance with the id is not the current one's. */
  readonly incarnation?: string;
  /** When the row was last written (ISO 8601, the store's clock), where the store tells it. */
  readonly writtenAt?: string;
  /** The row's version as read: removeUnchanged removes it only if nothing wrote it since. */
  readonly etag?: string;
}

export interface SearchIndexWrite {
  /** Entry keys to write (upserts: writing a row twice is harmless). */
  readonly add: readonly string[];
  /** Entry keys to remove (rows already gone are fine). */
  readonly remove: readonly string[];
  readonly incarnation?: string;
}

/** A range of entry keys, `from` inclusive, `to` exclusive. */
export interface SearchRange {
  readonly from: string;
  readonly to: string;
}

export interface SearchIndexStore {
  /** Adds and removes the instance's rows: one batch when they fit in one (at most 100 rows). */
  write(workflowId: string, instanceId: string, write: SearchIndexWrite, options?: OperationOptions): Promise<void>;
  /**
   * Removes each row only if it is still the version `etag` names: a row written again since (another
   * creation with the id rewrote it) or already gone is left. One request per row.
   */
  removeUnchanged(workflowId: string, instanceId: string, rows: readonly { readonly entry: string; readonly etag: string }[], options?: OperationOptions): Promise<void>;
  /** A page of the rows in `range`, in key order (value order, then instance id). */
  scan(workflowId: string, range: SearchRange, options?: PageOptions): Promise<Page<SearchRow>>;
  /**
   * Claims `businessKey` for `claimant` (a unique business key, a `flow.unique` key): returns the claim that
   * holds it when `judge` says its holder still does, else undefined (the claim is the claimant's now). A claim
   * found is replaced only on its ETag, after `judge` said `free` (admission/key-claims.ts), so two creators
   * never both take it; `retry` reads it again.
   */
  claimBusinessKey(workflowId: string, businessKey: string, claimant: KeyClaim, judge: (current: KeyClaim) => Promise<ClaimVerdict>, options?: OperationOptions): Promise<KeyClaim | undefined>;
  /** Releases the claim if the instance holds it (and, given `token`, only the claim with that token). */
  releaseBusinessKey(workflowId: string, businessKey: string, instanceId: string, options?: OperationOptions & { token?: string }): Promise<void>;
}

/**
 * A key's claim: the instance it is for, the token its creation writes in the same transaction as the
 * instance (so that a claim taken over can fence a creation still in flight), and when it was made.
 * Claims written before tokens existed have neither.
 */
export interface KeyClaim {
  readonly instanceId: string;
  readonly token?: string;
  readonly claimedAt?: string;
}

/** What the claimant makes of a claim found: its holder still holds it, it may be taken over, or look again. */
export type ClaimVerdict = 'held' | 'free' | 'retry';

/** Where the search finds an instance's version (the runtime's version cache). */
export interface WorkflowVersions {
  get(workflowId: string, version: number, options?: OperationOptions): Promise<WorkflowVersion>;
}
