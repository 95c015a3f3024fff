/**
 * @module Operations (one trigger's dispatch) on Azure Table Storage, all in one partition
 * (`OPERATIONS_PARTITION`), two rows per operation, so that one entity-group transaction writes both:
 *
 * - the record: RowKey `r:` + encoded operation id, `status`, `createdAt`, `updatedAt` as columns (for
 *   listByStatus), the rest as JSON split across properties;
 * - its listing row, for listing newest first: RowKey = inverted creation time (13 digits of
 *   9999999999999 − milliseconds) + `-` + encoded id, so that an ascending scan of the rows before `:` is
 *   newest first and a creation-time range is a RowKey range. It holds the operation as listed
 *   (listedOperation: no per-instance results) with `kind`, `status` and `workflowId` as columns to
 *   filter on.
 *
 * Creating writes both in one transaction (a repeated id fails it as a whole: the record is the
 * exactly-once key of the trigger id), and so does an update that changes the status (as far as this
 * process knows: a bounded memory of the status last listed, so progress writes are one entity, and a
 * process that does not know writes the listing row once more). So a trigger costs two operation
 * requests, as before operations were listed, and a listing row is never missing or behind its record's
 * status (docs/performance.md). One partition serves every operation: Azure's target for one partition
 * is 2,000 entities a second, so about 500 operations a second, created and finished.
 *
 * Records are fitted first (fitOperation: long error messages shortened, per-instance results cut and
 * marked `instancesTruncated`), so every record fits 1 MiB and a transaction (4 MiB) always fits.
 * A progress write without its listing row is a plain entity request when the record's text is all
 * ASCII, which is nearly always: lighter than a `$batch` (no multipart body to build and parse) and the
 * same one round trip. A record holding other characters is written as a one-entity transaction
 * instead: Azurite decodes a plain entity body chunk by chunk and corrupts a multi-byte character that
 * straddles two chunks (still so in Azurite 3.35: azurite/dist/src/table/generated/utils/serializer.js,
 * readRequestIntoText joins Buffers as strings), while it decodes transaction bodies whole.
 */
import type { TableClient, TableEntity, TransactionAction } from '@azure/data-tables';
import { GroupedUpserts } from './grouped-upserts';
import { submitTransaction } from './table-transaction';
import type { OperationStatus } from '../engine/model';
import { BoundedMap, StorageError } from '../engine/model';
import { fitOperation, fitResult, type InstanceResult, type ListedOperation, type Operation, type StoredOperation } from '../engine/operations';
import type { OperationOptions, OperationQuery, OperationStore, Page, PageOptions } from '../engine/ports';
import { assertEntityFits, parseBody, toBody } from './entity-body';
import { isEntityNotFound, statusOf, toSignalboxError, translate } from './errors';
import { encodeKey } from './keys';
import { queryPage } from './table-query';
import { pagedList, type PagedAsyncIterable } from '../engine/ports';
import {
  OPERATIONS_PARTITION,
  isAscii,
  listingFilter,
  recordRowKey,
  recordsByStatusFilter,
  requireEtag,
  resultRowKey,
  resultsFilter,
  toEntity,
  toListingEntity,
  toStoredOperation,
  withoutEtag,
} from './operation-rows';

/** Kept here for the callers that read them from the store. */
export { OPERATIONS_PARTITION, invertedTime } from './operation-rows';

/** Operations whose last listed status this process remembers (oldest forgotten: one more listing row write). */
const LISTED_STATUSES_REMEMBERED = 10_000;

export class TableOperationStore implements OperationStore {
  /** Operation id → the status its listing row was last written with, by this process. */
  private readonly listed = new BoundedMap<string, OperationStatus>(LISTED_STATUSES_REMEMBERED);

  /** Result rows of one operation written at the same time, written together. */
  private readonly resultRows: GroupedUpserts;

  constructor(private readonly client: TableClient) {
    this.resultRows = new GroupedUpserts(client, { writeOne: (row) => this.upsertResultRow(row) });
  }

