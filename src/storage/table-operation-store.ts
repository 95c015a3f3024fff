/**
 * @module Operations (one trigger's dispatch) on Azure Table Storage: one row per operation,
 * PartitionKey = encoded operation id, RowKey `operation`, `status` as a column for listByStatus, the
 * rest as JSON split across properties. Records are fitted first (fitOperation: long error messages
 * shortened, per-instance results cut and marked `instancesTruncated`), so every record fits 1 MiB and
 * an operation can always be finished.
 *
 * Writes are plain entity requests (insert, replace) when the record's text is all ASCII, which is
 * nearly always: lighter than a `$batch` (no multipart body to build and parse) and the same one round
 * trip. A record holding other characters is written as a one-entity transaction instead: Azurite
 * decodes a plain entity body chunk by chunk and corrupts a multi-byte character that straddles two
 * chunks (still so in Azurite 3.35: azurite/dist/src/table/generated/utils/serializer.js,
 * readRequestIntoText joins Buffers as strings), while it decodes transaction bodies whole. ASCII
 * has no multi-byte characters to split, so the workaround is needed exactly for the other records.
 */
import { odata, type TableClient } from '@azure/data-tables';
import type { OperationStatus } from '../engine/enums';
import { StorageError } from '../engine/errors';
import { fitOperation, type Operation, type StoredOperation } from '../engine/operation';
import type { OperationOptions, OperationStore, Page, PageOptions } from '../engine/ports';
import { assertEntityFits, parseBody, toBody } from './entity-body';
import { isEntityNotFound, statusOf, toSignalboxError, translate } from './errors';
import { encodeKey } from './keys';
import { queryPage, type TableRow } from './table-query';
import { pagedList, type PagedAsyncIterable } from '../engine/paging';

export const OPERATION_ROW_KEY = 'operation';

export class TableOperationStore implements OperationStore {
  constructor(private readonly client: TableClient) {}

  async create(input: Operation, options: OperationOptions = {}): Promise<{ operation: StoredOperation; created: boolean }> {
    const operation = fitOperation(input);
    const entity = toEntity(operation);
    assertEntityFits(entity, `operation "${operation.id}"`);
    try {
      const etag = isAscii(entity)
        ? (await this.client.createEntity(entity, { abortSignal: options.abortSignal })).etag
        : (await this.client.submitTransaction([['create', entity]], { abortSignal: options.abortSignal })).subResponses[0]?.etag;
      return { operation: { ...withoutEtag(operation), etag: requireEtag(etag, operation.id) }, created: true };
    } catch (error) {
      if (statusOf(error) !== 409) throw toSignalboxError(error, `operation "${operation.id}"`);
    }
    // The id exists: a repeated trigger id maps to its first operation.
    const existing = await this.get(operation.id, options);
    if (!existing) throw new StorageError(`operation "${operation.id}" existed and then vanished`, 404, true);
    return { operation: existing, created: false };
  }

  async get(operationId: string, options: OperationOptions = {}): Promise<StoredOperation | undefined> {
    try {
      return toStoredOperation(await this.client.getEntity<Record<string, unknown>>(encodeKey(operationId, 'operation id'), OPERATION_ROW_KEY, { abortSignal: options.abortSignal }));
    } catch (error) {
      if (isEntityNotFound(error)) return undefined;
      throw toSignalboxError(error, `operation "${operationId}"`);
    }
  }

  /** Replaces the row; unconditionally (`*`) without `ifMatch`. A missing operation is NotFoundError. */
  async update(input: Operation, options: OperationOptions & { ifMatch?: string } = {}): Promise<StoredOperation> {
    const operation = fitOperation(input);
    const entity = toEntity(operation);
    assertEntityFits(entity, `operation "${operation.id}"`);
    const etag = options.ifMatch ?? '*';
    const written = await translate(`operation "${operation.id}"`, async () =>
      isAscii(entity)
        ? (await this.client.updateEntity(entity, 'Replace', { etag, abortSignal: options.abortSignal })).etag
        : (await this.client.submitTransaction([['update', entity, 'Replace', { etag }]], { abortSignal: options.abortSignal })).subResponses[0]?.etag,
    );
    return { ...withoutEtag(operation), etag: requireEtag(written, operation.id) };
  }

  /** A filter over the whole (operations) table: used once at start-up to resume unfinished work. */
  listByStatus(statuses: readonly OperationStatus[], options: PageOptions & { updatedBefore?: string } = {}): PagedAsyncIterable<StoredOperation> {
    const { updatedBefore, ...pageOptions } = options;
    return pagedList((page) => this.listByStatusPage(statuses, updatedBefore, page), pageOptions);
  }

  /** Removes the row; one already gone is fine. */
  async delete(operationId: string, options: OperationOptions = {}): Promise<void> {
    try {
      await this.client.deleteEntity(encodeKey(operationId, 'operation id'), OPERATION_ROW_KEY, { abortSignal: options.abortSignal });
    } catch (error) {
      if (isEntityNotFound(error)) return;
      throw toSignalboxError(error, `operation "${operationId}"`);
    }
  }

  private async listByStatusPage(statuses: readonly OperationStatus[], updatedBefore: string | undefined, options: PageOptions = {}): Promise<Page<StoredOperation>> {
    if (statuses.length === 0) return { items: [] };
    const anyStatus = statuses.map((status) => odata`status eq ${status}`).join(' or ');
    // `updatedAt` is a column (ISO 8601, UTC, so text order is time order).
    const before = updatedBefore === undefined ? '' : ` and ${odata`updatedAt lt ${updatedBefore}`}`;
    return queryPage(this.client, `${odata`RowKey eq ${OPERATION_ROW_KEY}`} and (${anyStatus})${before}`, options, toStoredOperation, 'operations');
  }
}

function withoutEtag(operation: Operation): Operation {
  const { etag: _etag, ...rest } = operation as StoredOperation;
  return rest;
}

function toEntity(operation: Operation): { partitionKey: string; rowKey: string } & Record<string, string | number | boolean> {
  return {
    partitionKey: encodeKey(operation.id, 'operation id'),
    rowKey: OPERATION_ROW_KEY,
    status: operation.status,
    createdAt: operation.createdAt,
    updatedAt: operation.updatedAt,
    ...toBody(withoutEtag(operation)),
  };
}

/** True when every string property is ASCII: no character of it can straddle two chunks of the body. */
function isAscii(entity: Record<string, unknown>): boolean {
  for (const value of Object.values(entity)) if (typeof value === 'string' && !/^[\x00-\x7f]*$/.test(value)) return false;
  return true;
}

function requireEtag(etag: string | undefined, operationId: string): string {
  if (!etag) throw new StorageError(`Saving operation "${operationId}" returned no ETag`, undefined, false);
  return etag;
}

function toStoredOperation(row: TableRow): StoredOperation {
  return { ...parseBody<Operation>(row), etag: requireEtag(row.etag, String(row.partitionKey)) };
}
