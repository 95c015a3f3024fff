/**
 * @module The lifecycle event records of an instance's partition on Azure Table Storage (the `e-` rows,
 * event-rows.ts): listing, point reads and delivery updates. The instance store's save writes them with
 * the instance; this reads and updates them afterwards, and TableInstanceStore's EventStore methods
 * delegate here.
 */
import type { TableClient } from '@azure/data-tables';
import type { DeliveryStatus, EventDelivery, LifecycleEventRecord } from '../engine/decide';
import { ConflictError, PreconditionFailedError, ValidationError } from '../engine/model';
import type { OperationOptions, Page, PageOptions, StoredEventRecord } from '../engine/ports';
import { pagedList, type PagedAsyncIterable } from '../engine/ports';
import { isEntityNotFound, toSignalboxError } from './errors';
import { deliveryColumns, eventRangeFilter, eventRowKeyOf, fromEventRow, pendingEventsFilter } from './event-rows';
import { decodeKey, encodeKey } from './keys';
import { queryPage } from './table-query';

/** Reads and conditional merges of one delivery before it gives up (ConflictError). */
const MAX_DELIVERY_UPDATE_ATTEMPTS = 5;

export class TableEventRecords {
  constructor(private readonly client: TableClient) {}

  /** Oldest first: a range query on the instance's `e-` rows. */
  listEvents(instanceId: string, options: PageOptions = {}): PagedAsyncIterable<LifecycleEventRecord> {
    return pagedList((page) => this.listEventsPage(instanceId, page), options);
  }

  private async listEventsPage(instanceId: string, options: PageOptions = {}): Promise<Page<LifecycleEventRecord>> {
    return queryPage(this.client, eventRangeFilter(encodeKey(instanceId, 'instance id')), options, fromEventRow, `events of instance "${instanceId}"`);
  }

  async getEvent(instanceId: string, eventId: string, options: OperationOptions = {}): Promise<LifecycleEventRecord | undefined> {
    const rowKey = eventRowKeyOf(instanceId, eventId);
    if (!rowKey) return undefined;
    try {
      const record = fromEventRow(await this.client.getEntity<Record<string, unknown>>(encodeKey(instanceId, 'instance id'), rowKey, { abortSignal: options.abortSignal }));
      // The row of another incarnation of the instance id (the key holds no incarnation): not this event.
      return record.id === eventId ? record : undefined;
    } catch (error) {
      if (isEntityNotFound(error)) return undefined;
      throw toSignalboxError(error, `event "${eventId}"`);
    }
  }

  /**
   * A Merge of the delivery's two columns: other subscriptions' deliveries are never overwritten. With
   * `ifStatus`, the row is read and merged under its ETag, read again while another delivery's update
   * got in between (a few times), so the status seen is the status replaced.
   */
  async updateDelivery(instanceId: string, eventId: string, index: number, delivery: EventDelivery, options: OperationOptions & { ifStatus?: DeliveryStatus } = {}): Promise<void> {
    const rowKey = eventRowKeyOf(instanceId, eventId);
    if (!rowKey) throw new ValidationError(`"${eventId}" is not an event id of instance "${instanceId}"`, [{ path: 'eventId', message: 'is not an event of this instance' }]);
    const partitionKey = encodeKey(instanceId, 'instance id');
    for (let attempt = 1; ; attempt++) {
      let etag: string | undefined;
      try {
        if (options.ifStatus !== undefined) {
          const row = await this.client.getEntity<Record<string, unknown>>(partitionKey, rowKey, { abortSignal: options.abortSignal });
          if (row[`s${index}`] !== options.ifStatus) throw new ConflictError(`The delivery of event "${eventId}" to "${delivery.subscriptionId}" is not ${options.ifStatus}`);
          etag = row.etag;
        }
        await this.client.updateEntity({ partitionKey, rowKey, ...deliveryColumns(index, delivery) }, 'Merge', { abortSignal: options.abortSignal, ...(etag ? { etag } : {}) });
        return;
      } catch (error) {
        const translated = toSignalboxError(error, `event "${eventId}"`);
        if (translated instanceof PreconditionFailedError && attempt < MAX_DELIVERY_UPDATE_ATTEMPTS) continue;
        if (translated instanceof PreconditionFailedError) throw new ConflictError(`The delivery of event "${eventId}" to "${delivery.subscriptionId}" kept changing`, { cause: error });
        throw translated;
      }
    }
  }

  /** Event rows with a pending delivery: of every instance (a scan of the table, start-up only) or of one partition. */
  listPendingEvents(options: PageOptions & { instanceId?: string } = {}): PagedAsyncIterable<StoredEventRecord> {
    const partitionKey = options.instanceId !== undefined ? encodeKey(options.instanceId, 'instance id') : undefined;
    return pagedList((page) => this.listPendingEventsPage(partitionKey, page), options);
  }

  private async listPendingEventsPage(partitionKey: string | undefined, options: PageOptions = {}): Promise<Page<StoredEventRecord>> {
    return queryPage(this.client, pendingEventsFilter(partitionKey), options, (row) => ({ instanceId: decodeKey(String(row.partitionKey)), event: fromEventRow(row) }), 'pending events');
  }
}
