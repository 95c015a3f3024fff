/** @module The search index in memory: rows by workflow and `field!value!instance` key, in key order. */
import type { OperationOptions, Page, PageOptions } from '../../engine/ports';
import type { SearchIndexStore, SearchIndexWrite, SearchRange, SearchRow } from '../../engine/search';
import { pageOf } from './paging';

export class InMemorySearchIndex implements SearchIndexStore {
  private readonly rows = new Map<string, Map<string, { instanceId: string; entry: string; incarnation?: string; writtenAt: string; etag: string }>>();
  /** Each write of a row gives it a new version, as the table's ETag. */
  private version = 0;
  private readonly claims = new Map<string, string>();
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

  async claimBusinessKey(workflowId: string, businessKey: string, instanceId: string, isHeld: (holder: string) => Promise<boolean>): Promise<string | undefined> {
    const key = `${workflowId}|${businessKey}`;
    const holder = this.claims.get(key);
    if (holder !== undefined && holder !== instanceId && (await isHeld(holder))) return holder;
    this.claims.set(key, instanceId);
    return undefined;
  }

  async releaseBusinessKey(workflowId: string, businessKey: string, instanceId: string): Promise<void> {
    const key = `${workflowId}|${businessKey}`;
    if (this.claims.get(key) === instanceId) this.claims.delete(key);
  }

  /** Entry keys held for an instance (tests). */
  entriesOf(workflowId: string, instanceId: string): string[] {
    return [...(this.rows.get(workflowId)?.values() ?? [])]
      .filter((row) => row.instanceId === instanceId)
      .map((row) => row.entry)
      .sort();
  }
}
