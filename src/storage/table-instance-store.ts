/**
 * @module Instances and their history on Azure Table Storage, one partition per instance.
 *
 * Layout (instances table): PartitionKey = encoded instance id; RowKey `instance` holds the instance
 * (its JSON in `body`, split if large, plus `workflowId`, `stateId`, `status`, `workflowVersion` as
 * columns for queries); RowKey `h-0000000000`, `h-0000000001`, ... hold history entries. A save is ONE
 * entity-group transaction: the conditional Replace of the instance row plus the inserts of its new
 * history rows, outbox rows (`o-<id>`), lifecycle event records (`e-<sequence>-<rank>`, event-rows.ts) and
 * applied-trigger rows (`a-<trigger id>`, for the records the instance's bounded list lets go), so none of them ever disagrees with the instance and a save costs
 * one round trip (at most MAX_ROWS_PER_SAVE rows beside the instance).
 *
 * An instance whose row would not fit an entity (1 MiB) keeps its body in a blob instead
 * (instance-body-blobs.ts), written before the transaction and referenced by the row (`bodyBlob`,
 * `bodyBlobEtag`), so the save stays that one transaction; small instances stay one read. An instance over
 * `maxInstanceBytes` (16 MiB by default) is refused with TooLargeError (docs/decisions/0020-large-contexts.md).
 */
import { odata, type TableClient, type TableTransactionResponse, type TransactionAction } from '@azure/data-tables';
import { submitTransaction } from './table-transaction';
import type { AppliedTrigger, HistoryEntry, Instance, StoredInstance } from '../engine/model';
import type { OutboxRow, StoredOutboxRow } from '../engine/model';
import type { DeliveryStatus, EventDelivery, LifecycleEventRecord } from '../engine/decide';
import type { EventStore, HistoryListOptions, HistoryStore, InstanceQuery, InstanceStore, InstanceWrite, OperationOptions, OutboxStore, Page, PageOptions, StoredEventRecord } from '../engine/ports';
import { CreationFencedError, DEFAULT_MAX_INSTANCE_BYTES, PreconditionFailedError, StorageError } from '../engine/model';
import { pagedList, type PagedAsyncIterable } from '../engine/ports';
import { assertEntityFits, parseBody, toBody } from './entity-body';
import { isEntityNotFound, statusOf, toSignalboxError } from './errors';
import { InstanceBodies } from './instance-bodies';
import type { InstanceBodyBlobs } from './instance-body-blobs';
import { appliedRowKey, columnsOf, fenceRowKey, historyRowKey, HISTORY_ROW_PREFIX, INSTANCE_ROW_KEY, instanceFilter, OFFERS_ROW_KEY, saveRows, withoutEtag, type Entity } from './instance-rows';
import { decodeKey, encodeKey } from './keys';
import { TableEventRecords } from './table-event-records';
import { TableOutboxRows } from './table-outbox-rows';
import { queryPage } from './table-query';
import { withOffer, type TriggerOffer } from '../engine/decide';

// The row layout's names, still importable from here (instance-rows.ts holds them).
export { APPLIED_ROW_PREFIX, FENCE_ROW_PREFIX, HISTORY_ROW_PREFIX, INSTANCE_ROW_KEY, MAX_ROWS_PER_SAVE, OFFERS_ROW_KEY, OUTBOX_ROW_PREFIX } from './instance-rows';
export { appliedRowKey, fenceRowKey, historyRowKey, outboxRowKey } from './instance-rows';

export interface TableInstanceStoreOptions {
  /** Where records too large for an entity go. Without it, such an instance is refused (TooLargeError) as before. */
  readonly bodies?: InstanceBodyBlobs;
  /** The largest instance record, as UTF-8 JSON. @default DEFAULT_MAX_INSTANCE_BYTES (16 MiB) */
  readonly maxInstanceBytes?: number;
}

export class TableInstanceStore implements InstanceStore, HistoryStore, OutboxStore, EventStore {
  /** Where each instance row's body goes, inline or in a blob (instance-bodies.ts). */
  private readonly bodies: InstanceBodies;
  /** The `e-` rows' reads and delivery updates (table-event-records.ts). */
  private readonly events: TableEventRecords;
  /** The `o-` rows' reads and deletes (table-outbox-rows.ts). */
  private readonly outboxRows: TableOutboxRows;

