/**
 * `flow.unique` in the engine, on in-memory ports: the key computed from the creation request (template or
 * JSONata), claimed before the instance exists; what a crash between claim and save, a deleted or ended
 * holder's leftover claim and a migration leave behind.
 */
import { Engine, PENDING_CLAIM_GRACE_IN_MS, UniqueKeyTakenError, type WorkflowDefinitionInput } from '../../src/engine';
import { InMemorySearchIndex, createInMemoryPorts } from '../../src/testing';
import { FakeClock, recordingLogger, trigger } from './support';

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

function setUp() {
  const search = new InMemorySearchIndex();
  const ports = { ...createInMemoryPorts(), search };
  const clock = new FakeClock();
  const engine = new Engine(ports, { clock, logger: recordingLogger() });
  return { engine, ports, search, clock };
}

describe('flow.unique', () => {
  it('refuses a second non-final instance with the key, naming the holder; an instance whose key yields nothing is not limited', async () => {
    const { engine } = setUp();
    await engine.createWorkflow(order);
    const first = await engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { customerId: 42 } });
    expect(first.uniqueKey).toBe('customer:42');
    const refused = engine.createInstance({ workflowId: 'order', instanceId: 'o2', context: { customerId: 42 } });
    await expect(refused).rejects.toThrow(UniqueKeyTakenError);
    await expect(refused).rejects.toMatchObject({ existingInstanceId: 'o1' });
    await expect(engine.getInstance('o2')).rejects.toThrow('does not exist');
    // No customer: the template yields nothing, so nothing is claimed.
    await engine.createInstance({ workflowId: 'order', instanceId: 'o3', context: {} });
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o4', context: {} })).resolves.toMatchObject({ id: 'o4' });
  });

  it('takes a JSONata key, and answers the holder under onConflict: existing', async () => {
    const { engine } = setUp();
    await engine.createWorkflow({ ...order, flow: { unique: { key: '$lowercase(context.email)', onConflict: 'existing' } } });
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { email: 'Ann@example.com' } });
    const again = await engine.createOrFindInstance({ workflowId: 'order', instanceId: 'o2', context: { email: 'ann@EXAMPLE.com' } });
    expect(again).toMatchObject({ created: false, instance: { id: 'o1', uniqueKey: 'ann@example.com' } });
  });

  it('frees the key when the holder ends (complete), and a release that failed is taken over all the same', async () => {
    const { engine, search } = setUp();
    await engine.createWorkflow(order);
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { customerId: 1 } });
    // The release after the ending save fails: the claim row is left behind.
    const release = search.releaseBusinessKey.bind(search);
    search.releaseBusinessKey = () => Promise.reject(new Error('storage down'));
    await engine.applyTrigger('o1', trigger('Close', { subjects: ['o1'] }));
    search.releaseBusinessKey = release;
    expect((await engine.getInstance('o1')).status).toBe('complete');
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o2', context: { customerId: 1 } })).resolves.toMatchObject({ uniqueKey: 'customer:1' });
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o3', context: { customerId: 1 } })).rejects.toMatchObject({ existingInstanceId: 'o2' });
  });

  it('crash between claim and save: the claim counts as a creation in flight for the grace, then is taken over, and the stale creation is fenced', async () => {
    const { engine, ports, clock } = setUp();
    await engine.createWorkflow(order);
    const create = ports.instances.create.bind(ports.instances);
    ports.instances.create = () => Promise.reject(new Error('the process died here'));
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'lost', context: { customerId: 7 } })).rejects.toThrow('the process died here');
    ports.instances.create = create;
    // Within the grace the claim may be a creation still on its way: refused, naming it.
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { customerId: 7 } })).rejects.toMatchObject({ existingInstanceId: 'lost' });
    clock.advance(PENDING_CLAIM_GRACE_IN_MS);
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { customerId: 7 } })).resolves.toMatchObject({ id: 'o1', uniqueKey: 'customer:7' });
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'lost', context: { customerId: 7 } })).rejects.toMatchObject({ existingInstanceId: 'o1' });
  });

  it('a creation slower than the grace is fenced: its late save fails, the key keeps one holder, and its caller is told who holds it', async () => {
    const { engine, ports, clock } = setUp();
    await engine.createWorkflow(order);
    const create = ports.instances.create.bind(ports.instances);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reachedSave!: () => void;
    const atSave = new Promise<void>((resolve) => (reachedSave = resolve));
    ports.instances.create = async (...args) => {
      if (args[0].id === 'slow') {
        reachedSave();
        await held;
      }
      return create(...args);
    };
    const slow = engine.createInstance({ workflowId: 'order', instanceId: 'slow', context: { customerId: 8 } });
    await atSave;
    clock.advance(PENDING_CLAIM_GRACE_IN_MS + 1);
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'fast', context: { customerId: 8 } })).resolves.toMatchObject({ id: 'fast' });
    release();
    await expect(slow).rejects.toMatchObject({ existingInstanceId: 'fast' });
    await expect(engine.getInstance('slow')).rejects.toThrow('does not exist');
  });

  it('the same request again answers the instance it created (idempotent), and a refused creation gives its other claims back', async () => {
    const { engine, search } = setUp();
    await engine.createWorkflow({ ...order, uniqueBusinessKey: true });
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1', businessKey: 'b-1', context: { customerId: 5 } });
    await expect(engine.createOrFindInstance({ workflowId: 'order', instanceId: 'o1', businessKey: 'b-1', context: { customerId: 5 } })).resolves.toMatchObject({
      created: false,
      instance: { id: 'o1' },
    });
    // Its business key is free, its unique key held: refused, and the business key it claimed is given back.
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o2', businessKey: 'b-2', context: { customerId: 5 } })).rejects.toMatchObject({ existingInstanceId: 'o1' });
    expect(search.claimOf('order', 'b-2')).toBeUndefined();
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o3', businessKey: 'b-2', context: { customerId: 6 } })).resolves.toMatchObject({ id: 'o3' });
  });

  it("deleted instance's leftovers: a claim its deletion did not remove is taken over; re-creating the same id claims again", async () => {
    const { engine, search } = setUp();
    await engine.createWorkflow(order);
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { customerId: 9 } });
    const release = search.releaseBusinessKey.bind(search);
    search.releaseBusinessKey = async () => undefined; // the deletion leaves the claim row
    await engine.deleteInstance('o1', { force: true });
    search.releaseBusinessKey = release;
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { customerId: 9 } })).resolves.toMatchObject({ uniqueKey: 'customer:9' });
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o2', context: { customerId: 9 } })).rejects.toMatchObject({ existingInstanceId: 'o1' });
  });

  it('migration: a migrated instance keeps holding its key (a version without the policy claims nothing; one with it is refused)', async () => {
    const { engine } = setUp();
    const v1 = await engine.createWorkflow(order);
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { customerId: 5 } });
    const { flow: _none, ...unlimited } = order;
    const v2 = await engine.addWorkflowVersion(unlimited, { ifMatch: v1.etag });
    expect(await engine.migrationsAndBulkActions.migrate('o1', { workflowId: 'order', fromVersion: 1, toVersion: 2, stateMap: {} })).toMatchObject({ outcome: 'migrated' });
    expect((await engine.getInstance('o1')).uniqueKey).toBe('customer:5');
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o2', context: { customerId: 5 } })).resolves.toMatchObject({ id: 'o2' });
    await engine.addWorkflowVersion(order, { ifMatch: v2.etag });
    await expect(engine.createInstance({ workflowId: 'order', instanceId: 'o3', context: { customerId: 5 } })).rejects.toMatchObject({ existingInstanceId: 'o1' });
  });
});
