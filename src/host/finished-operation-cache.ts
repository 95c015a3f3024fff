/**
 * @module An OperationStore that remembers finished operations. A `succeeded` or `failed` record never
 * changes again (a repeated trigger id answers with it, a resumed run skips it), so once this process
 * has written or read one, polls for it are answered from memory instead of storage; so are its
 * per-instance results when this process wrote them all. Unfinished
 * records are always read from storage: another worker may be running them. Bounded (oldest out).
 */
import { BoundedMap, OperationStatus } from '../engine/model';
import { MAX_OPERATION_RESULTS, type InstanceResult, type ListedOperation, type Operation, type StoredOperation } from '../engine/operations';
import type { OperationOptions, OperationQuery, OperationStore, PageOptions } from '../engine/ports';
import { pagedList, type PagedAsyncIterable } from '../engine/ports';

/** Finished records kept per process. An operation record is at most about 150 KB (1,000 results). */
export const FINISHED_OPERATIONS_CACHED = 1000;

export function isFinished(operation: Pick<Operation, 'status'>): boolean {
  return operation.status === OperationStatus.succeeded || operation.status === OperationStatus.failed;
}

export class FinishedOperationCache implements OperationStore {
  private readonly finished: BoundedMap<string, StoredOperation>;
  /** Operation id → the results this process wrote for it; null once they may not be all or the same as stored. */
  private readonly results: BoundedMap<string, Map<string, InstanceResult> | null>;

  constructor(
    private readonly store: OperationStore,
    capacity = FINISHED_OPERATIONS_CACHED,
  ) {
    this.finished = new BoundedMap(capacity);
    this.results = new BoundedMap(capacity);
  }

  /** A finished record this process knows, without a storage read. */
  peek(operationId: string): StoredOperation | undefined {
    return this.finished.get(operationId);
  }

  async create(operation: Operation, options?: OperationOptions): Promise<{ operation: StoredOperation; created: boolean }> {
    const cached = this.finished.get(operation.id);
    // A repeated trigger id of a finished operation: the answer is that operation, as the store would give.
    if (cached) return { operation: cached, created: false };
    return this.remember(await this.store.create(operation, options), (result) => result.operation);
  }

  async get(operationId: string, options?: OperationOptions): Promise<StoredOperation | undefined> {
    return this.finished.get(operationId) ?? this.remember(await this.store.get(operationId, options), (operation) => operation);
  }

  async update(operation: Operation, options?: OperationOptions & { ifMatch?: string }): Promise<StoredOperation> {
    return this.remember(await this.store.update(operation, options), (stored) => stored);
  }

  list(query: OperationQuery, options?: PageOptions): PagedAsyncIterable<ListedOperation> {
    return this.store.list(query, options);
  }

  listByStatus(statuses: readonly OperationStatus[], options?: PageOptions & { updatedBefore?: string }): PagedAsyncIterable<StoredOperation> {
    return this.store.listByStatus(statuses, options);
  }

  async delete(operationId: string, options?: OperationOptions): Promise<void> {
    this.finished.delete(operationId);
    this.results.delete(operationId);
    await this.store.delete(operationId, options);
  }

  async putResult(operationId: string, result: InstanceResult, options?: OperationOptions & { keepExisting?: boolean }): Promise<void> {
    await this.store.putResult(operationId, result, options);
    this.rememberResult(operationId, result, options?.keepExisting ?? false);
  }

  /**
   * From memory when this process wrote every result of a finished operation it knows (as many as its
   * `candidates`, at most MAX_OPERATION_RESULTS), else from the store.
   */
  listResults(operationId: string, options?: PageOptions): PagedAsyncIterable<InstanceResult> {
    const operation = this.finished.get(operationId);
    const written = this.results.get(operationId);
    if (!operation || !written || written.size !== operation.candidates) return this.store.listResults(operationId, options);
    const items = [...written.values()].sort((a, b) => (a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0));
    return pagedList(async () => ({ items }), options);
  }

  /**
   * Keeps the results this process writes, per operation (bounded like the records). A result that may
   * differ from the stored one (a write that keeps an existing row) or one too many makes the operation's
   * results answered from the store.
   */
  private rememberResult(operationId: string, result: InstanceResult, keepExisting: boolean): void {
    let written = this.results.get(operationId);
    if (written === null) return;
    if (keepExisting || (written && written.size >= MAX_OPERATION_RESULTS && !written.has(result.instanceId))) {
      this.results.set(operationId, null);
      return;
    }
    if (!written) {
      written = new Map();
      this.results.set(operationId, written);
    }
    written.set(result.instanceId, result);
  }

  private remember<T>(result: T, recordOf: (result: T) => StoredOperation | undefined): T {
    const operation = recordOf(result);
    if (operation && isFinished(operation)) {
      this.finished.set(operation.id, operation);
    }
    return result;
  }
}
