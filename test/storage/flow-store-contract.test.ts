/** The FlowStore contract against Azure Table Storage (Azurite, over HTTP) and in memory: both answer alike. */
import { FLOW_ROW_KINDS } from '../../src/engine/admission';
import { InMemoryFlowStore } from '../../src/testing';
import { encodeKey } from '../../src/storage';
import { toBody } from '../../src/storage/entity-body';
import { flowStoreContract } from './contracts/flow-store.contract';
import { createTestStorage } from './fixtures';

flowStoreContract('Azure Table Storage', async () => {
  const storage = await createTestStorage();
  return {
    store: storage.flow,
    async putRaw(workflowId, rowKey, json) {
      // Straight through the SDK, as another writer would: the store itself only writes values of a kind.
      await storage.clients.flow.upsertEntity({ partitionKey: encodeKey(workflowId, 'workflow id'), rowKey: encodeKey(rowKey, 'flow key'), ...toBody(json) }, 'Replace');
    },
  };
});

flowStoreContract('in memory', async () => {
  const store = new InMemoryFlowStore();
  return {
    store,
    async putRaw(workflowId, rowKey, json) {
      store.putRawRow(workflowId, rowKey, json);
    },
  };
});

it("gives every row kind a prefix that starts no other kind's (a listing of one kind never reads another's rows)", () => {
  const prefixes = FLOW_ROW_KINDS.map((kind) => kind.prefix);
  expect(prefixes).toEqual(['slots|', 'capacity|', 'audit|']);
  for (const prefix of prefixes) expect(prefixes.filter((other) => other.startsWith(prefix))).toEqual([prefix]);
});
