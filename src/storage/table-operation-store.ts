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
import { odata, type TableClient, type TableEntity, type TransactionAction } from '@azure/data-tables';
import { GroupedUpserts } from './grouped-upserts';
import { submitTransaction } from './table-transaction';
import { createHash } from 'node:crypto';
import type { OperationStatus } from '../engine/model';
import { BoundedMap, StorageError } from '../engine/model';
import { fitOperation, fitResult, listedOperation, operationKind, operationWorkflowId, type InstanceResult, type ListedOperation, type Operation, type StoredOperation } from '../engine/operations';
import type { OperationOptions, OperationQuery, OperationStore, Page, PageOptions } from '../engine/ports';
import { assertEntityFits, parseBody, toBody } from './entity-body';
import { isEntityNotFound, statusOf, toSignalboxError, translate } from './errors';
import { MAX_TABLE_KEY_LENGTH, encodeKey } from './keys';
import { queryPage, type TableRow } from './table-query';
import { pagedList, type PagedAsyncIterable } from '../engine/ports';

/**
 * The one partition of records and listing rows (see the module comment). encodeKey never yields it (its
 * `~` is always followed by two hex digits), so it cannot meet an operation's own partition (its result
 * rows; the records of the layout before this one, which it does not read).
 */
export const OPERATIONS_PARTITION = '~operations';
/** Records' RowKeys start with it; listing rows start with a digit, so they all sort before `:`. */
const RECORD_ROW_KEY_PREFIX = 'r:';
const LISTING_ROW_KEYS_END = ':';
/** Operations whose last listed status this process remembers (oldest forgotten: one more listing row write). */
const LISTED_STATUSES_REMEMBERED = 10_000;
const LATEST_TIME_IN_MS = 9_999_999_999_999;

/** 13 digits that sort newest first: 9999999999999 − the time in milliseconds (an unreadable time sorts last). */
export function invertedTime(isoTime: string): string {
  const ms = Date.parse(isoTime);
  return String(LATEST_TIME_IN_MS - (Number.isFinite(ms) ? Math.min(Math.max(ms, 0), LATEST_TIME_IN_MS) : 0)).padStart(13, '0');
}

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
    let filter = `${odata`PartitionKey eq ${OPERATIONS_PARTITION}`} and ${odata`RowKey lt ${LISTING_ROW_KEYS_END}`}`;
    // createdSince ≤ t ⇔ inverted(t) ≤ inverted(createdSince); t < createdBefore ⇔ inverted(t) > inverted(createdBefore).
    if (query.createdSince !== undefined) filter += ` and ${odata`RowKey lt ${`${invertedTime(query.createdSince)}.`}`}`;
    if (query.createdBefore !== undefined) filter += ` and ${odata`RowKey ge ${`${invertedTime(query.createdBefore)}.`}`}`;
    if (query.kind !== undefined) filter += ` and ${odata`kind eq ${query.kind}`}`;
    if (query.status !== undefined) filter += ` and ${odata`status eq ${query.status}`}`;
    if (query.workflowId !== undefined) filter += ` and ${odata`workflowId eq ${query.workflowId}`}`;
    return queryPage(this.client, filter, options, (row) => parseBody<ListedOperation>(row), 'operations');
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
    const anyStatus = statuses.map((status) => odata`status eq ${status}`).join(' or ');
    // `updatedAt` is a column (ISO 8601, UTC, so text order is time order).
    const before = updatedBefore === undefined ? '' : ` and ${odata`updatedAt lt ${updatedBefore}`}`;
    // Record keys are `r:…`: the range from `r:` up to `r;` (the next character) holds them all.
    const records = `${odata`PartitionKey eq ${OPERATIONS_PARTITION}`} and ${odata`RowKey ge ${RECORD_ROW_KEY_PREFIX}`} and ${odata`RowKey lt ${'r;'}`}`;
    return queryPage(this.client, `${records} and (${anyStatus})${before}`, options, toStoredOperation, 'operations');
  }
}

function recordRowKey(operationId: string): string {
  return RECORD_ROW_KEY_PREFIX + encodeKey(operationId, 'operation id');
}

/**
 * Result rows live in a partition per operation (the encoded id; its record and listing row are in
 * `OPERATIONS_PARTITION`): RowKey `~r` + the encoded instance id (`~r` is no escape,
 * so no other row of the partition starts with it), hashed when the two would pass the key limit.
 */
const RESULT_ROW_PREFIX = '~r';

function resultRowKey(instanceId: string): string {
  const key = encodeKey(instanceId, 'instance id');
  if (RESULT_ROW_PREFIX.length + key.length <= MAX_TABLE_KEY_LENGTH) return `${RESULT_ROW_PREFIX}${key}`;
  const digest = createHash('sha256').update(key).digest('base64url');
  const kept = key.slice(0, MAX_TABLE_KEY_LENGTH - RESULT_ROW_PREFIX.length - 2 - digest.length).replace(/~[0-9A-F]?$/, '');
  return `${RESULT_ROW_PREFIX}${kept}~~${digest}`;
}

function resultsFilter(operationId: string): string {
  return odata`PartitionKey eq ${encodeKey(operationId, 'operation id')} and RowKey ge ${RESULT_ROW_PREFIX} and RowKey lt ${'~s'}`;
}

function withoutEtag(operation: Operation): Operation {
  const { etag: _etag, ...rest } = operation as StoredOperation;
  return rest;
}

function toEntity(operation: Operation): { partitionKey: string; rowKey: string } & Record<string, string | number | boolean> {
  return {
    partitionKey: OPERATIONS_PARTITION,
    rowKey: recordRowKey(operation.id),
    status: operation.status,
    createdAt: operation.createdAt,
    updatedAt: operation.updatedAt,
    ...toBody(withoutEtag(operation)),
  };
}

function toListingEntity(operation: Operation): { partitionKey: string; rowKey: string } & Record<string, string | number | boolean> {
  const workflowId = operationWorkflowId(operation);
  return {
    partitionKey: OPERATIONS_PARTITION,
    rowKey: `${invertedTime(operation.createdAt)}-${encodeKey(operation.id, 'operation id')}`,
    kind: operationKind(operation),
    status: operation.status,
    ...(workflowId !== undefined ? { workflowId } : {}),
    createdAt: operation.createdAt,
    ...toBody(listedOperation(operation)),
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
  return { ...parseBody<Operation>(row), etag: requireEtag(row.etag, String(row.rowKey)) };
}
