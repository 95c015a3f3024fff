/**
 * @module Lifecycle event records as table rows in their instance's partition (RowKey
 * `e-<sequence, 10 digits>-<rank, 2 digits>`, so a range query lists them in emission order). The event
 * is in `body`; each subscription's delivery is its own pair of columns, `d<i>` (the delivery as JSON)
 * and `s<i>` (its status, for the start-up query of pending deliveries), so updating one delivery is a
 * Merge of two columns that never overwrites another subscription's.
 */
import { odata } from '@azure/data-tables';
import type { EventDelivery, LifecycleEventRecord } from '../engine/decide';
import { EVENT_RANK } from '../engine/definition';
import { MAX_SUBSCRIPTIONS_PER_WORKFLOW } from '../engine/definition';
import { parseEventId } from '../engine/decide';
import { parseBody, toBody, type EntityProperties } from './entity-body';
import { padNumber } from './keys';

export const EVENT_ROW_PREFIX = 'e-';

export function eventRowKey(sequence: number, type: LifecycleEventRecord['type']): string {
  return `${EVENT_ROW_PREFIX}${padNumber(sequence)}-${padNumber(EVENT_RANK[type], 2)}`;
}

/** The row key of `eventId` of `instanceId`, or undefined when the id is not one of its events. */
export function eventRowKeyOf(instanceId: string, eventId: string): string | undefined {
  const parsed = parseEventId(instanceId, eventId);
  return parsed && eventRowKey(parsed.sequence, parsed.type);
}

export function deliveryColumns(index: number, delivery: EventDelivery): EntityProperties {
  return { [`d${index}`]: JSON.stringify(delivery), [`s${index}`]: delivery.status };
}

export function toEventProperties(record: LifecycleEventRecord): EntityProperties {
  const { deliveries, ...event } = record;
  const properties: EntityProperties = { ...toBody(event), deliveryCount: deliveries.length };
  deliveries.forEach((delivery, index) => Object.assign(properties, deliveryColumns(index, delivery)));
  return properties;
}

export function fromEventRow(row: Record<string, unknown>): LifecycleEventRecord {
  const event = parseBody<Omit<LifecycleEventRecord, 'deliveries'>>(row);
  const count = Number(row.deliveryCount ?? 0);
  const deliveries: EventDelivery[] = [];
  for (let index = 0; index < count; index++) deliveries.push(JSON.parse(String(row[`d${index}`])) as EventDelivery);
  return { ...event, deliveries };
}

export function eventRangeFilter(partitionKey: string): string {
  return odata`PartitionKey eq ${partitionKey} and RowKey ge ${EVENT_ROW_PREFIX} and RowKey lt ${'e.'}`;
}

/** Event rows with at least one pending delivery, of every partition or of `partitionKey`. */
export function pendingEventsFilter(partitionKey?: string): string {
  const statuses = Array.from({ length: MAX_SUBSCRIPTIONS_PER_WORKFLOW }, (_, index) => `s${index} eq 'pending'`).join(' or ');
  const range = partitionKey !== undefined ? eventRangeFilter(partitionKey) : odata`RowKey ge ${EVENT_ROW_PREFIX} and RowKey lt ${'e.'}`;
  return `${range} and (${statuses})`;
}