  async create(input: Operation, options: OperationOptions = {}): Promise<{ operation: StoredOperation; created: boolean }> {
    const operation = fitOperation(input);
    const entity = toEntity(operation);
    assertEntityFits(entity, `operation "${operation.id}"`);
    const listing = toListingEntity(operation);
    assertEntityFits(listing, `listing row of operation "${operation.id}"`);
    try {
      // One transaction: the record and its listing row exist together or not at all.
      const response = await submitTransaction(
        this.client,
        [
          ['create', entity],
          ['upsert', listing, 'Replace'],
        ],
        { abortSignal: options.abortSignal },
      );
      this.rememberListed(operation);
      return { operation: { ...withoutEtag(operation), etag: requireEtag(response.subResponses[0]?.etag, operation.id) }, created: true };
    } catch (error) {
      if (statusOf(error) !== 409) throw toSignalboxError(error, `operation "${operation.id}"`);
    }
    // The id exists: a repeated trigger id maps to its first operation.
    const existing = await this.get(operation.id, options);
    if (!existing) throw new StorageError(`operation "${operation.id}" existed and then vanished`, 404, true);
    return { operation: existing, created: false };
  }

  private rememberListed(operation: Operation): void {
    this.listed.set(operation.id, operation.status);
  }

  /** Newest first: a scan of the listing rows, from the newest key in the creation-time range on. */
  list(query: OperationQuery, options: PageOptions = {}): PagedAsyncIterable<ListedOperation> {
    return pagedList((page) => this.listPage(query, page), options);
  }

  private async listPage(query: OperationQuery, options: PageOptions = {}): Promise<Page<ListedOperation>> {
    return queryPage(this.client, listingFilter(query), options, (row) => parseBody<ListedOperation>(row), 'operations');
  }

  async get(operationId: string, options: OperationOptions = {}): Promise<StoredOperation | undefined> {
    try {
      return toStoredOperation(await this.client.getEntity<Record<string, unknown>>(OPERATIONS_PARTITION, recordRowKey(operationId), { abortSignal: options.abortSignal }));
    } catch (error) {
      if (isEntityNotFound(error)) return undefined;
      throw toSignalboxError(error, `operation "${operationId}"`);
    }
  }

  /**
   * Replaces the record; unconditionally (`*`) without `ifMatch`. A missing operation is NotFoundError.
   * When the status changes, its listing row is rewritten in the same transaction.
   */
  async update(input: Operation, options: OperationOptions & { ifMatch?: string } = {}): Promise<StoredOperation> {
    const operation = fitOperation(input);
    const entity = toEntity(operation);
    assertEntityFits(entity, `operation "${operation.id}"`);
    const etag = options.ifMatch ?? '*';
    const listingChanges = this.listed.get(operation.id) !== operation.status;
    const actions: TransactionAction[] = [['update', entity, 'Replace', { etag }]];
    if (listingChanges) {
      const listing = toListingEntity(operation);
      assertEntityFits(listing, `listing row of operation "${operation.id}"`);
      actions.push(['upsert', listing, 'Replace']);
    }
    const written = await translate(`operation "${operation.id}"`, async () =>
      actions.length === 1 && isAscii(entity)
        ? (await this.client.updateEntity(entity, 'Replace', { etag, abortSignal: options.abortSignal })).etag
        : (await submitTransaction(this.client, actions, { abortSignal: options.abortSignal })).subResponses[0]?.etag,
    );
    if (listingChanges) this.rememberListed(operation);
    return { ...withoutEtag(operation), etag: requireEtag(written, operation.id) };
  }

  /** The records of the given statuses (a range of the one partition): used at start-up to resume unfinished work, and by retention. */
  listByStatus(statuses: readonly OperationStatus[], options: PageOptions & { updatedBefore?: string } = {}): PagedAsyncIterable<StoredOperation> {
    const { updatedBefore, ...pageOptions } = options;
    return pagedList((page) => this.listByStatusPage(statuses, updatedBefore, page), pageOptions);
  }

