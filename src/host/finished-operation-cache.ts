/**
 * @module An OperationStore that remembers finished operations. A `succeeded` or `failed` record never
 * changes again (a repeated trigger id answers with it, a resumed run skips it), so once this process
 * has written or read one, polls for it are answered from memory instead of storage. Unfinished
 * records are always read from storage: another worker may be running them. Bounded (oldest out).
 */
import { OperationStatus } from '../engine/model';
import type { ListedOperation, Operation, StoredOperation } from '../engine/operations';
import type { OperationOptions, OperationQuery, OperationStore, PageOptions } from '../engine/ports';
import type { PagedAsyncIterable } from '../engine/ports';

/** Finished records kept per process. An operation record is at most about 150 KB (1,000 results). */
export const FINISHED_OPERATIONS_CACHED = 1000;

export function isFinished(operation: Pick<Operation, 'status'>): boolean {
  return operation.status === OperationStatus.succeeded || operation.status === OperationStatus.failed;
}

export class FinishedOperationCache implements OperationStore {
  private readonly finished = new Map<string, StoredOperation>();

  constructor(
    private readonly store: OperationStore,
    private readonly capacity = FINISHED_OPERATIONS_CACHED,
  ) {}

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
    await this.store.delete(operationId, options);
  }

  private remember<T>(result: T, recordOf: (result: T) => StoredOperation | undefined): T {
    const operation = recordOf(result);
    if (operation && isFinished(operation)) {
      this.finished.delete(operation.id);
      this.finished.set(operation.id, operation);
      if (this.finished.size > this.capacity) this.finished.delete(this.finished.keys().next().value!);
    }
    return result;
  }
}
