/**
 * @module The rows of an instance's partition (table-instance-store.ts): their row keys, the instance
 * row's query columns, the filter of instance queries, and the rows a save writes beside the instance
 * row. Pure: builds entities and transaction actions, talks to no table.
 */
import { odata, type TransactionAction } from '@azure/data-tables';
import type { Instance, StoredInstance } from '../engine/model';
import { ValidationError } from '../engine/model';
import type { InstanceQuery, InstanceWrite } from '../engine/ports';
import { assertEntityFits, toBody } from './entity-body';
import { eventRowKey, toEventProperties } from './event-rows';
import { encodeKey, padNumber } from './keys';

export const INSTANCE_ROW_KEY = 'instance';
export const HISTORY_ROW_PREFIX = 'h-';
export const OUTBOX_ROW_PREFIX = 'o-';
/** The row of the instance's recent offers (offers.ts): outside the `h-`, `o-` and `e-` ranges. */
export const OFFERS_ROW_KEY = 'offers';
/** Applied-trigger rows (`a-<encoded trigger id>`): what the instance did with a trigger its bounded list let go, for its whole life. */
export const APPLIED_ROW_PREFIX = 'a-';
/** A key claim's creation fence (InstanceStore.fenceCreation): written by the creation, or by a claimant that took the claim over first. */
export const FENCE_ROW_PREFIX = 'f-';
/** A transaction holds at most 100 operations; one is the instance. */
export const MAX_ROWS_PER_SAVE = 99;

export type Entity = { partitionKey: string; rowKey: string } & Record<string, string | number | boolean>;

export function outboxRowKey(rowId: string): string {
  return `${OUTBOX_ROW_PREFIX}${encodeKey(rowId, 'outbox row id')}`;
}

export function fenceRowKey(token: string): string {
  return `${FENCE_ROW_PREFIX}${encodeKey(token, 'claim token')}`;
}

export function appliedRowKey(triggerId: string): string {
  return `${APPLIED_ROW_PREFIX}${encodeKey(triggerId, 'trigger id')}`;
}

export function historyRowKey(sequence: number): string {
  return `${HISTORY_ROW_PREFIX}${padNumber(sequence)}`;
}

export function withoutEtag(instance: Instance): Instance {
  // Callers often pass back the StoredInstance they read; its ETag must not be stored in the body.
  const { etag: _etag, ...rest } = instance as StoredInstance;
  return rest;
}

/** The filter of the instance rows `query` matches. */
export function instanceFilter(query: InstanceQuery): string {
  let filter = odata`RowKey eq ${INSTANCE_ROW_KEY}`;
  if (query.workflowId !== undefined) filter += ` and ${odata`workflowId eq ${query.workflowId}`}`;
  if (query.stateId !== undefined) filter += ` and ${odata`stateId eq ${query.stateId}`}`;
  if (query.status !== undefined) filter += ` and ${odata`status eq ${query.status}`}`;
  if (query.parentId !== undefined) filter += ` and ${odata`parentId eq ${query.parentId}`}`;
  return filter;
}

/** The instance row's keys and query columns (its body goes beside them, inline or as a blob reference). */
export function columnsOf(instance: Instance): Entity {
  return {
    partitionKey: encodeKey(instance.id, 'instance id'),
    rowKey: INSTANCE_ROW_KEY,
    workflowId: instance.workflowId,
    workflowVersion: instance.workflowVersion,
    stateId: instance.stateId,
    status: instance.status,
    ...(instance.parent ? { parentId: instance.parent.instanceId } : {}),
  };
}

/**
 * The actions a save adds to the instance row's in one transaction: history, outbox, event, applied and
 * fence rows, each checked to fit an entity. Throws before anything is written when there are more than
 * MAX_ROWS_PER_SAVE rows or one does not fit, so a refused save writes nothing, not even a blob.
 */
export function saveRows(partitionKey: string, write: InstanceWrite, what: string): TransactionAction[] {
  const history = write.history ?? [];
  const outbox = write.outbox ?? [];
  const events = write.events ?? [];
  const applied = write.applied ?? [];
  if (history.length + outbox.length + events.length + applied.length > MAX_ROWS_PER_SAVE) {
    throw new ValidationError(`At most ${MAX_ROWS_PER_SAVE} history entries, outbox rows and event records can be saved with an instance`, [
      { path: 'history', message: `has ${history.length} entries, ${outbox.length} outbox rows and ${events.length} event records` },
    ]);
  }
  const rows: TransactionAction[] = [];
  for (const entry of history) {
    const row: Entity = { partitionKey, rowKey: historyRowKey(entry.sequence), ...toBody(entry) };
    assertEntityFits(row, `history entry ${entry.sequence} of ${what}`);
    rows.push(['create', row]);
  }
  for (const outboxRow of outbox) {
    const row: Entity = { partitionKey, rowKey: outboxRowKey(outboxRow.id), kind: outboxRow.kind, ...toBody(outboxRow) };
    assertEntityFits(row, `outbox row "${outboxRow.id}" of ${what}`);
    // Upsert: a row id is deterministic, and writing the same row twice must not fail the save.
    rows.push(['upsert', row, 'Replace']);
  }
  for (const event of events) {
    const row: Entity = { partitionKey, rowKey: eventRowKey(event.sequence, event.type), ...toEventProperties(event) };
    assertEntityFits(row, `event "${event.id}" of ${what}`);
    rows.push(['create', row]);
  }
  for (const record of applied) {
    // Upsert: a save re-made after a lost response writes the same record again.
    rows.push(['upsert', { partitionKey, rowKey: appliedRowKey(record.triggerId), ...toBody(record) }, 'Replace']);
  }
  // Create, not upsert: a fence placed first (fenceCreation) fails the whole transaction.
  for (const token of write.fences ?? []) rows.push(['create', { partitionKey, rowKey: fenceRowKey(token), fence: 'creation' }]);
  return rows;
}
