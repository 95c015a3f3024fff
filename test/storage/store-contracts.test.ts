/** Every store contract against Azure Table Storage (Azurite) and the in-memory stores. */
import { InMemoryInstanceStore, InMemoryInterestIndex, InMemoryOperationStore, InMemoryWorkflowStore } from '../../src/testing';
import { instanceStoreContract } from './contracts/instance-store.contract';
import { interestIndexContract } from './contracts/interest-index.contract';
import { operationStoreContract } from './contracts/operation-store.contract';
import { outboxContract } from './contracts/outbox.contract';
import { workflowStoreContract } from './contracts/workflow-store.contract';
import { createTestStorage } from './fixtures';

workflowStoreContract('Azure Table Storage', async () => (await createTestStorage()).workflows);
workflowStoreContract('in memory', async () => new InMemoryWorkflowStore());

instanceStoreContract('Azure Table Storage', async () => {
  const storage = await createTestStorage();
  return { instances: storage.instances, history: storage.history };
});
instanceStoreContract('in memory', async () => {
  const store = new InMemoryInstanceStore();
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
