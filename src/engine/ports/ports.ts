/**
 * @module The ports the engine needs from the outside world. `src/storage` implements them on Azure
 * Table Storage, `src/leasing` on Azure Blob leases, and `src/testing` in memory for tests.
 * They speak the Azure SDK's idiom: options bags last, `ifMatch` ETags, and lists that return an async
 * iterable of items with `byPage({ continuationToken, maxPageSize })` for pages with an opaque
 * continuation token (paging.ts; `PageOptions` given to a list are its defaults for every page).
 * Implementations throw only SignalboxError subclasses (never a RestError).
 */
import type { InstanceStatus } from '../model/enums';
import type { WorkflowDefinition, WorkflowVersion } from '../definition/definition';
import type { AppliedTrigger, HistoryEntry, Instance, StoredInstance } from '../model/instance';
import type { InstanceResult } from '../operations/operation';
import type { DeliveryStatus, EventDelivery, LifecycleEventRecord } from '../decide/lifecycle-events';
import type { OutboxRow, StoredOutboxRow } from '../model/outbox';
import type { DueTimer } from '../decide/timers';
import type { TriggerOffer } from '../decide/offers';
import type { PagedAsyncIterable } from './paging';

export interface OperationOptions {
  abortSignal?: AbortSignal;
}

export interface PageOptions extends OperationOptions {
  continuationToken?: string;
  /** @default 100 (implementations may cap it at 1000) */
  maxPageSize?: number;
}

export interface Page<T> {
  readonly items: T[];
  /** Absent on the last page. */
  readonly continuationToken?: string;
}

export interface WorkflowSummary {
  readonly id: string;
  readonly displayName: string;
  readonly version: number;
}

/** How a version is written: its `createdAt` is the caller's (the engine's clock), never the store's. */
export interface WorkflowWriteOptions extends OperationOptions {
  readonly createdAt: Date;
}

/** Versioned workflow definitions; every version is kept immutably. */
export interface WorkflowStore {
  /** Creates version 1. Throws ConflictError if the id exists. */
  create(definition: WorkflowDefinition, options: WorkflowWriteOptions): Promise<WorkflowVersion>;
  /**
   * Adds a new version. `ifMatch` is the latest version's ETag or `*`; a stale ETag throws
   * PreconditionFailedError, a missing workflow NotFoundError.
   */
  update(definition: WorkflowDefinition, options: WorkflowWriteOptions & { ifMatch: string }): Promise<WorkflowVersion>;
  /** The latest version, or the given one; undefined if absent. */
  get(workflowId: string, options?: OperationOptions & { version?: number }): Promise<WorkflowVersion | undefined>;
  list(options?: PageOptions): PagedAsyncIterable<WorkflowSummary>;
  /** Removes every version (the latest pointer first, so a partly deleted workflow is already gone). Absent is fine. */
  delete(workflowId: string, options?: OperationOptions): Promise<void>;
}

/** What a save writes besides the instance, atomically with it. */
export interface InstanceWrite {
  /** History entries to append (their sequence numbers are fixed by the caller). */
  readonly history?: readonly HistoryEntry[];
  /** Outbox rows to write in the instance's partition (outbox.ts); a row with an id already there is replaced. */
  readonly outbox?: readonly OutboxRow[];
  /** Lifecycle event records to write in the instance's partition (events/lifecycle-events.ts). */
  readonly events?: readonly LifecycleEventRecord[];
  /**
   * Records of applied triggers the instance's bounded `appliedTriggers` lets go of in this save, kept
   * beside it (one row each, replaced if present) for as long as it exists (getApplied).
   */
  readonly applied?: readonly AppliedTrigger[];
  /**
   * Creation only: the key claims' tokens (search-port.ts KeyClaim), each written as a row of the instance's
   * partition in the creation's transaction. A token fenced first (fenceCreation) fails the creation with
   * CreationFencedError: the claim was taken over, and this creation must not hold the key.
   */
  readonly fences?: readonly string[];
}

export interface InstanceQuery {
  readonly workflowId?: string;
  readonly stateId?: string;
  readonly status?: InstanceStatus;
  /** Children of this instance (`parent.instanceId`). */
  readonly parentId?: string;
}

/**
 * Instances, one entity each, with their history and outbox rows beside them so that a save, its
 * history entries and its outbox rows are one atomic write (shared/design/stack-notes.md, "A table
 * layout that makes a save one round trip").
 */
