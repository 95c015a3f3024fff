/**
 * @module The one read-change-write loop of the flow rows (concurrency slots, state capacity): read the
 * row, work out its next value, write it only over the version read (or only if still absent), and read
 * again when another writer got there first. Two workers so never both take the last place.
 */
import { ConflictError, PreconditionFailedError, delay } from '../model';
import type { FlowRow, FlowRowKind, FlowStore, OperationOptions } from '../ports';

/** At most this many reads of one row per change: past it the row is taken to be too busy (PreconditionFailedError). */
export const MAX_FLOW_ROW_ATTEMPTS = 50;

/** What a change makes of the row it read: `next` to write (absent: nothing to write), and what the caller gets. */
export interface FlowRowChange<Value, Result> {
  readonly next?: Value;
  readonly result: Result;
}

export interface FlowRowChangeOptions<Value> extends OperationOptions {
  /** Names the row in the error thrown when it keeps changing. */
  readonly what: string;
  /** The pause before attempt `attempt` (2 and up) in ms: none when absent. */
  readonly backoffInMs?: (attempt: number) => number;
  /** The row as the caller read it a moment ago: the first attempt writes over it instead of reading (a 412 reads again). */
  readonly readBefore?: { readonly row: FlowRow<Value> | undefined };
  /** Works out the result on the row as read and writes nothing: a decision's plan (admission-protocol.ts reserves it later). */
  readonly readOnly?: boolean;
}

/** Reads, changes and conditionally writes the row `key` of `kind` until the write lands; returns the change's result. */
export async function changeFlowRow<Value, Result>(
  store: FlowStore,
  workflowId: string,
  kind: FlowRowKind<Value>,
  key: string,
  change: (row: FlowRow<Value> | undefined) => FlowRowChange<Value, Result> | Promise<FlowRowChange<Value, Result>>,
  options: FlowRowChangeOptions<Value>,
): Promise<Result> {
  const { what, backoffInMs, readBefore, readOnly, ...storeOptions } = options;
  for (let attempt = 1; attempt <= MAX_FLOW_ROW_ATTEMPTS; attempt++) {
    if (attempt > 1 && backoffInMs) await delay(backoffInMs(attempt), storeOptions.abortSignal);
    const row = attempt === 1 && readBefore ? readBefore.row : await store.getRow(workflowId, kind, key, storeOptions);
    const { next, result } = await change(row);
    if (next === undefined || readOnly) return result;
    try {
      await store.putRow(workflowId, kind, key, next, { ...storeOptions, ...(row ? { ifMatch: row.etag } : {}) });
      return result;
    } catch (error) {
      if (!(error instanceof PreconditionFailedError || error instanceof ConflictError)) throw error;
    }
  }
  throw new PreconditionFailedError(`${what} kept changing`);
}