  constructor(
    private readonly client: TableClient,
    options: TableInstanceStoreOptions = {},
  ) {
    this.bodies = new InstanceBodies(client, INSTANCE_ROW_KEY, options.maxInstanceBytes ?? DEFAULT_MAX_INSTANCE_BYTES, options.bodies);
    this.events = new TableEventRecords(client);
    this.outboxRows = new TableOutboxRows(client);
  }

  get maxInstanceBytes(): number {
    return this.bodies.maxInstanceBytes;
  }

  async create(instance: Instance, write: InstanceWrite = {}, options: OperationOptions = {}): Promise<StoredInstance> {
    return this.submit(instance, write, 'create', options);
  }

  async save(instance: Instance, write: InstanceWrite, options: OperationOptions & { ifMatch: string }): Promise<StoredInstance> {
    return this.submit(instance, write, options.ifMatch, options);
  }

  async get(instanceId: string, options: OperationOptions = {}): Promise<StoredInstance | undefined> {
    const partitionKey = encodeKey(instanceId, 'instance id');
    try {
      // A body blob deleted between the row's read and the blob's (a save replaced it): read the row again, once.
      for (let attempt = 1; ; attempt++) {
        const row = await this.client.getEntity<Record<string, unknown>>(partitionKey, INSTANCE_ROW_KEY, { abortSignal: options.abortSignal });
        const stored = await this.bodies.read(row, options);
        if (stored) return stored;
        if (attempt === 2) throw new StorageError(`The body of instance "${instanceId}" kept changing while it was read`, undefined, true);
      }
    } catch (error) {
      // A 404 for a missing table is not "no such instance": it becomes a StorageError.
      if (isEntityNotFound(error)) return undefined;
      throw toSignalboxError(error, `instance "${instanceId}"`);
    }
  }

  async fenceCreation(instanceId: string, token: string, options: OperationOptions = {}): Promise<boolean> {
    try {
      await this.client.createEntity({ partitionKey: encodeKey(instanceId, 'instance id'), rowKey: fenceRowKey(token), fence: 'taken over' }, { abortSignal: options.abortSignal });
      return true;
    } catch (error) {
      if (statusOf(error) === 409) return false;
      throw toSignalboxError(error, `instance "${instanceId}"`);
    }
  }

  async getApplied(instanceId: string, triggerId: string, options: OperationOptions = {}): Promise<AppliedTrigger | undefined> {
    try {
      const row = await this.client.getEntity<Record<string, unknown>>(encodeKey(instanceId, 'instance id'), appliedRowKey(triggerId), { abortSignal: options.abortSignal });
      return parseBody<AppliedTrigger>(row);
    } catch (error) {
      if (isEntityNotFound(error)) return undefined;
      throw toSignalboxError(error, `instance "${instanceId}"`);
    }
  }

  /**
   * A filter over the instance rows of the whole table: its cost grows with the table (instances and
   * their history rows), not with the matches. Fine for the API's occasional listing; anything hot
   * should go through the interest index instead.
   */
  query(query: InstanceQuery, options: PageOptions = {}): PagedAsyncIterable<StoredInstance> {
    return pagedList((page) => this.queryInstancesPage(query, page), options);
  }

  /** The same filter, selecting the partition key only: no body is transferred, inline or in a blob. */
  queryIds(query: InstanceQuery, options: PageOptions = {}): PagedAsyncIterable<string> {
    return pagedList((page) => queryPage(this.client, instanceFilter(query), page, (row) => decodeKey(String(row.partitionKey)), 'instances', ['PartitionKey']), options);
  }

  private async queryInstancesPage(query: InstanceQuery, options: PageOptions = {}): Promise<Page<StoredInstance>> {
    const page = await queryPage(this.client, instanceFilter(query), options, (row) => row, 'instances');
    const items: StoredInstance[] = [];
    for (const row of page.items) {
      // A row whose body blob a save just replaced: the instance as it is now (or gone, if it was deleted).
      const stored = (await this.bodies.read(row, options)) ?? (await this.get(decodeKey(String(row.partitionKey)), options));
      if (stored) items.push(stored);
    }
    return { ...page, items };
  }

  /**
   * One row (`offers`) in the instance's partition holds its recent offers as JSON: read, add, replace.
   * Safe without an ETag: it is written only under the instance's lease. Costs a point read and a write
   * per offer that changed nothing (an offer that changed the instance writes nothing here).
   */
  async recordOffer(instanceId: string, offer: TriggerOffer, options: OperationOptions = {}): Promise<void> {
    const partitionKey = encodeKey(instanceId, 'instance id');
    const offers = withOffer(await this.listOffers(instanceId, options), offer);
    const row: Entity = { partitionKey, rowKey: OFFERS_ROW_KEY, ...toBody({ offers }) };
    assertEntityFits(row, `offers of instance "${instanceId}"`);
    try {
      // A one-entity transaction, for the same Azurite multi-byte reason as instance saves (see submit).
      await submitTransaction(this.client, [['upsert', row, 'Replace']], { abortSignal: options.abortSignal });
    } catch (error) {
      throw toSignalboxError(error, `offers of instance "${instanceId}"`);
    }
  }