export interface InstanceStore {
  /** Throws ConflictError if the id exists (never overwrites); TooLargeError over the store's instance limit (instance-size.ts). */
  create(instance: Instance, write?: InstanceWrite, options?: OperationOptions): Promise<StoredInstance>;
  get(instanceId: string, options?: OperationOptions): Promise<StoredInstance | undefined>;
  /** Conditional on `ifMatch`: a stale ETag throws PreconditionFailedError; TooLargeError over the store's instance limit. */
  save(instance: Instance, write: InstanceWrite, options: OperationOptions & { ifMatch: string }): Promise<StoredInstance>;
  query(query: InstanceQuery, options?: PageOptions): PagedAsyncIterable<StoredInstance>;
  /**
   * The ids of the instances `query` matches, without reading their records (counting them costs the
   * table query alone, however large they are). Optional: without it, callers page through `query`.
   */
  queryIds?(query: InstanceQuery, options?: PageOptions): PagedAsyncIterable<string>;
  /** What the instance recorded when it applied `triggerId` (InstanceWrite.applied), if it ever did. */
  getApplied(instanceId: string, triggerId: string, options?: OperationOptions): Promise<AppliedTrigger | undefined>;
  /**
   * Records a trigger offered to the instance that changed nothing (offers.ts), keeping the newest
   * MAX_RECENT_OFFERS; called under the instance's lease. Optional: a store without it keeps none.
   */
  recordOffer?(instanceId: string, offer: TriggerOffer, options?: OperationOptions): Promise<void>;
  /** The instance's recent offers, newest first (empty when none, or the instance does not exist). */
  listOffers?(instanceId: string, options?: OperationOptions): Promise<TriggerOffer[]>;
  /**
   * Removes every row of the instance (history, outbox rows, then the instance itself, last, so that an
   * interrupted purge leaves the instance findable and a repeated purge finishes it). Absent is fine.
   */
  purge(instanceId: string, options?: OperationOptions): Promise<void>;
  /**
   * Makes sure the creation of `instanceId` that carries `token` (InstanceWrite.fences) never commits: true when
   * the fence is placed (that creation fails from now on), false when that creation has committed already.
   */
  fenceCreation(instanceId: string, token: string, options?: OperationOptions): Promise<boolean>;
  /**
   * Deletes what a store keeps outside an instance's rows and no instance references any more, written
   * before `writtenBefore` (a large record's blob from a save that failed, or a version a save replaced and
   * could not delete); returns how many. The caller leaves ORPHAN_GRACE_PERIOD_MS for saves in flight.
   * Optional: a store that keeps nothing outside the rows has nothing to collect.
   */
  collectOrphans?(options: OperationOptions & { writtenBefore: Date }): Promise<number>;
}

/** How old a stray blob must be before the sweep deletes it: far longer than a save in flight takes. */
export const ORPHAN_GRACE_PERIOD_MS = 3_600_000;

export interface HistoryListOptions extends PageOptions {
  /** Only entries with this sequence number or later (pass the same value with every page). @default 0 */
  fromSequence?: number;
}

export interface HistoryStore {
  /** Oldest first. */
  list(instanceId: string, options?: HistoryListOptions): PagedAsyncIterable<HistoryEntry>;
}

/**
 * Subject → instance rows, so finding candidates costs in proportion to the matches. Invariant: the
 * index is a superset of the truth (add before saving an instance, remove after); the processor
 * re-checks interests under the lease.
 */
export interface InterestIndex {
  add(instanceId: string, subjects: readonly string[], options?: OperationOptions): Promise<void>;
  remove(instanceId: string, subjects: readonly string[], options?: OperationOptions): Promise<void>;
  /** Instance ids interested in any of `subjects`, each at most once per page. */
  findCandidates(subjects: readonly string[], options?: PageOptions): PagedAsyncIterable<string>;
}

export type { OperationQuery, OperationStore } from './operation-store';
export type { LeaseHandle, LeaseInspection, LeaseOptions, LeaseProvider } from './lease-port';

/**
 * The outbox rows of instances, kept in each instance's partition beside it (they are written by
 * InstanceStore saves, atomically with the change). The relay (outbox-relay.ts) reads and deletes them.
 */
export interface OutboxStore {
  /** The rows of one instance still present, in id order. */
  listOutbox(instanceId: string, options?: OperationOptions): Promise<OutboxRow[]>;
  /** Rows of every instance (the start-up sweep): a scan of the table, so only for start-up. */
  listAllOutbox(options?: PageOptions): PagedAsyncIterable<StoredOutboxRow>;
  /** Deletes rows once delivered; rows already gone are fine (a relay may run twice). */
  deleteOutbox(instanceId: string, rowIds: readonly string[], options?: OperationOptions): Promise<void>;
}

export type { InstanceResult };

/** An event record of some instance (the start-up resume of deliveries lists them across instances). */
export interface StoredEventRecord {
  readonly instanceId: string;
  readonly event: LifecycleEventRecord;
}

/**
 * Lifecycle event records, kept in each instance's partition (written by InstanceStore saves, atomically
 * with the change). Each delivery is updated on its own, so subscriptions never overwrite each other.
 */
export interface EventStore {
  /** The instance's events, oldest first (by sequence, then emission order). */
  listEvents(instanceId: string, options?: PageOptions): PagedAsyncIterable<LifecycleEventRecord>;
  getEvent(instanceId: string, eventId: string, options?: OperationOptions): Promise<LifecycleEventRecord | undefined>;
  /**
   * Replaces the delivery of one subscription (by its index in `deliveries`). With `ifStatus`, only while
   * that delivery's status is `ifStatus` (an atomic compare-and-set), else ConflictError.
   */
  updateDelivery(instanceId: string, eventId: string, index: number, delivery: EventDelivery, options?: OperationOptions & { ifStatus?: DeliveryStatus }): Promise<void>;
  /**
   * Events with a pending delivery, oldest first per instance. Of every instance (a scan of the table, so
   * only for start-up), or with `instanceId` of that one instance (the order check of every delivery).
   */
  listPendingEvents(options?: PageOptions & { instanceId?: string }): PagedAsyncIterable<StoredEventRecord>;
}

/**
 * Armed timers by due time, for a host that schedules timers from storage (the local server). Invariant,
 * as for the interest index: a superset of the truth. The run loop adds the rows of newly armed timers
 * before the save that arms them and removes those of timers a save disarmed right after it (an entry
 * left, an instance ended or deleted, a timer spent); the scheduler removes a row once its timer's
 * trigger is submitted, and the instance decides at firing time whether the timer is still armed.
 */
export interface DueTimerIndex {
  /** Idempotent (a row is keyed by due time and timer id). */
  add(timers: readonly DueTimer[], options?: OperationOptions): Promise<void>;
  /** Rows due at or before `until`, earliest first. */
  listDue(until: Date, options?: PageOptions): PagedAsyncIterable<DueTimer>;
  /** Rows already gone are fine. */
  remove(timers: readonly DueTimer[], options?: OperationOptions): Promise<void>;
}