  /**
   * Removes the record and its listing row in one transaction; one already gone is fine (a listing row
   * gone alone, which only a hand-made deletion leaves, is deleted row by row).
   */
  async delete(operationId: string, options: OperationOptions = {}): Promise<void> {
    const existing = await this.get(operationId, options);
    if (!existing) return;
    this.listed.delete(operationId);
    // Results before the record: an interrupted purge leaves the record, which is purged again with what is left.
    await this.deleteResults(operationId, options);
    const rowKeys = [recordRowKey(operationId), toListingEntity(existing).rowKey];
    try {
      await submitTransaction(
        this.client,
        rowKeys.map((rowKey): TransactionAction => ['delete', { partitionKey: OPERATIONS_PARTITION, rowKey }]),
        { abortSignal: options.abortSignal },
      );
    } catch (error) {
      if (!isEntityNotFound(error) && statusOf(error) !== 404) throw toSignalboxError(error, `operation "${operationId}"`);
      // Listing row first: an interrupted purge leaves at worst a record no longer listed, purged again.
      for (const rowKey of rowKeys.reverse()) await this.deleteRow(rowKey, operationId, options);
    }
  }

  /**
   * An upsert of the instance's result row (grouped with the rows of the same operation being written at the
   * same time: one transaction for them all), or with `keepExisting` an insert that leaves one already there.
   */
  async putResult(operationId: string, result: InstanceResult, options: OperationOptions & { keepExisting?: boolean } = {}): Promise<void> {
    const entity = { partitionKey: encodeKey(operationId, 'operation id'), rowKey: resultRowKey(result.instanceId), ...toBody(fitResult(result)) };
    assertEntityFits(entity, `result of operation "${operationId}" for instance "${result.instanceId}"`);
    const { abortSignal } = options;
    try {
      if (options.keepExisting) {
        if (isAscii(entity)) await this.client.createEntity(entity, { abortSignal });
        else await submitTransaction(this.client, [['create', entity]], { abortSignal });
      } else if (abortSignal) await this.upsertResultRow(entity, abortSignal);
      // Results of one operation written at the same time go out together (grouped-upserts.ts).
      else await this.resultRows.upsert(entity);
    } catch (error) {
      if (options.keepExisting && statusOf(error) === 409) return;
      throw toSignalboxError(error, `result of operation "${operationId}"`);
    }
  }

  /** One result row alone: a plain request when it is all ASCII, else a one-row transaction (see the module comment). */
  private async upsertResultRow(entity: TableEntity<Record<string, unknown>>, abortSignal?: AbortSignal): Promise<void> {
    if (isAscii(entity)) await this.client.upsertEntity(entity, 'Replace', { abortSignal });
    else await submitTransaction(this.client, [['upsert', entity, 'Replace']], { abortSignal });
  }

  listResults(operationId: string, options: PageOptions = {}): PagedAsyncIterable<InstanceResult> {
    return pagedList((page) => queryPage(this.client, resultsFilter(operationId), page, (row) => parseBody<InstanceResult>(row), 'operation results'), options);
  }

  /** Deletes the result rows a page at a time, in transactions of up to 100 (one partition). */
  private async deleteResults(operationId: string, options: OperationOptions): Promise<void> {
    const filter = resultsFilter(operationId);
    for (;;) {
      const page = await queryPage(this.client, filter, { maxPageSize: 100, ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}) }, (row) => String(row.rowKey), 'operation results', [
        'RowKey',
      ]);
      if (page.items.length === 0) return;
      const partitionKey = encodeKey(operationId, 'operation id');
      await translate(`results of operation "${operationId}"`, () =>
        submitTransaction(
          this.client,
          page.items.map((rowKey) => ['delete', { partitionKey, rowKey }]),
          { abortSignal: options.abortSignal },
        ),
      );
    }
  }

  private async deleteRow(rowKey: string, operationId: string, options: OperationOptions): Promise<void> {
    try {
      await this.client.deleteEntity(OPERATIONS_PARTITION, rowKey, { abortSignal: options.abortSignal });
    } catch (error) {
      if (isEntityNotFound(error)) return;
      throw toSignalboxError(error, `operation "${operationId}"`);
    }
  }

  private async listByStatusPage(statuses: readonly OperationStatus[], updatedBefore: string | undefined, options: PageOptions = {}): Promise<Page<StoredOperation>> {
    if (statuses.length === 0) return { items: [] };
    return queryPage(this.client, recordsByStatusFilter(statuses, updatedBefore), options, toStoredOperation, 'operations');
  }
}
