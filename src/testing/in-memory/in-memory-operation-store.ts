/** @module OperationStore in memory. */
import type { OperationStatus } from '../../engine/model';
import { NotFoundError, PreconditionFailedError } from '../../engine/model';
import { fitOperation, fitResult, listedOperation, operationKind, operationWorkflowId, type InstanceResult, type ListedOperation, type Operation, type StoredOperation } from '../../engine/operations';
import type { OperationOptions, OperationQuery, OperationStore, Page, PageOptions } from '../../engine/ports';
import { pageOf } from './paging';
import { pagedList, type PagedAsyncIterable } from '../../engine/ports';

export class InMemoryOperationStore implements OperationStore {
  private readonly operations = new Map<string, StoredOperation>();
  /** Operation id → instance id → result (the Table store's results rows). */
  private readonly results = new Map<string, Map<string, InstanceResult>>();
  private counter = 0;

  private put(operation: Operation): StoredOperation {
    // Fitted as the Table store fits it, so both keep the same record.
    const stored = { ...structuredClone(fitOperation(operation)), etag: `"o${++this.counter}"` };
    this.operations.set(operation.id, stored);
    return structuredClone(stored);
  }

  async create(operation: Operation, _options?: OperationOptions): Promise<{ operation: StoredOperation; created: boolean }> {
    const existing = this.operations.get(operation.id);
    if (existing) return { operation: structuredClone(existing), created: false };
    return { operation: this.put(operation), created: true };
  }

  async get(operationId: string, _options?: OperationOptions): Promise<StoredOperation | undefined> {
    const stored = this.operations.get(operationId);
    return stored ? structuredClone(stored) : undefined;
  }

  async update(operation: Operation, options: OperationOptions & { ifMatch?: string } = {}): Promise<StoredOperation> {
    const current = this.operations.get(operation.id);
    if (!current) throw new NotFoundError(`Operation "${operation.id}" does not exist`);
    if (options.ifMatch && options.ifMatch !== '*' && options.ifMatch !== current.etag) {
      throw new PreconditionFailedError(`Operation "${operation.id}" has changed since it was read`);
    }
    const { etag: _etag, ...plain } = operation as StoredOperation;
    return this.put(plain);
  }

  list(query: OperationQuery, options?: PageOptions): PagedAsyncIterable<ListedOperation> {
    return pagedList((page) => this.listPage(query, page), options);
  }

  private async listPage(query: OperationQuery, options?: PageOptions): Promise<Page<ListedOperation>> {
    const since = query.createdSince !== undefined ? Date.parse(query.createdSince) : -Infinity;
    const before = query.createdBefore !== undefined ? Date.parse(query.createdBefore) : Infinity;
    const matches = [...this.operations.values()]
      .filter(
        (item) =>
          (query.kind === undefined || operationKind(item) === query.kind) &&
          (query.status === undefined || item.status === query.status) &&
          (query.workflowId === undefined || operationWorkflowId(item) === query.workflowId) &&
          Date.parse(item.createdAt) >= since &&
          Date.parse(item.createdAt) < before,
      )
      // Newest first; ties by id, descending, as the table's inverted-time keys order them.
      .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return pageOf(
      matches.map((item) => listedOperation(structuredClone(item))),
      options,
    );
  }

  listByStatus(statuses: readonly OperationStatus[], options: PageOptions & { updatedBefore?: string } = {}): PagedAsyncIterable<StoredOperation> {
    const { updatedBefore, ...pageOptions } = options;
    return pagedList((page) => this.listByStatusPage(statuses, updatedBefore, page), pageOptions);
  }

  async delete(operationId: string, _options?: OperationOptions): Promise<void> {
    this.operations.delete(operationId);
    this.results.delete(operationId);
  }

  async putResult(operationId: string, result: InstanceResult, options: OperationOptions & { keepExisting?: boolean } = {}): Promise<void> {
    const results = this.results.get(operationId) ?? new Map<string, InstanceResult>();
    if (options.keepExisting && results.has(result.instanceId)) return;
    results.set(result.instanceId, structuredClone(fitResult(result)));
    this.results.set(operationId, results);
  }

  listResults(operationId: string, options?: PageOptions): PagedAsyncIterable<InstanceResult> {
    return pagedList(async (page) => {
      // Ordered by instance id, as the Table store's keys order them (for ids of the plain key alphabet).
      const results = [...(this.results.get(operationId)?.values() ?? [])].sort((a, b) => (a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0));
      return pageOf(structuredClone(results), page);
    }, options);
  }

  private async listByStatusPage(statuses: readonly OperationStatus[], updatedBefore: string | undefined, options?: PageOptions): Promise<Page<StoredOperation>> {
    const matches = [...this.operations.values()]
      .filter((item) => statuses.includes(item.status) && (updatedBefore === undefined || item.updatedAt < updatedBefore))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    return pageOf(
      matches.map((item) => structuredClone(item)),
      options,
    );
  }
}
