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
import { PartitionGroups, type Waiting } from './partition-groups';
import { submitTransaction } from './table-transaction';

/** Table Storage's limit of operations in one entity-group transaction. */
const MAX_ROWS_PER_TRANSACTION = 100;
/** Table Storage refuses a `$batch` body over 4 MiB; rows are counted as it counts entities (UTF-16), with room left for the multipart framing. */
const MAX_GROUP_BYTES = 2 * 1024 * 1024;

type Row = TableEntity<Record<string, unknown>>;

export interface GroupedUpsertsOptions {
  /** Writes one row alone (the store's own single-row write: a plain request or a one-row transaction). */
  readonly writeOne: (row: Row) => Promise<void>;
}

export class GroupedUpserts {
  private readonly groups: PartitionGroups<Row>;

  constructor(
    private readonly client: TableClient,
    private readonly options: GroupedUpsertsOptions,
  ) {
    this.groups = new PartitionGroups<Row>({
      partitionOf: (row) => row.partitionKey,
      rowKeyOf: (row) => row.rowKey,
      maxItems: MAX_ROWS_PER_TRANSACTION,
      weightOf: entitySizeInBytes,
      maxWeight: MAX_GROUP_BYTES,
      write: (group) => this.write(group),
    });
  }

  /** Stores the row (replacing one of the same keys); settles when it is stored or failed. */
  upsert(row: Row): Promise<void> {
    // Rows put in the same turn of the event loop (a batch's results stored together) join one group.
    return this.groups.add(row);
  }

  private async write(group: readonly Waiting<Row>[]): Promise<void> {
    if (group.length === 1) {
      await this.settle(group[0]!, () => this.options.writeOne(group[0]!.item));
      return;
    }
    try {
      await submitTransaction(
        this.client,
        group.map(({ item }): TransactionAction => ['upsert', item, 'Replace']),
      );
      for (const waiting of group) waiting.resolve();
    } catch {
      // One refused row fails the whole transaction: each is written alone, and fails alone.
      for (const waiting of group) await this.settle(waiting, () => this.options.writeOne(waiting.item));
    }
  }

  private async settle(waiting: Waiting<Row>, write: () => Promise<void>): Promise<void> {
    try {
      await write();
      waiting.resolve();
    } catch (error) {
      waiting.reject(error);
    }
  }
}
