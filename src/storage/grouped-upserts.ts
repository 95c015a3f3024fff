/**
 * @module Upserts into one partition written together (group commit): rows put in the same turn of the
 * event loop go out together, and rows that arrive while a write to their partition is in flight wait for
 * it and then go out together, as one entity-group transaction each (up to 100 rows, one partition, as
 * Table Storage allows). Each caller's promise settles when its own row is stored, so nothing is
 * acknowledged before it is written, and a lone writer waits no longer than a microtask.
 *
 * Why: an operation's fan-out writes a result row per instance (OperationStore.putResult). One request
 * each made a broadcast to 300 instances 14% slower than before result rows existed; a transaction costs
 * Azurite and Table Storage about what one entity request costs. The local runner stores a batch's
 * results together after the batch (one transaction per 100 rows); on Azure, activities running at the
 * same time in one worker share transactions.
 *
 * A transaction fails as a whole, so a failed group is written again row by row: one row the service
 * refuses fails its own caller only.
 */
import type { TableClient, TableEntity, TransactionAction } from '@azure/data-tables';
import { entitySizeInBytes } from './entity-body';
import { submitTransaction } from './table-transaction';

/** Table Storage's limit of operations in one entity-group transaction. */
const MAX_ROWS_PER_TRANSACTION = 100;
/** Table Storage refuses a `$batch` body over 4 MiB; rows are counted as it counts entities (UTF-16), with room left for the multipart framing. */
const MAX_GROUP_BYTES = 2 * 1024 * 1024;

type Row = TableEntity<Record<string, unknown>>;

interface Waiting {
  readonly row: Row;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export interface GroupedUpsertsOptions {
  /** Writes one row alone (the store's own single-row write: a plain request or a one-row transaction). */
  readonly writeOne: (row: Row) => Promise<void>;
}

export class GroupedUpserts {
  /** Rows waiting to be written; a partition is here from its first row put until its queue is written empty. */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(
    private readonly client: TableClient,
    private readonly options: GroupedUpsertsOptions,
  ) {}

  /** Stores the row (replacing one of the same keys); settles when it is stored or failed. */
  upsert(row: Row): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const queue = this.waiting.get(row.partitionKey);
      if (queue) {
        queue.push({ row, resolve, reject });
        return;
      }
      // Rows put in the same turn of the event loop (a batch's results stored together) join this one.
      this.waiting.set(row.partitionKey, [{ row, resolve, reject }]);
      queueMicrotask(() => void this.drain(row.partitionKey));
    });
  }

  /** Writes what waits, group after group, including what arrives meanwhile, until nothing waits. */
  private async drain(partitionKey: string): Promise<void> {
    let group: Waiting[] = [];
    try {
      group = this.nextGroup(partitionKey);
      while (group.length > 0) {
        await this.write(group);
        group = this.nextGroup(partitionKey);
      }
    } catch (error) {
      // Not a storage answer (those settle each caller): whatever waits fails rather than waiting forever.
      for (const waiting of [...group, ...(this.waiting.get(partitionKey) ?? [])]) waiting.reject(error);
    } finally {
      this.waiting.delete(partitionKey);
    }
  }

  /** Takes the next group from the queue: up to the limits, and stops at a row key already in it (one action per entity). */
  private nextGroup(partitionKey: string): Waiting[] {
    const queue = this.waiting.get(partitionKey) ?? [];
    const rowKeys = new Set<string>();
    let bytes = 0;
    let taken = 0;
    for (const { row } of queue) {
      const size = entitySizeInBytes(row);
      if (taken === MAX_ROWS_PER_TRANSACTION || rowKeys.has(row.rowKey) || (taken > 0 && bytes + size > MAX_GROUP_BYTES)) break;
      rowKeys.add(row.rowKey);
      bytes += size;
      taken += 1;
    }
    return queue.splice(0, taken);
  }

  private async write(group: readonly Waiting[]): Promise<void> {
    if (group.length === 1) {
      await this.settle(group[0]!, () => this.options.writeOne(group[0]!.row));
      return;
    }
    try {
      await submitTransaction(
        this.client,
        group.map(({ row }): TransactionAction => ['upsert', row, 'Replace']),
      );
      for (const waiting of group) waiting.resolve();
    } catch {
      // One refused row fails the whole transaction: each is written alone, and fails alone.
      for (const waiting of group) await this.settle(waiting, () => this.options.writeOne(waiting.row));
    }
  }

  private async settle(waiting: Waiting, write: () => Promise<void>): Promise<void> {
    try {
      await write();
      waiting.resolve();
    } catch (error) {
      waiting.reject(error);
    }
  }
}
