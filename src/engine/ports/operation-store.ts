/**
 * @module The operation store port: operations (a trigger's dispatch, a migration, a bulk action) recorded,
 * listed newest first or by status, and their per-instance results (TableOperationStore on Azure Tables,
 * InMemoryOperationStore in tests). Re-exported by ports.ts with the other ports.
 */
import type { OperationStatus } from '../model/enums';
import type { InstanceResult, ListedOperation, Operation, OperationKind, StoredOperation } from '../operations/operation';
import type { PagedAsyncIterable } from './paging';
import type { OperationOptions, PageOptions } from './ports';

/** Which operations a list holds (every field narrows it). */
export interface OperationQuery {
  readonly kind?: OperationKind;
  readonly status?: OperationStatus;
  /** Migrations and bulk actions of this workflow (a trigger is addressed to subjects, not to a workflow). */
  readonly workflowId?: string;
  /** Created at or after this moment (ISO 8601). */
  readonly createdSince?: string;
  /** Created before this moment (ISO 8601). */
  readonly createdBefore?: string;
}

export interface OperationStore {
  /**
   * Records a new operation, or returns the existing one with the same id (a repeated trigger id maps
   * to its first operation): `created` tells which.
   */
  create(operation: Operation, options?: OperationOptions): Promise<{ operation: StoredOperation; created: boolean }>;
  get(operationId: string, options?: OperationOptions): Promise<StoredOperation | undefined>;
  /** Replaces the record; with `ifMatch`, conditionally (PreconditionFailedError if stale). */
  update(operation: Operation, options?: OperationOptions & { ifMatch?: string }): Promise<StoredOperation>;
  /**
   * Operations newest first (by `createdAt`), as listed (without their per-instance results), narrowed
   * by `query`. An operation is listed from when its record is written; its listed status and summary
   * follow each change of status (not every progress write).
   */
  list(query: OperationQuery, options?: PageOptions): PagedAsyncIterable<ListedOperation>;
  /**
   * Operations whose status is one of `statuses` (used to resume unfinished work after a crash), and with
   * `updatedBefore` only those last changed before that instant (the operation retention purge).
   */
  listByStatus(statuses: readonly OperationStatus[], options?: PageOptions & { updatedBefore?: string }): PagedAsyncIterable<StoredOperation>;
  /** Removes the record, its listing and its results (the operation retention purge, host/retention.ts). Absent is fine. */
  delete(operationId: string, options?: OperationOptions): Promise<void>;
  /**
   * Records the result of the operation for one instance, keyed by the instance, so each instance has
   * one result; written again it replaces the row, or with `keepExisting` leaves one already there (a
   * retried application, which knows only what the instance recorded, keeps the first one's trace).
   * Results stay out of the record and out of durable history: the activity that applied the operation writes them.
   */
  putResult(operationId: string, result: InstanceResult, options?: OperationOptions & { keepExisting?: boolean }): Promise<void>;
  /** The operation's per-instance results, ordered by instance id (a page at a time). */
  listResults(operationId: string, options?: PageOptions): PagedAsyncIterable<InstanceResult>;
}
