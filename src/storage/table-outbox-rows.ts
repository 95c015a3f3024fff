/**
 * @module The outbox rows of instances' partitions on Azure Table Storage (the `o-` rows): listing one
 * instance's, scanning every instance's at start-up, and deleting them once relayed. The instance store's
 * save writes them with the instance (instance-rows.ts); TableInstanceStore's OutboxStore methods delegate here.
 */
import { odata, type TableClient, type TransactionAction } from '@azure/data-tables';
import type { OutboxRow, StoredOutboxRow } from '../engine/model';
import type { OperationOptions, Page, PageOptions } from '../engine/ports';
import { pagedList, type PagedAsyncIterable } from '../engine/ports';
import { parseBody } from './entity-body';
import { isEntityNotFound, toSignalboxError } from './errors';
import { outboxRowKey, OUTBOX_ROW_PREFIX } from './instance-rows';
import { decodeKey, encodeKey } from './keys';
import { queryPage } from './table-query';
import { submitTransaction } from './table-transaction';

export class TableOutboxRows {
  constructor(private readonly client: TableClient) {}

  /** The instance's outbox rows: a range query on its `o-` rows (one request). */
  async listOutbox(instanceId: string, options: OperationOptions = {}): Promise<OutboxRow[]> {
    const partitionKey = encodeKey(instanceId, 'instance id');
    const filter = odata`PartitionKey eq ${partitionKey} and RowKey ge ${OUTBOX_ROW_PREFIX} and RowKey lt ${'o.'}`;
    const rows: OutboxRow[] = [];
    const list = pagedList((page) => queryPage(this.client, filter, page, (row) => parseBody<OutboxRow>(row), `outbox of instance "${instanceId}"`), { ...options, maxPageSize: 1000 });
    for await (const row of list) rows.push(row);
    return rows;
  }

  /** Outbox rows of every instance: a scan of the table for `o-` rows (start-up only). */
  listAllOutbox(options: PageOptions = {}): PagedAsyncIterable<StoredOutboxRow> {
    return pagedList((page) => this.listAllOutboxPage(page), options);
  }

  private async listAllOutboxPage(options: PageOptions = {}): Promise<Page<StoredOutboxRow>> {
    const filter = odata`RowKey ge ${OUTBOX_ROW_PREFIX} and RowKey lt ${'o.'}`;
    return queryPage(this.client, filter, options, (row) => ({ instanceId: decodeKey(String(row.partitionKey)), row: parseBody<OutboxRow>(row) }), 'outbox rows');
  }

  /**
   * One transaction of deletes (rows of one partition); rows already gone are fine. A single row (the
   * common case: one raised trigger) is a plain DELETE: it has no body, so Azurite's body bug cannot
   * touch it, and it is lighter than a one-entity `$batch`.
   */
  async deleteOutbox(instanceId: string, rowIds: readonly string[], options: OperationOptions = {}): Promise<void> {
    const partitionKey = encodeKey(instanceId, 'instance id');
    const unique = [...new Set(rowIds)];
    for (let start = 0; start < unique.length; start += 100) {
      const chunk = unique.slice(start, start + 100);
      if (chunk.length === 1) {
        try {
          await this.client.deleteEntity(partitionKey, outboxRowKey(chunk[0]!), { abortSignal: options.abortSignal });
        } catch (single) {
          if (!isEntityNotFound(single)) throw toSignalboxError(single, `outbox row "${chunk[0]}" of instance "${instanceId}"`);
        }
        continue;
      }
      try {
        await submitTransaction(
          this.client,
          chunk.map((id) => ['delete', { partitionKey, rowKey: outboxRowKey(id) }] as TransactionAction),
          { abortSignal: options.abortSignal },
        );
      } catch (error) {
        // A transaction fails as a whole when one row is missing (already deleted by an earlier relay):
        // delete one by one then, absorbing exactly "not found".
        if (!isEntityNotFound(error)) throw toSignalboxError(error, `outbox of instance "${instanceId}"`);
        for (const id of chunk) {
          try {
            await this.client.deleteEntity(partitionKey, outboxRowKey(id), { abortSignal: options.abortSignal });
          } catch (single) {
            if (!isEntityNotFound(single)) throw toSignalboxError(single, `outbox row "${id}" of instance "${instanceId}"`);
          }
        }
      }
    }
  }
}
