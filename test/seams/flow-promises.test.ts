/**
 * Issue 42's seams: the mechanisms that keep flow control's promises (unique keys' claims with creation
 * fences, parked triggers' listings) crossed with incarnations and crash resumption, on in-memory ports
 * where the engine decides them. A deleted holder's leftovers must neither block its key's next holder
 * for long nor admit two; a creation stopped between claim and save must neither hold the key for ever nor
 * come back as a second holder; a dead process's listings must not hold a key's queue.
 */
import { ConcurrencySlots, Engine, PARKED_LISTING_TTL_IN_MS, PENDING_CLAIM_GRACE_IN_MS, UniqueKeyTakenError, type WorkflowDefinitionInput } from '../../src/engine';
import { FlowQueuedError } from '../../src/engine/model';
import { InMemorySearchIndex, createInMemoryPorts } from '../../src/testing';
import { FakeClock, recordingLogger } from '../engine/support';

const order: WorkflowDefinitionInput = {
  id: 'order',
  displayName: 'Order',
  initialStateId: 'open',
  flow: { unique: { key: 'customer:{{context.customerId}}' } },
  states: { open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] }, closed: {} },
};

function setUp() {
  const clock = new FakeClock();
  const search = new InMemorySearchIndex();
  const ports = { ...createInMemoryPorts(), search };
  const engine = new Engine(ports, { clock, logger: recordingLogger() });
  return { clock, engine, ports, search };
}

describe('flow promises', () => {
  it("incarnations × unique keys: a deleted holder's leftover claim is fenced and taken over, and the fence never blocks a later incarnation of its id", async () => {
    const { clock, engine, search } = setUp();
    await engine.createWorkflow(order);
    const first = await engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { customerId: 1 } });
    // The deletion leaves the claim row behind (its release was lost).
    const release = search.releaseBusinessKey.bind(search);
    search.releaseBusinessKey = async () => undefined;
    await engine.deleteInstance('o1', { force: true });
    search.releaseBusinessKey = release;
    clock.advance(PENDING_CLAIM_GRACE_IN_MS);
    // Another creator fences the gone holder's creation token and takes the key over.
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o2', context: { customerId: 1 } })).resolves.toMatchObject({ uniqueKey: 'customer:1' });
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { customerId: 1 } })).rejects.toMatchObject({ existingInstanceId: 'o2' });
    await engine.applyTrigger('o2', { id: 'close-o2', name: 'Close', subjects: ['o2'] });
    // The fence written into o1's partition names the old token only: a new incarnation of o1 is created.
    const again = await engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { customerId: 1 } });
    expect(again.incarnation).not.toBe(first.incarnation);
    expect(again.uniqueKey).toBe('customer:1');
  });

  it('crash resumption × unique keys: a creation that stopped between claim and save holds its key only for the grace, and its late save is fenced', async () => {
    const { clock, engine, ports } = setUp();
    await engine.createWorkflow(order);
    const create = ports.instances.create.bind(ports.instances);
    let resume!: () => void;
    const stopped = new Promise<void>((resolve) => (resume = resolve));
    ports.instances.create = async (...args) => {
      // The process "stops" here: the save comes back much later, as a process paused past the grace would.
      await stopped;
      return create(...args);
    };
    const late = engine.createInstance({ workflowId: 'order', instanceId: 'stalled', context: { customerId: 2 } });
    await new Promise((resolve) => setImmediate(resolve));
    ports.instances.create = create;
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'early', context: { customerId: 2 } })).rejects.toBeInstanceOf(UniqueKeyTakenError);
    clock.advance(PENDING_CLAIM_GRACE_IN_MS);
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'next', context: { customerId: 2 } })).resolves.toMatchObject({ uniqueKey: 'customer:2' });
    resume();
    await expect(late).rejects.toMatchObject({ existingInstanceId: 'next' });
    await expect(engine.getInstance('stalled')).rejects.toThrow('does not exist');
  });

  it("concurrency slots × crash resumption (a dead process's listings): a parked listing nobody tries any more stops holding the queue after its time", async () => {
    const clock = new FakeClock();
    const { flow } = createInMemoryPorts();
    const slots = new ConcurrencySlots(flow, { now: clock.now, newId: () => `id-${Math.random()}`, warn: () => {} });
    const request = { workflowId: 'w', key: 'k', limit: 1, maxWaitInMs: 0, parkedListingInMs: 300_000 };
    const holding = await slots.acquire({ ...request, instanceId: 'runner', triggerId: 't0' });
    // A process parks a trigger (listed in the queue), then dies: nobody tries it again.
    await expect(slots.acquire({ ...request, instanceId: 'dead', triggerId: 't1' })).rejects.toBeInstanceOf(FlowQueuedError);
    await slots.release(holding);
    // Behind the dead listing, a live trigger is refused while the listing stands...
    await expect(slots.acquire({ ...request, instanceId: 'live', triggerId: 't2' })).rejects.toMatchObject({ place: { id: 'parked:live:t2' } });
    // ...and admitted once the listing has outlived its time, well before the policy's 5-minute wait.
    clock.advance(PARKED_LISTING_TTL_IN_MS + 5_000 + 1);
    const admitted = await slots.acquire({ ...request, instanceId: 'live', triggerId: 't2' });
    expect(admitted.detail).toContain('admitted');
    await slots.release(admitted);
  });
});
