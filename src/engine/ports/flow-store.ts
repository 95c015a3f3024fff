/**
 * @module The flow-control store: small JSON rows per workflow, changed with ETags, that hold each key's
 * concurrency slots and queue, run-time limit overrides, state capacity and the overrides' audit
 * (src/engine/admission/). Every row is of one KIND (admission/flow-rows.ts): a row-key prefix and the zod
 * schema of its value. A read parses the stored value with its kind's schema, a write takes the kind's typed
 * value. Implemented on one table (src/storage/table-flow-store.ts: a partition per workflow) and in memory;
 * both pass one contract suite (test/storage/contracts/flow-store.contract.ts).
 */
import type { z } from 'zod';
import { StorageError } from '../model/errors';
import type { OperationOptions } from './ports';

/** One kind of row: where its rows live (`prefix` + a key within the kind) and what their value is. */
export interface FlowRowKind<Value> {
  /** Names the kind in errors (`concurrency slots`). */
  readonly name: string;
  /** Every stored row key of the kind starts with it; no kind's prefix starts another's. */
  readonly prefix: string;
  /** The value as stored: a read that does not match it is a MalformedFlowRowError. */
  readonly schema: z.ZodType<Value>;
}

export interface FlowRow<Value> {
  /** The row's key within its kind (the stored row key without the kind's prefix). */
  readonly key: string;
  readonly value: Value;
  /** Opaque; changes with every write. */
  readonly etag: string;
}

export interface FlowStore {
  /** The row, or undefined when absent; MalformedFlowRowError when the stored value is not of the kind. */
  getRow<Value>(workflowId: string, kind: FlowRowKind<Value>, key: string, options?: OperationOptions): Promise<FlowRow<Value> | undefined>;
  /**
   * Writes the row: with `ifMatch`, only over that version (else PreconditionFailedError); without, only
   * when absent (else ConflictError). Returns the new ETag.
   */
  putRow<Value>(workflowId: string, kind: FlowRowKind<Value>, key: string, value: Value, options?: OperationOptions & { ifMatch?: string }): Promise<string>;
  /** The kind's rows whose key starts with `prefix`, in key order, at most `maxRows` (1000 when absent). */
  listRows<Value>(workflowId: string, kind: FlowRowKind<Value>, prefix: string, options?: OperationOptions & { maxRows?: number }): Promise<FlowRow<Value>[]>;
}

/** A stored flow row that is not of its kind (written by hand, or by a version of Signalbox that knew another shape). */
export class MalformedFlowRowError extends StorageError {
  constructor(
    readonly workflowId: string,
    readonly rowKey: string,
    readonly issues: readonly string[],
  ) {
    super(`Flow row "${rowKey}" of workflow "${workflowId}" is malformed: ${issues.join('; ')}`, undefined, false);
  }
}

/**
 * The stored value `json` of the row `key` of `kind`, parsed with the kind's schema (both stores read with
 * it, so they answer a malformed row the same way). A malformed row is an error, not an absent row: read as
 * absent, a slots row would lose its holders (the limit exceeded) and its waiters (triggers lost), and a
 * create-only write over it would conflict on every attempt.
 */
export function parseFlowRow<Value>(workflowId: string, kind: FlowRowKind<Value>, key: string, json: unknown, etag: string): FlowRow<Value> {
  const parsed = kind.schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.length ? issue.path.join('.') : '(the row)'}: ${issue.message}`);
    throw new MalformedFlowRowError(workflowId, `${kind.prefix}${key}`, [`not ${kind.name}`, ...issues]);
  }
  return { key, value: parsed.data, etag };
}
