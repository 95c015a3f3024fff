/** @module FlowStore in memory: rows per workflow as stored JSON, an ETag per write, read with their kind's schema. */
import { ConflictError, PreconditionFailedError } from '../../engine/model';
import { parseFlowRow, type FlowRow, type FlowRowKind, type FlowStore } from '../../engine/ports';

interface StoredRow {
  readonly rowKey: string;
  /** The value as the table holds it: JSON text, not the writer's object. */
  readonly json: string;
  readonly etag: string;
}

export class InMemoryFlowStore implements FlowStore {
  private readonly rows = new Map<string, StoredRow>();
  private counter = 0;
  /** Calls made (reads and writes), for cost tests. */
  requests = 0;

  async getRow<Value>(workflowId: string, kind: FlowRowKind<Value>, key: string): Promise<FlowRow<Value> | undefined> {
    this.requests++;
    const row = this.rows.get(`${workflowId}\u0000${kind.prefix}${key}`);
    return row ? parseFlowRow(workflowId, kind, key, JSON.parse(row.json), row.etag) : undefined;
  }

  async putRow<Value>(workflowId: string, kind: FlowRowKind<Value>, key: string, value: Value, options: { ifMatch?: string } = {}): Promise<string> {
    this.requests++;
    return this.write(workflowId, `${kind.prefix}${key}`, JSON.stringify(value), options.ifMatch);
  }

  async listRows<Value>(workflowId: string, kind: FlowRowKind<Value>, prefix: string, options: { maxRows?: number } = {}): Promise<FlowRow<Value>[]> {
    this.requests++;
    const start = `${workflowId}\u0000${kind.prefix}${prefix}`;
    return [...this.rows.entries()]
      .filter(([id]) => id.startsWith(start))
      .map(([id, row]) => [storedOrder(id), row] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, options.maxRows ?? 1000)
      .map(([, row]) => parseFlowRow(workflowId, kind, row.rowKey.slice(kind.prefix.length), JSON.parse(row.json), row.etag));
  }

  /** Stores `json` under the full row key as it is, of no kind (a test's malformed row). Not counted in `requests`. */
  putRawRow(workflowId: string, rowKey: string, json: unknown): string {
    return this.write(workflowId, rowKey, JSON.stringify(json), this.rows.get(`${workflowId}\u0000${rowKey}`)?.etag);
  }

  private write(workflowId: string, rowKey: string, json: string, ifMatch: string | undefined): string {
    const id = `${workflowId}\u0000${rowKey}`;
    const existing = this.rows.get(id);
    if (ifMatch === undefined && existing) throw new ConflictError(`Flow row "${rowKey}" exists`);
    if (ifMatch !== undefined && existing?.etag !== ifMatch) throw new PreconditionFailedError(`Flow row "${rowKey}" has changed`);
    const etag = `"f${++this.counter}"`;
    this.rows.set(id, { rowKey, json, etag });
    return etag;
  }
}

/**
 * The row key as Table Storage orders it: characters of the id alphabet as they are, every other one as
 * `~XX` per UTF-8 byte (src/storage/keys.ts), so a listing here comes in the table's order (`a b` after `az`).
 */
function storedOrder(rowKey: string): string {
  let out = '';
  for (const char of rowKey) {
    if (/^[A-Za-z0-9._:-]$/.test(char)) out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += `~${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
