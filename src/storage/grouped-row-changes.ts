/**
 * @module Row puts and deletes into one partition written together (group commit), as grouped-upserts.ts
 * does for upserts alone: changes made in the same turn of the event loop go out together, and changes
 * that arrive while a write to their partition is in flight wait for it and then go out together, one
 * entity-group transaction each (up to 100 changes, one partition). Each caller's promise settles when its
 * own change is stored. Changes to one partition are written in the order they were made (a group stops
 * at a row key already in it: one action per entity), so a delete and a later put of the same row end
 * with the row there.
 *
 * Why: the interest index keeps a row per (subject, instance), partitioned by subject. One instance's
 * changes fall in different partitions, but instances changing state at the same time in one process
 * change the same subjects' partitions (a trigger name is a subject every instance waiting for it holds):
 * 16 clients' Submits shared about half their interest rows' requests (docs/performance.md).
 *
 * A delete of a row that is not there succeeds (the callers' writes are idempotent). A transaction fails
 * as a whole (a delete of a missing row fails it on Table Storage), so a failed group is written again
 * change by change, each failing its own caller only.
 */
import type { TableClient, TransactionAction } from '@azure/data-tables';
import { isEntityNotFound } from './errors';
import { PartitionGroups, type Waiting } from './partition-groups';
import { submitTransaction } from './table-transaction';

/** Table Storage's limit of operations in one entity-group transaction. */
const MAX_CHANGES_PER_TRANSACTION = 100;

/** A row with its keys only (the interest index's rows carry nothing else): well under the 4 MiB of a `$batch`. */
export interface KeyRow {
  readonly partitionKey: string;
  readonly rowKey: string;
}

type Change = { readonly kind: 'put' | 'delete'; readonly row: KeyRow };

/** A change and the signal that may abort its own request. */
interface Queued {
  readonly change: Change;
  readonly abortSignal: AbortSignal | undefined;
}

export class GroupedRowChanges {
  private readonly groups = new PartitionGroups<Queued>({
    partitionOf: ({ change }) => change.row.partitionKey,
    rowKeyOf: ({ change }) => change.row.rowKey,
    maxItems: MAX_CHANGES_PER_TRANSACTION,
    write: (group) => this.write(group),
  });

  constructor(private readonly client: TableClient) {}

  /** Stores the row (replacing one of the same keys); settles when it is stored or failed. */
  put(row: KeyRow, options: { readonly abortSignal?: AbortSignal } = {}): Promise<void> {
    return this.enqueue({ kind: 'put', row }, options.abortSignal);
  }

  /** Deletes the row, if it is there; settles when it is gone or failed. */
  delete(row: KeyRow, options: { readonly abortSignal?: AbortSignal } = {}): Promise<void> {
    return this.enqueue({ kind: 'delete', row }, options.abortSignal);
  }

  private enqueue(change: Change, abortSignal: AbortSignal | undefined): Promise<void> {
    return this.groups.add({ change, abortSignal });
  }

  private async write(group: readonly Waiting<Queued>[]): Promise<void> {
    if (group.length > 1) {
      try {
        const actions = group.map(
          ({
            item: {
              change: { kind, row },
            },
          }): TransactionAction => {
            const keys = { partitionKey: row.partitionKey, rowKey: row.rowKey };
            return kind === 'put' ? ['upsert', keys, 'Replace'] : ['delete', keys];
          },
        );
        await submitTransaction(this.client, actions);
        for (const waiting of group) waiting.resolve();
        return;
      } catch {
        // A missing row or one refused change fails the whole transaction: each is written alone below.
      }
    }
    for (const waiting of group) {
      try {
        await this.writeOne(waiting.item);
        waiting.resolve();
      } catch (error) {
        waiting.reject(error);
      }
    }
  }

  private async writeOne({ change, abortSignal }: Queued): Promise<void> {
    const options = abortSignal ? { abortSignal } : {};
    if (change.kind === 'put') {
      await this.client.upsertEntity({ ...change.row }, 'Replace', options);
      return;
    }
    try {
      await this.client.deleteEntity(change.row.partitionKey, change.row.rowKey, options);
    } catch (error) {
      if (!isEntityNotFound(error)) throw error;
    }
  }
}
