/** @module The search index in memory: rows by workflow and `field!value!instance` key, in key order. */
import type { OperationOptions, Page, PageOptions } from '../../engine/ports';
import type { ClaimVerdict, KeyClaim, SearchIndexStore, SearchIndexWrite, SearchRange, SearchRow } from '../../engine/search';
import { pageOf } from './paging';

/** As the table store: a claim that keeps changing while it is judged is answered with its last holder. */
const MAX_CLAIM_ATTEMPTS = 10;

export class InMemorySearchIndex implements SearchIndexStore {
  private readonly rows = new Map<string, Map<string, { instanceId: string; entry: string; incarnation?: string; writtenAt: string; etag: string }>>();
  /** Each write of a row gives it a new version, as the table's ETag. */
  private version = 0;
  /** Each claim with a version, replaced only over the version read (as the table's ETag). */
  private readonly claims = new Map<string, { claim: KeyClaim; version: number }>();
  /** Calls of write (each would be one batch). */
  writes = 0;

  /** `now` stamps each row's `writtenAt`, as the table's Timestamp does. */
  constructor(private readonly options: { readonly now?: () => Date } = {}) {}

  async write(workflowId: string, instanceId: string, write: SearchIndexWrite, _options?: OperationOptions): Promise<void> {
    this.writes++;
    let partition = this.rows.get(workflowId);
    if (!partition) this.rows.set(workflowId, (partition = new Map()));
    const writtenAt = (this.options.now?.() ?? new Date()).toISOString();
    for (const entry of write.add)
      partition.set(`${entry}!${instanceId}`, { instanceId, entry, ...(write.incarnation !== undefined ? { incarnation: write.incarnation } : {}), writtenAt, etag: `v${++this.version}` });
    for (const entry of write.remove) partition.delete(`${entry}!${instanceId}`);
  }

  async removeUnchanged(workflowId: string, instanceId: string, rows: readonly { readonly entry: string; readonly etag: string }[]): Promise<void> {
    const partition = this.rows.get(workflowId);
    for (const { entry, etag } of rows) if (partition?.get(`${entry}!${instanceId}`)?.etag === etag) partition.delete(`${entry}!${instanceId}`);
  }

  async scan(workflowId: string, range: SearchRange, options?: PageOptions): Promise<Page<SearchRow>> {
    const partition = this.rows.get(workflowId) ?? new Map();
    const keys = [...partition.keys()].filter((key) => key >= range.from && key < range.to).sort();
    return pageOf(
      keys.map((key) => partition.get(key)!),
      options,
    );
  }

  async claimBusinessKey(workflowId: string, businessKey: string, claimant: KeyClaim, judge: (current: KeyClaim) => Promise<ClaimVerdict>): Promise<KeyClaim | undefined> {
    const key = `${workflowId}|${businessKey}`;
    let last: KeyClaim | undefined;
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const found = this.claims.get(key);
      if (!found) {
        this.claims.set(key, { claim: claimant, version: ++this.version });
        return undefined;
      }
      last = found.claim;
      const verdict = await judge(found.claim);
      if (verdict === 'held') return found.claim;
      if (verdict === 'retry') continue;
      // Taken over only if nobody changed it while it was judged.
      if (this.claims.get(key)?.version !== found.version) continue;
      this.claims.set(key, { claim: claimant, version: ++this.version });
      return undefined;
    }
    return last;
  }

  async releaseBusinessKey(workflowId: string, businessKey: string, instanceId: string, options: OperationOptions & { token?: string } = {}): Promise<void> {
    const key = `${workflowId}|${businessKey}`;
    const claim = this.claims.get(key)?.claim;
    if (claim?.instanceId === instanceId && (options.token === undefined || claim.token === options.token)) this.claims.delete(key);
  }

  /** The claim of a key as it stands (tests). */
  claimOf(workflowId: string, businessKey: string): KeyClaim | undefined {
    return this.claims.get(`${workflowId}|${businessKey}`)?.claim;
  }

  /** Entry keys held for an instance (tests). */
  entriesOf(workflowId: string, instanceId: string): string[] {
    return [...(this.rows.get(workflowId)?.values() ?? [])]
      .filter((row) => row.instanceId === instanceId)
      .map((row) => row.entry)
      .sort();
  }
}
