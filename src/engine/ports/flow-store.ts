/**
 * @module The flow-control store: small JSON rows per workflow, changed with ETags, that hold each key's
 * concurrency slots and queue, run-time limit overrides and their audit (admission/concurrency-slots.ts).
 * Implemented on one table (src/storage/table-flow-store.ts: a partition per workflow) and in memory.
 */
import type { JsonObject } from '../model/json';
import type { OperationOptions } from './ports';

export interface FlowRow {
  readonly rowKey: string;
  readonly value: JsonObject;
  /** Opaque; changes with every write. */
  readonly etag: string;
}

export interface FlowStore {
  /** The row, or undefined when absent. */
  getRow(workflowId: string, rowKey: string, options?: OperationOptions): Promise<FlowRow | undefined>;
  /**
   * Writes the row: with `ifMatch`, only over that version (else PreconditionFailedError); without, only
   * when absent (else ConflictError). Returns the new ETag.
   */
  putRow(workflowId: string, rowKey: string, value: JsonObject, options?: OperationOptions & { ifMatch?: string }): Promise<string>;
  /** Rows whose key starts with `prefix`, in key order, at most `maxRows`. */
  listRows(workflowId: string, prefix: string, options?: OperationOptions & { maxRows?: number }): Promise<FlowRow[]>;
}
