/** Every store contract against Azure Table Storage (Azurite) and the in-memory stores. */
import { InMemoryDueTimerIndex, InMemoryInstanceStore, InMemoryInterestIndex, InMemoryOperationStore, InMemorySearchIndex, InMemoryWorkflowStore } from '../../src/testing';
import { dueTimerIndexContract } from './contracts/due-timer-index.contract';
import { eventStoreContract } from './contracts/event-store.contract';
import { CONTRACT_MAX_INSTANCE_BYTES, instanceStoreContract } from './contracts/instance-store.contract';
import { interestIndexContract } from './contracts/interest-index.contract';
import { operationStoreContract } from './contracts/operation-store.contract';
import { outboxContract } from './contracts/outbox.contract';
import { searchIndexContract } from './contracts/search-index.contract';
import { workflowStoreContract } from './contracts/workflow-store.contract';
import { createTestStorage } from './fixtures';

workflowStoreContract('Azure Table Storage', async () => (await createTestStorage()).workflows);
workflowStoreContract('in memory', async () => new InMemoryWorkflowStore());

instanceStoreContract('Azure Table Storage', async () => {
  const storage = await createTestStorage({ maxInstanceBytes: CONTRACT_MAX_INSTANCE_BYTES });
  return { instances: storage.instances, history: storage.history };
});
instanceStoreContract('in memory', async () => {
  const store = new InMemoryInstanceStore({ maxInstanceBytes: CONTRACT_MAX_INSTANCE_BYTES });
  return { instances: store, history: store };
});

interestIndexContract('Azure Table Storage', async () => (await createTestStorage()).interests);
interestIndexContract('in memory', async () => new InMemoryInterestIndex());

operationStoreContract('Azure Table Storage', async () => (await createTestStorage()).operations);
operationStoreContract('in memory', async () => new InMemoryOperationStore());

outboxContract('Azure Table Storage', async () => {
  const storage = await createTestStorage();
  return { instances: storage.instances, outbox: storage.outbox };
});
outboxContract('in memory', async () => {
  const store = new InMemoryInstanceStore();
  return { instances: store, outbox: store };
});

eventStoreContract('Azure Table Storage', async () => {
  const storage = await createTestStorage();
  return { instances: storage.instances, events: storage.events };
});
eventStoreContract('in memory', async () => {
  const store = new InMemoryInstanceStore();
  return { instances: store, events: store };
});

dueTimerIndexContract('Azure Table Storage', async () => {
  // Each test gets its own tables: the index is one partition, so tests would see each other's rows.
  const storage = await createTestStorage();
  return storage.dueTimers;
});
dueTimerIndexContract('in memory', async () => new InMemoryDueTimerIndex());

searchIndexContract('Azure Table Storage', async () => (await createTestStorage()).search);
searchIndexContract('in memory', async () => new InMemorySearchIndex());
