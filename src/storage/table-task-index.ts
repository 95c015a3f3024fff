/**
 * @module The inbox index of human tasks on Azure Table Storage (engine/tasks/task-index.ts). A row per
 * open task and principal: PartitionKey `!inbox!<encoded principal key>` (`user:<id>`, `group:<id>`,
 * `role:<name>`), RowKey the encoded sort key (`<dueAt>|<taskId>`: encoding keeps the order of ISO 8601
 * instants), so one person's inbox is one range query per id, group and role, read in due order, never a
 * scan of all tasks. The rows live in the search table: `!` is in no encoded workflow id, so these
 * partitions never meet the search index's, and no table of their own is needed in the infrastructure.
 * The workflow, state, escalation and candidate filters are column filters of the same range queries.
 */
import { odata, type TableClient, type TransactionAction } from '@azure/data-tables';
import type { OperationOptions } from '../engine/ports';
import { mergeInboxPages, type TaskInboxPage, type TaskInboxQuery, type TaskInboxRow, type TaskIndex } from '../engine/tasks';
import { isEntityNotFound, toSignalboxError, translate } from './errors';
import { encodeKey } from './keys';
import { submitTransaction } from './table-transaction';
import type { TableRow } from './table-query';

const PARTITION_PREFIX = '!inbox!';
const MAX_BATCH = 100;

const partitionOf = (key: string) => `${PARTITION_PREFIX}${encodeKey(key, 'task assignee')}`;
const rowKeyOf = (sortKey: string) => encodeKey(sortKey, 'task sort key');

function entityOf(row: TaskInboxRow): Record<string, unknown> & { partitionKey: string; rowKey: string } {
  return {
    partitionKey: partitionOf(row.key),
    rowKey: rowKeyOf(row.sortKey),
    key: row.key,
    sortKey: row.sortKey,
    taskId: row.taskId,
    instanceId: row.instanceId,
    workflowId: row.workflowId,
    stateId: row.stateId,
    title: row.title,
    createdAt: row.createdAt,
    ...(row.dueAt !== undefined ? { dueAt: row.dueAt } : {}),
    escalated: row.escalated,
    ...(row.claimedBy !== undefined ? { claimedBy: row.claimedBy } : {}),
    candidate: row.candidate,
    decided: row.decided,
  };
}

function rowOf(entity: TableRow): TaskInboxRow {
  return {
    key: String(entity.key),
    sortKey: String(entity.sortKey),
    taskId: String(entity.taskId),
    instanceId: String(entity.instanceId),
    workflowId: String(entity.workflowId),
    stateId: String(entity.stateId),
    title: String(entity.title),
    createdAt: String(entity.createdAt),
    ...(typeof entity.dueAt === 'string' ? { dueAt: entity.dueAt } : {}),
    escalated: entity.escalated === true,
    ...(typeof entity.claimedBy === 'string' ? { claimedBy: entity.claimedBy } : {}),
    candidate: entity.candidate === true,
    decided: entity.decided === true,
  };
}

export class TableTaskIndex implements TaskIndex {
  constructor(private readonly client: TableClient) {}

  async put(rows: readonly TaskInboxRow[], options: OperationOptions = {}): Promise<void> {
    await this.perPartition(rows.map(entityOf), (entity): TransactionAction => ['upsert', entity, 'Replace'], options);
  }

  async remove(rows: readonly Pick<TaskInboxRow, 'key' | 'sortKey'>[], options: OperationOptions = {}): Promise<void> {
    const byPartition = new Map<string, { partitionKey: string; rowKey: string }[]>();
    for (const row of rows) {
      const entity = { partitionKey: partitionOf(row.key), rowKey: rowKeyOf(row.sortKey) };
      byPartition.set(entity.partitionKey, [...(byPartition.get(entity.partitionKey) ?? []), entity]);
    }
    for (const group of byPartition.values()) {
      for (let start = 0; start < group.length; start += MAX_BATCH) {
        const chunk = group.slice(start, start + MAX_BATCH);
        try {
          if (chunk.length > 1) {
            await submitTransaction(
              this.client,
              chunk.map((entity): TransactionAction => ['delete', entity]),
              { abortSignal: options.abortSignal },
            );
            continue;
          }
        } catch (error) {
          if (!isEntityNotFound(error)) throw toSignalboxError(error, 'task inbox rows');
        }
        // One row, or one of them gone already (a transaction fails as a whole): one by one, absorbing exactly "not found".
        for (const entity of chunk) {
          try {
            await this.client.deleteEntity(entity.partitionKey, entity.rowKey, { abortSignal: options.abortSignal });
          } catch (error) {
            if (!isEntityNotFound(error)) throw toSignalboxError(error, 'task inbox rows');
          }
        }
      }
    }
  }

  async list(keys: readonly string[], query: TaskInboxQuery, page: { readonly limit: number; readonly continuationToken?: string }, options: OperationOptions = {}): Promise<TaskInboxPage> {
    const pages = await Promise.all([...new Set(keys)].map((key) => this.listPartition(key, query, page, options)));
    return mergeInboxPages(pages, page.limit);
  }

  /** Up to limit + 1 rows of one principal's partition after the token (the extra one says whether there are more). */
  private async listPartition(key: string, query: TaskInboxQuery, page: { readonly limit: number; readonly continuationToken?: string }, options: OperationOptions): Promise<TaskInboxRow[]> {
    const filters = [odata`PartitionKey eq ${partitionOf(key)}`];
    if (page.continuationToken !== undefined) filters.push(odata`RowKey gt ${rowKeyOf(page.continuationToken)}`);
    if (query.dueBefore !== undefined) filters.push(odata`RowKey lt ${rowKeyOf(query.dueBefore)}`);
    if (query.workflowId !== undefined) filters.push(odata`workflowId eq ${query.workflowId}`);
    if (query.stateId !== undefined) filters.push(odata`stateId eq ${query.stateId}`);
    if (query.escalated !== undefined) filters.push(odata`escalated eq ${query.escalated}`);
    if (!query.includeCandidates) filters.push(odata`candidate eq ${false}`);
    const rows: TaskInboxRow[] = [];
    await translate('task inbox rows', async () => {
      const pages = this.client.listEntities<Record<string, unknown>>({ queryOptions: { filter: filters.join(' and ') }, abortSignal: options.abortSignal }).byPage({ maxPageSize: page.limit + 1 });
      for await (const tablePage of pages) {
        for (const entity of tablePage) rows.push(rowOf(entity));
        if (rows.length > page.limit) break;
      }
    });
    return rows.slice(0, page.limit + 1);
  }

  private async perPartition<T extends { partitionKey: string }>(entities: readonly T[], action: (entity: T) => TransactionAction, options: OperationOptions): Promise<void> {
    const byPartition = new Map<string, T[]>();
    for (const entity of entities) byPartition.set(entity.partitionKey, [...(byPartition.get(entity.partitionKey) ?? []), entity]);
    for (const group of byPartition.values()) {
      for (let start = 0; start < group.length; start += MAX_BATCH) {
        const chunk = group.slice(start, start + MAX_BATCH);
        await translate('task inbox rows', () =>
          chunk.length === 1 ? this.single(action(chunk[0]!), options) : submitTransaction(this.client, chunk.map(action), { abortSignal: options.abortSignal }).then(() => undefined),
        );
      }
    }
  }

  private async single(action: TransactionAction, options: OperationOptions): Promise<void> {
    await this.client.upsertEntity(action[1], 'Replace', { abortSignal: options.abortSignal });
  }
}
