/**
 * Issue 42, defect 1: `flow.unique` (and `uniqueBusinessKey`) under concurrent creators on Azure storage.
 * 20 creations with the same key at once, from five workers with their own clients, over three rounds:
 * at most one live holder ever, every loser a 409 naming the holder (never a 500), and a retried request
 * idempotent. Before the fix a creator took over the claim of another whose instance was not saved yet,
 * so both saved: 10, 8 and 4 live holders, and 17 of 60 answers "the claim kept changing".
 */
import { Engine } from '../../src/engine/engine';
import { UniqueKeyTakenError, type WorkflowDefinitionInput } from '../../src/engine';
import { silentLogger } from '../../src/engine/steps';
import { createAzureStorage } from '../../src/storage/create-azure-storage';
import { prefixedStorageNames, type StorageNames } from '../../src/storage/names';
import { collectAll } from '../../src/testing';
import { testConnectionString, uniquePrefix } from '../support/storage';

const order: WorkflowDefinitionInput = {
  id: 'order',
  displayName: 'Order',
  initialStateId: 'open',
  flow: { unique: { key: 'customer:{{context.customerId}}' } },
  states: {
    open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] },
    closed: {},
  },
};
const claim: WorkflowDefinitionInput = { ...order, id: 'claim', flow: undefined, uniqueBusinessKey: true };

let names: StorageNames;

async function worker(): Promise<Engine> {
  const storage = await createAzureStorage({ connection: testConnectionString(), names, createIfMissing: false });
  return new Engine(
    { workflows: storage.workflows, instances: storage.instances, history: storage.history, outbox: storage.outbox, interests: storage.interests, leases: storage.leases, search: storage.search },
    { logger: silentLogger },
  );
}

async function liveHolders(engine: Engine, workflowId: string, customerId: number): Promise<string[]> {
  const instances = await collectAll((options) => engine.listInstances({ workflowId }, options));
  return instances.filter((instance) => !['complete', 'cancelled'].includes(instance.status) && !instance.deleting && instance.context.customerId === customerId).map((instance) => instance.id);
}

beforeAll(async () => {
  names = prefixedStorageNames(uniquePrefix('uq'));
  await createAzureStorage({ connection: testConnectionString(), names });
  const engine = await worker();
  await engine.createWorkflow(order);
  await engine.createWorkflow(claim);
});

describe.each([
  ['flow.unique', 'order', () => ({})],
  ['uniqueBusinessKey', 'claim', (customerId: number) => ({ businessKey: `customer-${customerId}` })],
] as const)('%s under 20 concurrent creators', (_label, workflowId, keyOf) => {
  it('keeps at most one live holder over three rounds; every loser is a 409 naming it', async () => {
    const workers = await Promise.all(Array.from({ length: 5 }, () => worker()));
    for (let round = 0; round < 3; round++) {
      const customerId = round;
      const answers = await Promise.allSettled(
        Array.from({ length: 20 }, (_, index) =>
          workers[index % workers.length]!.createInstance({ workflowId, instanceId: `${workflowId}-${round}-${index}`, context: { customerId }, ...keyOf(customerId) }),
        ),
      );
      const created = answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value.id] : []));
      const refusals = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as unknown] : []));
      const holders = await liveHolders(workers[0]!, workflowId, customerId);
      expect({ round, holders: holders.length, created: created.length }).toEqual({ round, holders: 1, created: 1 });
      expect(holders).toEqual(created);
      // Every loser: a 409 naming the one holder, never a storage fault.
      for (const refusal of refusals) {
        expect(refusal).toBeInstanceOf(UniqueKeyTakenError);
        expect(refusal).toMatchObject({ existingInstanceId: created[0] });
      }
      // The same request again is idempotent: the holder's own request answers the holder; a loser's is refused again.
      const again = await workers[1]!.createOrFindInstance({ workflowId, instanceId: created[0]!, context: { customerId }, ...keyOf(customerId) });
      expect(again).toMatchObject({ created: false, instance: { id: created[0] } });
      const loser = answers.findIndex((answer) => answer.status === 'rejected');
      await expect(workers[2]!.createInstance({ workflowId, instanceId: `${workflowId}-${round}-${loser}`, context: { customerId }, ...keyOf(customerId) })).rejects.toMatchObject({
        existingInstanceId: created[0],
      });
      expect(await liveHolders(workers[0]!, workflowId, customerId)).toEqual(created);
    }
  });
});
