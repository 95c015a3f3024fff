/**
 * @module The rows of operations on Azure Table Storage (table-operation-store.ts): the one partition of
 * records and listing rows, their row keys (records `r:` + encoded id; listing rows the inverted creation
 * time + `-` + encoded id, newest first), the result rows of an operation's own partition, the entities
 * built from an operation, the filters of its queries, and the ETag and body read back. Pure: builds
 * entities and filters, talks to no table.
 */
import { odata } from '@azure/data-tables';
import { createHash } from 'node:crypto';
import type { OperationStatus } from '../engine/model';
import { StorageError } from '../engine/model';
import { listedOperation, operationKind, operationWorkflowId, type Operation, type StoredOperation } from '../engine/operations';
import type { OperationQuery } from '../engine/ports';
import { parseBody, toBody } from './entity-body';
import { MAX_TABLE_KEY_LENGTH, encodeKey } from './keys';
import type { TableRow } from './table-query';

/**
 * The one partition of records and listing rows (see the module comment). encodeKey never yields it (its
 * `~` is always followed by two hex digits), so it cannot meet an operation's own partition (its result
 * rows; the records of the layout before this one, which it does not read).
 */
export const OPERATIONS_PARTITION = '~operations';
/** Records' RowKeys start with it; listing rows start with a digit, so they all sort before `:`. */
const RECORD_ROW_KEY_PREFIX = 'r:';
const LISTING_ROW_KEYS_END = ':';
const LATEST_TIME_IN_MS = 9_999_999_999_999;

/** 13 digits that sort newest first: 9999999999999 − the time in milliseconds (an unreadable time sorts last). */
export function invertedTime(isoTime: string): string {
  const ms = Date.parse(isoTime);
  return String(LATEST_TIME_IN_MS - (Number.isFinite(ms) ? Math.min(Math.max(ms, 0), LATEST_TIME_IN_MS) : 0)).padStart(13, '0');
}

/** The listing rows `query` selects, newest first (an ascending scan of the rows before `:`). */
export function listingFilter(query: OperationQuery): string {
  let filter = `${odata`PartitionKey eq ${OPERATIONS_PARTITION}`} and ${odata`RowKey lt ${LISTING_ROW_KEYS_END}`}`;
  // createdSince ≤ t ⇔ inverted(t) ≤ inverted(createdSince); t < createdBefore ⇔ inverted(t) > inverted(createdBefore).
  if (query.createdSince !== undefined) filter += ` and ${odata`RowKey lt ${`${invertedTime(query.createdSince)}.`}`}`;
  if (query.createdBefore !== undefined) filter += ` and ${odata`RowKey ge ${`${invertedTime(query.createdBefore)}.`}`}`;
  if (query.kind !== undefined) filter += ` and ${odata`kind eq ${query.kind}`}`;
  if (query.status !== undefined) filter += ` and ${odata`status eq ${query.status}`}`;
  if (query.workflowId !== undefined) filter += ` and ${odata`workflowId eq ${query.workflowId}`}`;
  return filter;
}

/** The records of any of `statuses` (not empty), updated before `updatedBefore` when it is given. */
export function recordsByStatusFilter(statuses: readonly OperationStatus[], updatedBefore: string | undefined): string {
  const anyStatus = statuses.map((status) => odata`status eq ${status}`).join(' or ');
  // `updatedAt` is a column (ISO 8601, UTC, so text order is time order).
  const before = updatedBefore === undefined ? '' : ` and ${odata`updatedAt lt ${updatedBefore}`}`;
  // Record keys are `r:…`: the range from `r:` up to `r;` (the next character) holds them all.
  const records = `${odata`PartitionKey eq ${OPERATIONS_PARTITION}`} and ${odata`RowKey ge ${RECORD_ROW_KEY_PREFIX}`} and ${odata`RowKey lt ${'r;'}`}`;
  return `${records} and (${anyStatus})${before}`;
}

export function recordRowKey(operationId: string): string {
  return RECORD_ROW_KEY_PREFIX + encodeKey(operationId, 'operation id');
}

/**
 * Result rows live in a partition per operation (the encoded id; its record and listing row are in
 * `OPERATIONS_PARTITION`): RowKey `~r` + the encoded instance id (`~r` is no escape,
 * so no other row of the partition starts with it), hashed when the two would pass the key limit.
 */
const RESULT_ROW_PREFIX = '~r';

export function resultRowKey(instanceId: string): string {
  const key = encodeKey(instanceId, 'instance id');
  if (RESULT_ROW_PREFIX.length + key.length <= MAX_TABLE_KEY_LENGTH) return `${RESULT_ROW_PREFIX}${key}`;
  const digest = createHash('sha256').update(key).digest('base64url');
  const kept = key.slice(0, MAX_TABLE_KEY_LENGTH - RESULT_ROW_PREFIX.length - 2 - digest.length).replace(/~[0-9A-F]?$/, '');
  return `${RESULT_ROW_PREFIX}${kept}~~${digest}`;
}

export function resultsFilter(operationId: string): string {
  return odata`PartitionKey eq ${encodeKey(operationId, 'operation id')} and RowKey ge ${RESULT_ROW_PREFIX} and RowKey lt ${'~s'}`;
}

export function withoutEtag(operation: Operation): Operation {
  const { etag: _etag, ...rest } = operation as StoredOperation;
  return rest;
}

export function toEntity(operation: Operation): { partitionKey: string; rowKey: string } & Record<string, string | number | boolean> {
  return {
    partitionKey: OPERATIONS_PARTITION,
    rowKey: recordRowKey(operation.id),
    status: operation.status,
    createdAt: operation.createdAt,
    updatedAt: operation.updatedAt,
    ...toBody(withoutEtag(operation)),
  };
}

export function toListingEntity(operation: Operation): { partitionKey: string; rowKey: string } & Record<string, string | number | boolean> {
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
export function isAscii(entity: Record<string, unknown>): boolean {
  for (const value of Object.values(entity)) if (typeof value === 'string' && !/^[\x00-\x7f]*$/.test(value)) return false;
  return true;
}

export function requireEtag(etag: string | undefined, operationId: string): string {
  if (!etag) throw new StorageError(`Saving operation "${operationId}" returned no ETag`, undefined, false);
  return etag;
}

export function toStoredOperation(row: TableRow): StoredOperation {
  return { ...parseBody<Operation>(row), etag: requireEtag(row.etag, String(row.rowKey)) };
}
