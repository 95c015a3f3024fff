/** @module FlowStore in memory: rows per workflow, an ETag per write. */
import { ConflictError, PreconditionFailedError, type JsonObject } from '../../engine/model';
import type { FlowRow, FlowStore } from '../../engine/ports';

export class InMemoryFlowStore implements FlowStore {
  private readonly rows = new Map<string, FlowRow>();
  private counter = 0;
  /** Calls made (reads and writes), for cost tests. */
  requests = 0;

  async getRow(workflowId: string, rowKey: string): Promise<FlowRow | undefined> {
    this.requests++;
    const row = this.rows.get(`${workflowId}\u0000${rowKey}`);
    return row ? structuredClone(row) : undefined;
  }

  async putRow(workflowId: string, rowKey: string, value: JsonObject, options: { ifMatch?: string } = {}): Promise<string> {
    this.requests++;
    const id = `${workflowId}\u0000${rowKey}`;
    const existing = this.rows.get(id);
    if (options.ifMatch === undefined && existing) throw new ConflictError(`Flow row "${rowKey}" exists`);
    if (options.ifMatch !== undefined && existing?.etag !== options.ifMatch) throw new PreconditionFailedError(`Flow row "${rowKey}" has changed`);
    const etag = `"f${++this.counter}"`;
    this.rows.set(id, { rowKey, value: structuredClone(value), etag });
    return etag;
  }

  async listRows(workflowId: string, prefix: string, options: { maxRows?: number } = {}): Promise<FlowRow[]> {
    this.requests++;
    const start = `${workflowId}\u0000${prefix}`;
    return [...this.rows.entries()]
      .filter(([id]) => id.startsWith(start))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, options.maxRows ?? 1000)
      .map(([, row]) => structuredClone(row));
  }
}