  async listOffers(instanceId: string, options: OperationOptions = {}): Promise<TriggerOffer[]> {
    try {
      const row = await this.client.getEntity<Record<string, unknown>>(encodeKey(instanceId, 'instance id'), OFFERS_ROW_KEY, { abortSignal: options.abortSignal });
      return parseBody<{ offers: TriggerOffer[] }>(row).offers;
    } catch (error) {
      if (isEntityNotFound(error)) return [];
      throw toSignalboxError(error, `offers of instance "${instanceId}"`);
    }
  }

  /**
   * Every row of the partition but the instance row, deleted in transactions of up to 100, then the
   * instance row alone: an interrupted purge leaves the instance row (marked `deleting`), so it can be
   * found and the purge repeated. A body blob goes after the instance row, with every other blob of the
   * same incarnation (a previous version's, a failed save's): a purge interrupted before then leaves them
   * to the sweep (collectOrphans), never a row whose body is gone.
   */
  async purge(instanceId: string, options: OperationOptions = {}): Promise<void> {
    const partitionKey = encodeKey(instanceId, 'instance id');
    const what = `rows of instance "${instanceId}"`;
    const rowKeys: string[] = [];
    let bodyBlob: string | undefined;
    // The instance row comes with the others (its bodyBlob column only), so the blob costs no extra read.
    const rows = pagedList((page) => queryPage(this.client, odata`PartitionKey eq ${partitionKey}`, page, (row) => row, what, ['RowKey', 'bodyBlob']), {
      ...options,
      maxPageSize: 1000,
    });
    for await (const row of rows) {
      if (row.rowKey !== INSTANCE_ROW_KEY) rowKeys.push(String(row.rowKey));
      else if (typeof row.bodyBlob === 'string') bodyBlob = row.bodyBlob;
    }
    for (let start = 0; start < rowKeys.length; start += 100) {
      const chunk = rowKeys.slice(start, start + 100);
      try {
        await submitTransaction(
          this.client,
          chunk.map((rowKey) => ['delete', { partitionKey, rowKey }] as TransactionAction),
          { abortSignal: options.abortSignal },
        );
      } catch (error) {
        // One row gone already (a relay deleted an outbox row meanwhile) fails the whole transaction.
        if (!isEntityNotFound(error)) throw toSignalboxError(error, what);
        for (const rowKey of chunk) await this.deleteRow(partitionKey, rowKey, what, options);
      }
    }
    await this.deleteRow(partitionKey, INSTANCE_ROW_KEY, `instance "${instanceId}"`, options);
    await this.bodies.purged(bodyBlob, options);
  }

  /** Body blobs no instance row references, written before `writtenBefore` (instance-bodies.ts); returns how many it deleted. */
  collectOrphans(options: OperationOptions & { writtenBefore: Date }): Promise<number> {
    return this.bodies.collectOrphans(options);
  }

  private async deleteRow(partitionKey: string, rowKey: string, what: string, options: OperationOptions): Promise<void> {
    try {
      await this.client.deleteEntity(partitionKey, rowKey, { abortSignal: options.abortSignal });
    } catch (error) {
      if (!isEntityNotFound(error)) throw toSignalboxError(error, what);
    }
  }

  /** Oldest first: a range query on the `h-` rows of the instance's partition. */
  list(instanceId: string, options: HistoryListOptions = {}): PagedAsyncIterable<HistoryEntry> {
    return pagedList((page) => this.listPage(instanceId, page), options);
  }

  private async listPage(instanceId: string, options: HistoryListOptions = {}): Promise<Page<HistoryEntry>> {
    const partitionKey = encodeKey(instanceId, 'instance id');
    // '.' is the character after '-', so this range is exactly the `h-` rows (from `fromSequence` on:
    // zero-padded sequence numbers sort as numbers).
    const from = options.fromSequence ? historyRowKey(options.fromSequence) : HISTORY_ROW_PREFIX;
    const filter = odata`PartitionKey eq ${partitionKey} and RowKey ge ${from} and RowKey lt ${'h.'}`;
    return queryPage(this.client, filter, options, (row) => parseBody<HistoryEntry>(row), `history of instance "${instanceId}"`);
  }

