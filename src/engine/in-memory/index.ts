/** @module In-memory implementations of the engine's ports (all but LeaseProvider, which is in src/leasing). */
import { InMemoryInstanceStore } from './in-memory-instance-store';
import { InMemoryInterestIndex } from './in-memory-interest-index';
import { InMemoryOperationStore } from './in-memory-operation-store';
import { InMemoryTriggerDispatcher } from './in-memory-trigger-dispatcher';
import { InMemoryWorkflowStore } from './in-memory-workflow-store';

export { InMemoryInstanceStore, InMemoryInterestIndex, InMemoryOperationStore, InMemoryTriggerDispatcher, InMemoryWorkflowStore };
export { collectAll, pageOf } from './paging';

/** One set of wired in-memory ports; `history` is the instance store (they share their data). */
export function createInMemoryPorts(options: { now?: () => Date } = {}) {
  const instances = new InMemoryInstanceStore();
  return {
    workflows: new InMemoryWorkflowStore(options.now),
    instances,
    history: instances,
    interests: new InMemoryInterestIndex(),
    operations: new InMemoryOperationStore(),
    dispatcher: new InMemoryTriggerDispatcher(),
  };
}
