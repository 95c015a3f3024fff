/**
 * @module Versioned workflow definitions on Azure Table Storage.
 *
 * Layout (workflows table): PartitionKey = encoded workflow id; RowKey `v-0000000001`, ... one immutable
 * row per version; RowKey `latest` a copy of the newest version, whose ETag IS the workflow's ETag.
 * Create and update are one entity-group transaction each (pointer + new version row), so the pointer
 * never names a version that does not exist, and `get` of the latest version is one read.
 */
import { odata, type TableClient, type TransactionAction } from '@azure/data-tables';
import { submitTransaction } from './table-transaction';
import type { WorkflowDefinition, WorkflowVersion } from '../engine/definition';
import { NotFoundError, PreconditionFailedError, StorageError } from '../engine/model';
import type { OperationOptions, Page, PageOptions, WorkflowStore, WorkflowSummary, WorkflowWriteOptions } from '../engine/ports';
import { assertEntityFits, parseBody, toBody } from './entity-body';
import { isEntityNotFound, statusOf, toSignalboxError } from './errors';
import { encodeKey, padNumber } from './keys';
import { queryPage, type TableRow } from './table-query';
import { pagedList, type PagedAsyncIterable } from '../engine/ports';

export const LATEST_ROW_KEY = 'latest';
/** How often an unconditional (`ifMatch: '*'`) update retries when a concurrent update wins. */
const UNCONDITIONAL_UPDATE_ATTEMPTS = 5;

type Entity = { partitionKey: string; rowKey: string } & Record<string, string | number | boolean>;

export class TableWorkflowStore implements WorkflowStore {
  constructor(private readonly client: TableClient) {}

  async create(definition: WorkflowDefinition, options: WorkflowWriteOptions): Promise<WorkflowVersion> {
    return this.write(definition, 1, undefined, options);
  }

  async update(definition: WorkflowDefinition, options: WorkflowWriteOptions & { ifMatch: string }): Promise<WorkflowVersion> {
    for (let attempt = 1; ; attempt += 1) {
      const latest = await this.get(definition.id, { abortSignal: options.abortSignal });
      if (!latest) throw new NotFoundError(`workflow "${definition.id}" was not found`);
      if (options.ifMatch !== '*' && options.ifMatch !== latest.etag) {
        throw new PreconditionFailedError(`workflow "${definition.id}" was changed by someone else (ETag mismatch)`);
      }
      try {
        // Conditional on the ETag just read even for '*', so concurrent updates never skip a version.
        return await this.write(definition, latest.version + 1, latest.etag, options);
      } catch (error) {
        if (options.ifMatch !== '*' || attempt >= UNCONDITIONAL_UPDATE_ATTEMPTS || !(error instanceof PreconditionFailedError)) throw error;
      }
    }
  }

  async get(workflowId: string, options: OperationOptions & { version?: number } = {}): Promise<WorkflowVersion | undefined> {
    const partitionKey = encodeKey(workflowId, 'workflow id');
    const rowKey = options.version === undefined ? LATEST_ROW_KEY : versionRowKey(options.version);
    try {
      return toVersion(await this.client.getEntity<Record<string, unknown>>(partitionKey, rowKey, { abortSignal: options.abortSignal }));
    } catch (error) {
      if (isEntityNotFound(error)) return undefined;
      throw toSignalboxError(error, `workflow "${workflowId}"`);
    }
  }

  /** The `latest` rows only, without their bodies: one scan of the (small) workflows table per page. */
  list(options: PageOptions = {}): PagedAsyncIterable<WorkflowSummary> {
    return pagedList((page) => this.listPage(page), options);
  }

  private async listPage(options: PageOptions = {}): Promise<Page<WorkflowSummary>> {
    return queryPage(
      this.client,
      odata`RowKey eq ${LATEST_ROW_KEY}`,
      options,
      (row) => ({ id: String(row.workflowId), displayName: String(row.displayName), version: Number(row.version) }),
      'workflows',
      ['workflowId', 'displayName', 'version'],
    );
  }

  /** The `latest` row first (the workflow is then gone for readers), then every version row. */
  async delete(workflowId: string, options: OperationOptions = {}): Promise<void> {
    const partitionKey = encodeKey(workflowId, 'workflow id');
    const what = `workflow "${workflowId}"`;
    const remove = async (rowKey: string) => {
      try {
        await this.client.deleteEntity(partitionKey, rowKey, { abortSignal: options.abortSignal });
      } catch (error) {
        if (!isEntityNotFound(error)) throw toSignalboxError(error, what);
      }
    };
    await remove(LATEST_ROW_KEY);
    const versions: string[] = [];
    const rows = pagedList((page) => queryPage(this.client, odata`PartitionKey eq ${partitionKey}`, page, (row) => String(row.rowKey), what, ['RowKey']), { ...options, maxPageSize: 1000 });
    for await (const rowKey of rows) versions.push(rowKey);
    for (const rowKey of versions) await remove(rowKey);
  }

  private async write(definition: WorkflowDefinition, version: number, ifMatch: string | undefined, options: WorkflowWriteOptions): Promise<WorkflowVersion> {
    const what = `workflow "${definition.id}"`;
    const createdAt = options.createdAt.toISOString();
    const columns = {
      partitionKey: encodeKey(definition.id, 'workflow id'),
      workflowId: definition.id,
      displayName: definition.displayName,
      version,
      createdAt,
      ...toBody(definition),
    };
    const latest: Entity = { ...columns, rowKey: LATEST_ROW_KEY };
    const versionRow: Entity = { ...columns, rowKey: versionRowKey(version) };
    assertEntityFits(latest, what);
    const actions: TransactionAction[] = [ifMatch === undefined ? ['create', latest] : ['update', latest, 'Replace', { etag: ifMatch }], ['create', versionRow]];
    try {
      const response = await submitTransaction(this.client, actions, { abortSignal: options.abortSignal });
      const etag = response.subResponses[0]?.etag;
      if (!etag) throw new StorageError(`Saving ${what} returned no ETag`, response.status, false);
      return { definition, version, createdAt, etag };
    } catch (error) {
      // A version row that already exists means a concurrent update got there first: stale, not a conflict.
      if (ifMatch !== undefined && statusOf(error) === 409) {
        throw new PreconditionFailedError(`${what} was changed by someone else (version ${version} exists)`, { cause: error });
      }
      throw toSignalboxError(error, what);
    }
  }
}

export function versionRowKey(version: number): string {
  return `v-${padNumber(version)}`;
}

function toVersion(row: TableRow): WorkflowVersion {
  if (!row.etag) throw new StorageError(`Stored workflow ${row.partitionKey} has no ETag`, undefined, false);
  return { definition: parseBody<WorkflowDefinition>(row), version: Number(row.version), createdAt: String(row.createdAt), etag: row.etag };
}