  /** The instance's outbox rows: a range query on its `o-` rows (table-outbox-rows.ts). */
  listOutbox(instanceId: string, options: OperationOptions = {}): Promise<OutboxRow[]> {
    return this.outboxRows.listOutbox(instanceId, options);
  }

  /** Outbox rows of every instance: a scan of the table for `o-` rows (start-up only). */
  listAllOutbox(options: PageOptions = {}): PagedAsyncIterable<StoredOutboxRow> {
    return this.outboxRows.listAllOutbox(options);
  }

  /** Deletes the rows (already gone is fine), in transactions of up to 100 (table-outbox-rows.ts). */
  deleteOutbox(instanceId: string, rowIds: readonly string[], options: OperationOptions = {}): Promise<void> {
    return this.outboxRows.deleteOutbox(instanceId, rowIds, options);
  }

  /** Oldest first: a range query on the instance's `e-` rows (table-event-records.ts). */
  listEvents(instanceId: string, options: PageOptions = {}): PagedAsyncIterable<LifecycleEventRecord> {
    return this.events.listEvents(instanceId, options);
  }

  getEvent(instanceId: string, eventId: string, options: OperationOptions = {}): Promise<LifecycleEventRecord | undefined> {
    return this.events.getEvent(instanceId, eventId, options);
  }

  /** A Merge of the delivery's two columns, under the row's ETag with `ifStatus` (table-event-records.ts). */
  updateDelivery(instanceId: string, eventId: string, index: number, delivery: EventDelivery, options: OperationOptions & { ifStatus?: DeliveryStatus } = {}): Promise<void> {
    return this.events.updateDelivery(instanceId, eventId, index, delivery, options);
  }

  /** Event rows with a pending delivery: of every instance (a scan of the table, start-up only) or of one partition. */
  listPendingEvents(options: PageOptions & { instanceId?: string } = {}): PagedAsyncIterable<StoredEventRecord> {
    return this.events.listPendingEvents(options);
  }

  private async submit(instance: Instance, write: InstanceWrite, ifMatch: string, options: OperationOptions): Promise<StoredInstance> {
    const what = `instance "${instance.id}"`;
    const columns = columnsOf(instance);
    const partitionKey = columns.partitionKey;
    // Always a transaction, even for a lone entity: same single round trip, and Azurite decodes a
    // plain entity request chunk by chunk, corrupting multi-byte characters that straddle 64 KiB
    // chunks (azurite/dist/src/table/generated/utils/serializer.js, readRequestIntoText), while it
    // decodes transaction bodies whole. The rows beside the instance are checked first, so that a
    // refused save has written nothing, not even a blob.
    const rows = saveRows(partitionKey, write, what);
    // Inline while it fits an entity (one read); else the body goes to a new blob, written before the transaction.
    const prepared = await this.bodies.prepare(withoutEtag(instance), columns, options);
    const entity = prepared.entity;
    assertEntityFits(entity, what);
    const actions: TransactionAction[] = [ifMatch === 'create' ? ['create', entity] : ['update', entity, 'Replace', { etag: ifMatch }], ...rows];
    let response: TableTransactionResponse;
    try {
      response = await submitTransaction(this.client, actions, { abortSignal: options.abortSignal });
    } catch (error) {
      // A refused save's blob is deleted once certainly no one's; any other waits for the sweep.
      await this.bodies.failed(instance.id, prepared, error);
      // A conditional save of an instance that is gone fails its precondition, as HTTP If-Match would
      // (and as the in-memory store does): the engine then reloads and reports `notFound`.
      if (ifMatch !== 'create' && isEntityNotFound(error)) throw new PreconditionFailedError(`${what} no longer exists`, { cause: error });
      // A creation refused with 409: the instance exists, or a fence of one of its claims was placed first.
      if (ifMatch === 'create' && write.fences?.length && statusOf(error) === 409 && !(await this.get(instance.id, options))) {
        throw new CreationFencedError(`The key claim of ${what} was taken over before it was created`, { cause: error });
      }
      throw toSignalboxError(error, what);
    }
    const etag = response.subResponses[0]?.etag;
    if (!etag) throw new StorageError(`Saving ${what} returned no ETag`, response.status, false);
    // The blob of the version this save replaced is no one's now (best effort: the sweep collects a miss).
    await this.bodies.committed(prepared, ifMatch, etag);
    return { ...withoutEtag(instance), etag };
  }
}
