/** @module In-memory implementations of every port, for tests and single-process hosting. */
import { InMemoryDueTimerIndex } from './in-memory-due-timer-index';
import { InMemoryInstanceStore } from './in-memory-instance-store';
import { InMemoryInterestIndex } from './in-memory-interest-index';
import { InMemoryLeaseProvider } from './in-memory-lease-provider';
import { InMemoryOperationStore } from './in-memory-operation-store';
import { InMemoryWorkflowStore } from './in-memory-workflow-store';
import { InMemorySearchIndex } from './in-memory-search-index';
import { InMemoryFlowStore } from './in-memory-flow-store';
import { InMemoryTaskIndex } from './in-memory-task-index';

export { InMemoryFlowStore, InMemoryTaskIndex };
export { InMemoryDueTimerIndex, InMemoryInstanceStore, InMemoryInterestIndex, InMemoryLeaseProvider, InMemoryOperationStore, InMemorySearchIndex, InMemoryWorkflowStore };
export type { InMemoryLeaseProviderOptions } from './in-memory-lease-provider';
export type { InMemoryInstanceStoreOptions } from './in-memory-instance-store';
export { collectAll, pageOf } from './paging';

/** One set of wired in-memory ports; `history`, `outbox` and `events` are the instance store (they share its data). */
export function createInMemoryPorts(options: { maxLeaseWaitInMs?: number; maxInstanceBytes?: number } = {}) {
  const instances = new InMemoryInstanceStore(options.maxInstanceBytes !== undefined ? { maxInstanceBytes: options.maxInstanceBytes } : {});
  return {
    workflows: new InMemoryWorkflowStore(),
    instances,
    history: instances,
    outbox: instances,
    events: instances,
    interests: new InMemoryInterestIndex(),
    operations: new InMemoryOperationStore(),
    search: new InMemorySearchIndex(),
    flow: new InMemoryFlowStore(),
    tasks: new InMemoryTaskIndex(),
    leases: new InMemoryLeaseProvider(options.maxLeaseWaitInMs !== undefined ? { maxWaitInMs: options.maxLeaseWaitInMs } : {}),
  };
}
