/**
 * @module InstanceStore and HistoryStore in memory, sharing one map so that a save and its history
 * entries land together, as in the table layout. Values are serialised on the way in (as a real store
 * does, which also measures their size) and handed out deep-frozen, so a caller that mutated what it
 * read would fail loudly instead of changing the store behind its back. Writes are counted so tests can
 * assert "nothing was written".
 */
import { ConflictError, CreationFencedError, DEFAULT_MAX_INSTANCE_BYTES, instanceTooLargeError, NotFoundError, PreconditionFailedError } from '../../engine/model';
import type { AppliedTrigger, HistoryEntry, Instance, StoredInstance } from '../../engine/model';
import { plainInstance } from '../../engine/decide';
import type { OutboxRow, StoredOutboxRow } from '../../engine/model';
import type {
  EventStore,
  HistoryListOptions,
  HistoryStore,
  InstanceQuery,
  InstanceStore,
  InstanceWrite,
  OperationOptions,
  OutboxStore,
  Page,
  PageOptions,
  StoredEventRecord,
} from '../../engine/ports';
import { DeliveryStatus, type EventDelivery, type LifecycleEventRecord } from '../../engine/decide';
import { EVENT_RANK } from '../../engine/definition';
import { pageOf } from './paging';
import { withOffer, type TriggerOffer } from '../../engine/decide';
import { pagedList, type PagedAsyncIterable } from '../../engine/ports';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

export interface InMemoryInstanceStoreOptions {
  /** The largest instance record, UTF-8 JSON, as the Table store's option. @default DEFAULT_MAX_INSTANCE_BYTES (16 MiB) */
  readonly maxInstanceBytes?: number;
}

export class InMemoryInstanceStore implements InstanceStore, HistoryStore, OutboxStore, EventStore {
  /** The same limit, and the same error, as the Table store (which keeps what does not fit an entity in a blob). */
  readonly maxInstanceBytes: number;
  private readonly instances = new Map<string, StoredInstance>();
  private readonly histories = new Map<string, HistoryEntry[]>();
  private readonly outboxes = new Map<string, Map<string, OutboxRow>>();
  private readonly events = new Map<string, LifecycleEventRecord[]>();
  private readonly offers = new Map<string, TriggerOffer[]>();
  /** Per instance, the applied-trigger rows by trigger id (InstanceWrite.applied). */
  private readonly applied = new Map<string, Map<string, AppliedTrigger>>();
  /** Per instance id, the creation fences (InstanceStore.fenceCreation): rows of its partition in the table store. */
  private readonly fences = new Map<string, Set<string>>();
  /** Calls of getApplied (tests check the common path makes none). */
  appliedReads = 0;
  /** Calls of deleteOutbox that deleted at least one row. */
  outboxDeletes = 0;
  private counter = 0;
  /** Calls of create and save that wrote. */
  writes = 0;
  reads = 0;
  /** Called before each save is applied (after the ETag check passes); tests use it to inject failures. */
  beforeSave?: (instance: Instance) => void | Promise<void>;

  constructor(options: InMemoryInstanceStoreOptions = {}) {
    this.maxInstanceBytes = options.maxInstanceBytes ?? DEFAULT_MAX_INSTANCE_BYTES;
  }

  private store(
    instance: Instance,
    history: readonly HistoryEntry[],
    outbox: readonly OutboxRow[] = [],
    events: readonly LifecycleEventRecord[] = [],
    applied: readonly AppliedTrigger[] = [],
  ): StoredInstance {
    const plain = plainInstance(instance);
    const text = JSON.stringify(plain);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > this.maxInstanceBytes) throw instanceTooLargeError(plain.id, bytes, this.maxInstanceBytes);
    let existing = this.histories.get(plain.id);
    if (!existing) this.histories.set(plain.id, (existing = []));
    history.forEach((entry, index) => {
      // The caller fixes sequences; a gap or overlap means a bug that would corrupt the history.
      if (entry.sequence !== existing!.length + index) throw new Error(`history entry ${entry.sequence} of "${plain.id}" is out of sequence (expected ${existing!.length + index})`);
    });
    const stored: StoredInstance = deepFreeze({ ...(JSON.parse(text) as Instance), etag: `"i${++this.counter}"` });
    this.instances.set(plain.id, stored);
    // Appended in place: copying the whole history on every save would make long runs quadratic.
    for (const entry of history) existing.push(Object.freeze({ ...entry }));
    if (outbox.length) {
      let rows = this.outboxes.get(plain.id);
      if (!rows) this.outboxes.set(plain.id, (rows = new Map()));
      for (const row of outbox) rows.set(row.id, deepFreeze(structuredClone(row)));
    }
    if (events.length) {
      let records = this.events.get(plain.id);
      if (!records) this.events.set(plain.id, (records = []));
      records.push(...events.map((event) => deepFreeze(structuredClone(event))));
      records.sort((a, b) => a.sequence - b.sequence || EVENT_RANK[a.type] - EVENT_RANK[b.type]);
    }
    if (applied.length) {
      let records = this.applied.get(plain.id);
      if (!records) this.applied.set(plain.id, (records = new Map()));
      for (const record of applied) records.set(record.triggerId, deepFreeze(structuredClone(record)));
    }
    this.writes++;
    return stored;
  }

  async getApplied(instanceId: string, triggerId: string, _options?: OperationOptions): Promise<AppliedTrigger | undefined> {
    this.appliedReads++;
    return this.applied.get(instanceId)?.get(triggerId);
  }

  async create(instance: Instance, write: InstanceWrite = {}, _options?: OperationOptions): Promise<StoredInstance> {
    if (this.instances.has(instance.id)) throw new ConflictError(`Instance "${instance.id}" exists`);
    const fences = this.fences.get(instance.id) ?? new Set<string>();
    if (write.fences?.some((token) => fences.has(token))) throw new CreationFencedError(`The key claim of instance "${instance.id}" was taken over before it was created`);
    const stored = this.store(instance, write.history ?? [], write.outbox, write.events, write.applied);
    // Written with the creation, as the table store's rows in its transaction.
    for (const token of write.fences ?? []) fences.add(token);
    if (fences.size) this.fences.set(instance.id, fences);
    return stored;
  }

  async fenceCreation(instanceId: string, token: string, _options?: OperationOptions): Promise<boolean> {
    const fences = this.fences.get(instanceId) ?? new Set<string>();
    if (fences.has(token)) return false;
    this.fences.set(instanceId, fences.add(token));
    return true;
  }

  async get(instanceId: string, _options?: OperationOptions): Promise<StoredInstance | undefined> {
    this.reads++;
    return this.instances.get(instanceId);
  }

  async save(instance: Instance, write: InstanceWrite, options: OperationOptions & { ifMatch: string }): Promise<StoredInstance> {
    const current = this.instances.get(instance.id);
    if (!current || (options.ifMatch !== '*' && current.etag !== options.ifMatch)) {
      throw new PreconditionFailedError(`Instance "${instance.id}" has changed since it was read`);
    }
    await this.beforeSave?.(instance);
    // Re-check after the hook: it may have written in between (a simulated concurrent writer).
    if (options.ifMatch !== '*' && this.instances.get(instance.id)?.etag !== options.ifMatch) {
      throw new PreconditionFailedError(`Instance "${instance.id}" has changed since it was read`);
    }
    return this.store(instance, write.history ?? [], write.outbox, write.events, write.applied);
  }

  query(query: InstanceQuery, options?: PageOptions): PagedAsyncIterable<StoredInstance> {
    return pagedList((page) => this.queryInstancesPage(query, page), options);
  }

  queryIds(query: InstanceQuery, options?: PageOptions): PagedAsyncIterable<string> {
    return pagedList(async (page) => {
      const { items, continuationToken } = await this.queryInstancesPage(query, page);
      return { items: items.map((item) => item.id), ...(continuationToken ? { continuationToken } : {}) };
    }, options);
  }

  private async queryInstancesPage(query: InstanceQuery, options?: PageOptions): Promise<Page<StoredInstance>> {
    const matches = [...this.instances.values()]
      .filter(
        (item) =>
          (!query.workflowId || item.workflowId === query.workflowId) &&
          (!query.stateId || item.stateId === query.stateId) &&
          (!query.status || item.status === query.status) &&
          (!query.parentId || item.parent?.instanceId === query.parentId),
      )
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return pageOf(matches, options);
  }

  async recordOffer(instanceId: string, offer: TriggerOffer, _options?: OperationOptions): Promise<void> {
    this.offers.set(instanceId, deepFreeze(structuredClone(withOffer(this.offers.get(instanceId) ?? [], offer))));
  }

  async listOffers(instanceId: string, _options?: OperationOptions): Promise<TriggerOffer[]> {
    return structuredClone(this.offers.get(instanceId) ?? []);
  }

  async purge(instanceId: string, _options?: OperationOptions): Promise<void> {
    this.offers.delete(instanceId);
    this.histories.delete(instanceId);
    this.outboxes.delete(instanceId);
    this.applied.delete(instanceId);
    this.events.delete(instanceId);
    this.fences.delete(instanceId);
    this.instances.delete(instanceId);
  }

  /** Whether anything of the instance is left: its row, history, outbox, applied-trigger rows, events or recent offers (tests). */
  holdsAnythingOf(instanceId: string): boolean {
    return (
      this.instances.has(instanceId) || this.histories.has(instanceId) || this.outboxes.has(instanceId) || this.applied.has(instanceId) || this.events.has(instanceId) || this.offers.has(instanceId)
    );
  }

  list(instanceId: string, options?: HistoryListOptions): PagedAsyncIterable<HistoryEntry> {
    return pagedList((page) => this.listPage(instanceId, page), options);
  }

  private async listPage(instanceId: string, options?: HistoryListOptions): Promise<Page<HistoryEntry>> {
    // Sequence numbers are array positions (store() checks them), so the range is a slice.
    return pageOf((this.histories.get(instanceId) ?? []).slice(options?.fromSequence ?? 0), options);
  }

  async listOutbox(instanceId: string, _options?: OperationOptions): Promise<OutboxRow[]> {
    this.reads++;
    return [...(this.outboxes.get(instanceId)?.values() ?? [])].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  listAllOutbox(options?: PageOptions): PagedAsyncIterable<StoredOutboxRow> {
    return pagedList((page) => this.listAllOutboxPage(page), options);
  }

  private async listAllOutboxPage(options?: PageOptions): Promise<Page<StoredOutboxRow>> {
    const all: StoredOutboxRow[] = [];
    for (const instanceId of [...this.outboxes.keys()].sort()) for (const row of await this.listOutbox(instanceId)) all.push({ instanceId, row });
    return pageOf(all, options);
  }

  async deleteOutbox(instanceId: string, rowIds: readonly string[], _options?: OperationOptions): Promise<void> {
    const rows = this.outboxes.get(instanceId);
    let deleted = 0;
    for (const id of rowIds) if (rows?.delete(id)) deleted++;
    if (rows?.size === 0) this.outboxes.delete(instanceId);
    if (deleted) this.outboxDeletes++;
  }

  listEvents(instanceId: string, options?: PageOptions): PagedAsyncIterable<LifecycleEventRecord> {
    return pagedList((page) => this.listEventsPage(instanceId, page), options);
  }

  private async listEventsPage(instanceId: string, options?: PageOptions): Promise<Page<LifecycleEventRecord>> {
    return pageOf(this.events.get(instanceId) ?? [], options);
  }

  async getEvent(instanceId: string, eventId: string, _options?: OperationOptions): Promise<LifecycleEventRecord | undefined> {
    return this.events.get(instanceId)?.find((event) => event.id === eventId);
  }

  async updateDelivery(instanceId: string, eventId: string, index: number, delivery: EventDelivery, options: OperationOptions & { ifStatus?: DeliveryStatus } = {}): Promise<void> {
    const records = this.events.get(instanceId);
    const position = records?.findIndex((event) => event.id === eventId) ?? -1;
    // As on Table Storage (a Merge of a missing row is a 404), so callers handle one error for both stores.
    if (!records || position < 0) throw new NotFoundError(`event "${eventId}" was not found`);
    const record = records[position]!;
    if (options.ifStatus !== undefined && record.deliveries[index]?.status !== options.ifStatus) {
      throw new ConflictError(`The delivery of event "${eventId}" to "${delivery.subscriptionId}" is not ${options.ifStatus}`);
    }
    const deliveries = record.deliveries.map((item, at) => (at === index ? delivery : item));
    records[position] = deepFreeze(structuredClone({ ...record, deliveries }));
  }

  listPendingEvents(options: PageOptions & { instanceId?: string } = {}): PagedAsyncIterable<StoredEventRecord> {
    return pagedList((page) => this.listPendingEventsPage(options.instanceId, page), options);
  }

  private async listPendingEventsPage(only: string | undefined, options?: PageOptions): Promise<Page<StoredEventRecord>> {
    const pending: StoredEventRecord[] = [];
    for (const instanceId of only !== undefined ? [only].filter((id) => this.events.has(id)) : [...this.events.keys()].sort()) {
      for (const event of this.events.get(instanceId)!) if (event.deliveries.some((delivery) => delivery.status === DeliveryStatus.pending)) pending.push({ instanceId, event });
    }
    return pageOf(pending, options);
  }
}
