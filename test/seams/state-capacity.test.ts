/**
 * Capacity re-offers (`capacity` on a state: docs/guides/flow-control.md) crossed with every seam: a trigger
 * queued for room in a full state is kept whole on the state's flow row, and the change that makes room
 * writes a re-offer of it as an outbox trigger row (addressed to the waiter's instance and incarnation, one
 * step deeper in follow-up work, id derived from the leaving change and the waiter), whose application
 * applies the waiting trigger under its own id. Can it loop, be applied twice, be lost to a crash between
 * the leaving save and its relay, reach an instance created again with its id, or escape its tenant
 * (tenants.test.ts)?
 *
 * In memory, on the manual clock.
 */
import { Engine, MAX_CAUSAL_DEPTH, type Trigger, type WorkflowDefinitionInput } from '../../src/engine';
import type { Actor } from '../../src/engine/model';
import { InMemoryDueTimerIndex, InMemorySearchIndex, ManualClock, createInMemoryPorts } from '../../src/testing';
import { flowPausingWhenCounted, passingOrdersWorkflow, recordingLogger } from '../engine/support';

function ordersWith(extra: Partial<WorkflowDefinitionInput> = {}): WorkflowDefinitionInput {
  return {
    id: 'orders',
    displayName: 'Orders',
    initialStateId: 'open',
    subscriptions: [{ id: 'hook', url: 'https://hook.example/' }],
    states: {
      open: { transitions: [{ id: 'pick', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Pick' }] }] },
      picking: {
        capacity: { key: 'customer:{{context.customer}}', limit: 1 },
        transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }],
      },
      done: {},
    },
    ...extra,
  } as WorkflowDefinitionInput;
}
const orders = ordersWith();

async function setup(ids: string[], definition: WorkflowDefinitionInput = orders) {
  const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex(), search: new InMemorySearchIndex() };
  const clock = new ManualClock('2026-11-26T10:00:00.000Z');
  let n = 0;
  const logger = recordingLogger();
  const engine = new Engine(ports, { clock, logger, newId: () => `gen-${++n}`, events: { http: { send: async () => ({ status: 204, body: undefined }) } } });
  await engine.createWorkflow(definition);
  for (const id of ids) await engine.createInstance({ workflowId: definition.id, instanceId: id, context: { customer: '42' } });
  return { engine, ports, logger, clock };
}

/** The process stops here: whatever the handler was to hand on is not handed on. */
const stopped = async (): Promise<void> => {
  throw new Error('the process stopped');
};

const sent = (name: string, instanceId: string, id = `${name}-${instanceId}`): Trigger => ({ id, name, subjects: [instanceId] });

/** States `c0`..`c<last>`, each holding one instance (key `"all"`): `Place<k>` puts an instance in `ck`, `Move` takes it one state down (from `c0`, out). */
function chain(last: number): WorkflowDefinitionInput {
  const states: Record<string, unknown> = {
    start: { transitions: Array.from({ length: last + 1 }, (_, k) => ({ id: `place${k}`, targetStateId: `c${k}`, conditions: [{ type: 'triggerName', name: `Place${k}` }] })) },
    out: {},
  };
  for (let k = 0; k <= last; k++) {
    states[`c${k}`] = { capacity: { key: '"all"', limit: 1 }, transitions: [{ id: 'move', targetStateId: k === 0 ? 'out' : `c${k - 1}`, conditions: [{ type: 'triggerName', name: 'Move' }] }] };
  }
  return { id: 'chain', displayName: 'Chain', initialStateId: 'start', states } as unknown as WorkflowDefinitionInput;
}

describe('state capacity seams', () => {
  it('applied once × capacity re-offers: a queued trigger delivered again keeps one place, is applied once on release, and a repeat is a duplicate', async () => {
    const { engine, logger } = await setup(['a', 'b']);
    await engine.applyTrigger('a', sent('Pick', 'a'));
    expect((await engine.applyTrigger('b', sent('Pick', 'b'))).outcome).toBe('capacityQueued');
    expect((await engine.applyTrigger('b', sent('Pick', 'b'))).outcome).toBe('capacityQueued');
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]!.queued).toHaveLength(1);

    await engine.applyTrigger('a', sent('Done', 'a'));
    expect(logger.lines.filter((line) => line.level !== 'info')).toEqual([]);
    expect((await engine.getHistory('b')).items.filter((entry) => entry.triggerId === 'Pick-b')).toHaveLength(1);
    expect((await engine.applyTrigger('b', sent('Pick', 'b'))).outcome).toBe('duplicate');
  });

  it("incarnations × capacity re-offers, deletion and re-creation: a deleted instance's queued trigger never reaches the instance created again with its id", async () => {
    const { engine } = await setup(['a', 'b']);
    await engine.applyTrigger('a', sent('Pick', 'a'));
    expect((await engine.applyTrigger('b', sent('Pick', 'b'))).outcome).toBe('capacityQueued');
    await engine.deleteInstance('b', { force: true });
    await engine.createInstance({ workflowId: 'orders', instanceId: 'b', context: { customer: '42' } });

    await engine.applyTrigger('a', sent('Done', 'a'));
    expect((await engine.getInstance('b')).stateId).toBe('open');
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [], queued: [] });
  });

  it('crash resumption × capacity re-offers: a re-offer saved by the leaving change just before the crash is applied once after the restart', async () => {
    const { engine, ports } = await setup(['a', 'b']);
    await engine.applyTrigger('a', sent('Pick', 'a'));
    expect((await engine.applyTrigger('b', sent('Pick', 'b'))).outcome).toBe('capacityQueued');
    // The process stops after a's leaving save, before its outbox is handed on.
    const crashing = engine.withDelivery({ trigger: stopped, timer: stopped, startInstance: stopped, cancelChildren: stopped });
    await crashing.applyTrigger('a', sent('Done', 'a'));
    expect((await engine.getInstance('a')).outbox).toEqual([expect.stringMatching(/^raised:1:a:i\.[0-9a-f]+:k2\.Pick-b:0$/)]);
    expect((await engine.getInstance('b')).stateId).toBe('open');

    const restarted = new Engine(ports, { clock: new ManualClock('2026-11-26T10:00:00.000Z'), logger: recordingLogger(), newId: () => 'after' });
    expect(await restarted.relayLeftovers()).toBe(1);
    expect(await restarted.relayLeftovers()).toBe(0);
    expect((await restarted.getInstance('b')).stateId).toBe('picking');
    expect((await restarted.getHistory('b')).items.filter((entry) => entry.triggerId === 'Pick-b')).toHaveLength(1);
    expect((await restarted.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'b' }], queued: [] });
  });
  it('causal depth × capacity re-offers: a chain of states re-offering onward stops at the causal depth limit, the rest left queued', async () => {
    const last = MAX_CAUSAL_DEPTH + 3;
    const ids = Array.from({ length: last + 1 }, (_, k) => `i${k}`);
    const { engine, logger } = await setup(ids, chain(last));
    for (let k = 0; k <= last; k++) expect((await engine.applyTrigger(`i${k}`, sent(`Place${k}`, `i${k}`))).outcome).toBe('transitioned');
    for (let k = last; k >= 1; k--) expect((await engine.applyTrigger(`i${k}`, sent('Move', `i${k}`))).outcome).toBe('capacityQueued');
    await engine.applyTrigger('i0', sent('Move', 'i0'));
    // i1 was re-offered at depth 1, ..., i32 at depth 32; i32's leaving would re-offer i33 at depth 33: not written.
    const states = await Promise.all(ids.map(async (id) => (await engine.getInstance(id)).stateId));
    expect(states.slice(0, MAX_CAUSAL_DEPTH + 1)).toEqual(['out', ...Array.from({ length: MAX_CAUSAL_DEPTH }, (_, k) => `c${k}`)]);
    expect(states.slice(MAX_CAUSAL_DEPTH + 1)).toEqual([`c${MAX_CAUSAL_DEPTH + 1}`, `c${MAX_CAUSAL_DEPTH + 2}`, `c${MAX_CAUSAL_DEPTH + 3}`]);
    expect((await engine.flow!.view('chain', 'all')).capacity.find((state) => state.stateId === `c${MAX_CAUSAL_DEPTH}`)!.queued).toEqual([
      expect.objectContaining({ instanceId: `i${MAX_CAUSAL_DEPTH + 1}` }),
    ]);
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([expect.stringContaining('causal depth')]);
  });

  it('applied once × capacity re-offers (a re-offer relayed twice): the second delivery of the copy is a duplicate of the waiting trigger', async () => {
    const { engine } = await setup(['a', 'b']);
    await engine.applyTrigger('a', sent('Pick', 'a'));
    await engine.applyTrigger('b', sent('Pick', 'b'));
    const recording: Trigger[] = [];
    await engine.withDelivery({ trigger: async (row) => void recording.push(row.payload) }).applyTrigger('a', sent('Done', 'a'));
    expect(recording).toHaveLength(1);
    expect((await engine.applyTrigger('b', recording[0]!)).outcome).toBe('transitioned');
    expect((await engine.applyTrigger('b', recording[0]!)).outcome).toBe('duplicate');
    expect((await engine.getHistory('b')).items.filter((entry) => entry.triggerId === 'Pick-b')).toHaveLength(1);
  });

  it("event order × capacity re-offers: queueing emits nothing; the waiter entering emits its event after its earlier ones, after the leaver's", async () => {
    const { engine } = await setup(['a', 'b']);
    await engine.applyTrigger('a', sent('Pick', 'a'));
    await engine.applyTrigger('b', sent('Pick', 'b'));
    const types = async (id: string) => (await engine.listEvents(id, { maxPageSize: 100 })).items.map((event) => `${event.sequence}:${event.type}:${event.time}`);
    expect((await types('b')).map((text) => text.split(':').slice(0, 2).join(':'))).toEqual(['0:created']);
    await engine.applyTrigger('a', sent('Done', 'a'));
    const a = await types('a');
    const b = await types('b');
    expect(b.map((text) => text.split(':').slice(0, 2).join(':'))).toEqual(['0:created', '1:transitioned']);
    expect(a.at(-1)!.split(':').slice(0, 2).join(':')).toMatch(/^\d+:(transitioned|completed)$/);
  });

  it('due-timer rows × capacity re-offers: a queued trigger has one row for its deadline, gone once its re-offer admits it; the state entered arms its timers as usual', async () => {
    const withTimer = ordersWith();
    (withTimer.states.picking as { transitions: unknown[] }).transitions.push({ id: 'late', targetStateId: 'done', timer: { after: 'PT1H' } });
    const { engine, ports } = await setup(['a', 'b'], withTimer);
    const due = async () => {
      const rows = [];
      for await (const row of ports.dueTimers.listDue(new Date('2100-01-01T00:00:00Z'))) rows.push(`${row.instanceId}:${row.capacityWait ? `wait ${row.capacityWait.triggerId}` : row.transitionId}`);
      return rows;
    };
    await engine.applyTrigger('a', sent('Pick', 'a'));
    await engine.applyTrigger('b', sent('Pick', 'b'));
    expect((await due()).sort()).toEqual(['a:late', 'b:wait Pick-b']);
    await engine.applyTrigger('a', sent('Done', 'a'));
    expect(await due()).toEqual(['b:late']);
  });

  it("actor × capacity re-offers: the waiting trigger is applied for its own sender, not for the leaver's", async () => {
    const { engine } = await setup(['a', 'b']);
    const alice: Actor = { id: 'alice', name: 'Alice', roles: ['Signalbox.Sender'], via: 'token' };
    const bob: Actor = { id: 'bob', name: 'Bob', roles: ['Signalbox.Sender'], via: 'token' };
    await engine.applyTrigger('a', { ...sent('Pick', 'a'), actor: alice });
    await engine.applyTrigger('b', { ...sent('Pick', 'b'), actor: bob });
    await engine.applyTrigger('a', { ...sent('Done', 'a'), actor: alice });
    expect((await engine.getHistory('b')).items.at(-1)).toMatchObject({ triggerId: 'Pick-b', actor: expect.objectContaining({ id: 'bob' }) });
  });

  it('search rows × capacity re-offers: queueing writes no rows; the re-offer, applied, indexes the state entered', async () => {
    const { engine, ports } = await setup(['a', 'b'], ordersWith({ indexes: [{ name: 'customer', type: 'string', expression: 'context.customer' }] }));
    await engine.applyTrigger('a', sent('Pick', 'a'));
    const writes = ports.search.writes;
    await engine.applyTrigger('b', sent('Pick', 'b'));
    expect(ports.search.writes).toBe(writes);
    await engine.applyTrigger('a', sent('Done', 'a'));
    expect((await engine.searchInstances({ workflowId: 'orders', filter: "stateId = 'picking'" })).items.map((instance) => instance.id)).toEqual(['b']);
  });

  it('concurrency slots × capacity re-offers: a queued trigger gives its slot back; the re-offer takes one like any trigger and gives it back', async () => {
    const { engine } = await setup(['a', 'b'], ordersWith({ flow: { concurrency: { key: '"all"', limit: 1 } } } as Partial<WorkflowDefinitionInput>));
    await engine.applyTrigger('a', sent('Pick', 'a'));
    const queued = await engine.applyTrigger('b', sent('Pick', 'b'));
    expect(queued.outcome).toBe('capacityQueued');
    expect(queued.trace?.map((entry) => entry.type).slice(0, 2)).toEqual(['capacity', 'concurrency']);
    expect((await engine.flow!.view('orders', 'all')).running).toEqual([]);
    await engine.applyTrigger('a', sent('Done', 'a'));
    expect((await engine.getInstance('b')).stateId).toBe('picking');
    expect((await engine.flow!.view('orders', 'all')).running).toEqual([]);
  });

  // Entered by a change from outside (a creation, a recovery, a migration): counted in or refused, never queued.
  const direct = ordersWith({
    id: 'direct',
    initialStateId: 'picking',
    states: {
      picking: {
        capacity: { key: 'customer:{{context.customer}}', limit: 1 },
        transitions: [
          { id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] },
          { id: 'break', targetStateId: 'broken', conditions: [{ type: 'triggerName', name: 'Break' }] },
        ],
      },
      broken: {
        entryActions: [{ type: 'setContext', expressions: { failed: '$error("broken")' } }],
        transitions: [{ id: 'back', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Back' }] }],
      },
      done: {},
    },
  } as Partial<WorkflowDefinitionInput>);

  it('capacity on entry × crash resumption: a creation counted in whose save never came holds its place only while it still could, then another creation takes it', async () => {
    const { ports } = await setup([], direct);
    const clock = new ManualClock('2026-11-26T10:00:00.000Z');
    const engine = new Engine(ports, { clock, logger: recordingLogger(), newId: () => 'id' });
    const create = ports.instances.create.bind(ports.instances);
    // The process stops between the count and the instance's save: the save never answers, and nothing after it runs
    // (a failure that is answered is settled at once: the place is given back).
    let reachedSave!: () => void;
    const atSave = new Promise<void>((resolve) => (reachedSave = resolve));
    ports.instances.create = () => {
      reachedSave();
      return new Promise<never>(() => {});
    };
    void engine.createInstance({ workflowId: 'direct', instanceId: 'lost', context: { customer: '42' } });
    await atSave;
    ports.instances.create = create;
    await expect(engine.createInstance({ workflowId: 'direct', instanceId: 'next', context: { customer: '42' } })).rejects.toMatchObject({
      message: 'state `picking` is full for key `customer:42`: 1/1',
    });
    await clock.advanceBy(61_000);
    expect(await engine.createInstance({ workflowId: 'direct', instanceId: 'next', context: { customer: '42' } })).toMatchObject({ stateId: 'picking' });
    expect((await engine.flow!.view('direct', 'customer:42')).capacity[0]!.members.map((member) => member.instanceId)).toEqual(['next']);
  });

  it('capacity on entry × deletion and re-creation: an instance created into the state and deleted frees its place; created again with its id, it is counted once', async () => {
    const { engine } = await setup(['a'], direct);
    await expect(engine.createInstance({ workflowId: 'direct', instanceId: 'b', context: { customer: '42' } })).rejects.toMatchObject({ code: 'conflict' });
    await engine.deleteInstance('a', { force: true });
    expect(await engine.createInstance({ workflowId: 'direct', instanceId: 'a', context: { customer: '42' } })).toMatchObject({ stateId: 'picking', capacityEntry: { key: 'customer:42' } });
    expect((await engine.flow!.view('direct', 'customer:42')).capacity[0]!.members.map((member) => member.instanceId)).toEqual(['a']);
    await expect(engine.createInstance({ workflowId: 'direct', instanceId: 'b', context: { customer: '42' } })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('capacity on entry × migrations and bulk actions (recover): an instance that would enter a full state is left as it was, saying why, and the others go on', async () => {
    const { engine } = await setup(['a', 'b'], orders);
    await engine.createInstance({ workflowId: 'orders', instanceId: 'x', context: { customer: '7' } });
    await engine.applyTrigger('a', sent('Pick', 'a'));
    await engine.addWorkflowVersion({ ...orders, displayName: 'Orders v2' } as WorkflowDefinitionInput, { ifMatch: '*' });
    const migration = { workflowId: 'orders', fromVersion: 1, toVersion: 2, stateMap: { open: 'picking' } };
    expect(await engine.migrationsAndBulkActions.migrate('b', migration)).toMatchObject({ outcome: 'notMigratable', error: 'state `picking` is full for key `customer:42`: 1/1' });
    expect(await engine.migrationsAndBulkActions.migrate('x', migration)).toMatchObject({ outcome: 'migrated', toStateId: 'picking' });

    const bulk = await setup([], direct);
    for (const id of ['f1', 'f2']) {
      await bulk.engine.createInstance({ workflowId: 'direct', instanceId: id, context: { customer: id } });
      await bulk.engine.applyTrigger(id, sent('Break', id));
    }
    // f1's key is taken while it is faulted; f2's is free.
    await bulk.engine.createInstance({ workflowId: 'direct', instanceId: 'taker', context: { customer: 'f1' } });
    const recover = { action: 'recover' as const, stateId: 'picking', filter: { workflowId: 'direct', status: 'faulted' as const } };
    expect(await bulk.engine.migrationsAndBulkActions.applyBulk('f1', recover)).toMatchObject({ outcome: 'conflict', error: 'state `picking` is full for key `customer:f1`: 1/1' });
    expect(await bulk.engine.getInstance('f1')).toMatchObject({ status: 'faulted', stateId: 'broken' });
    expect(await bulk.engine.migrationsAndBulkActions.applyBulk('f2', recover)).toMatchObject({ outcome: 'recovered', toStateId: 'picking' });
  });

  // An automatic transition into a full state is not taken: the instance waits with a trigger of its own (Trigger.capacityRoom).
  const sortedOrders = ordersWith({
    states: {
      open: { transitions: [{ id: 'sort', targetStateId: 'sorting', conditions: [{ type: 'triggerName', name: 'Sort' }] }] },
      sorting: { transitions: [{ id: 'toPicking', targetStateId: 'picking', automatic: true }] },
      picking: {
        capacity: { key: 'customer:{{context.customer}}', limit: 1 },
        transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }],
      },
      done: {},
    },
  } as Partial<WorkflowDefinitionInput>);

  it("applied once × capacity re-offers (an automatic transition's wait, relayed twice): it takes the transition once, the second delivery a duplicate", async () => {
    const { engine } = await setup(['a', 'b'], sortedOrders);
    await engine.applyTrigger('a', sent('Sort', 'a'));
    expect((await engine.applyTrigger('b', sent('Sort', 'b'))).toStateId).toBe('sorting');
    const recording: Trigger[] = [];
    await engine.withDelivery({ trigger: async (row) => void recording.push(row.payload) }).applyTrigger('a', sent('Done', 'a'));
    expect(recording).toEqual([expect.objectContaining({ recipient: expect.objectContaining({ instanceId: 'b' }) })]);
    expect(await engine.applyTrigger('b', recording[0]!)).toMatchObject({ outcome: 'transitioned', transitionId: 'toPicking', toStateId: 'picking' });
    expect((await engine.applyTrigger('b', recording[0]!)).outcome).toBe('duplicate');
    expect((await engine.getHistory('b')).items.map((entry) => entry.transitionId)).toEqual([null, 'sort', 'toPicking']);
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'b' }], queued: [] });
  });

  it("incarnations × capacity re-offers (an automatic transition's wait), deletion and re-creation: a deleted instance's wait never moves the instance created again with its id", async () => {
    const { engine } = await setup(['a', 'b'], sortedOrders);
    await engine.applyTrigger('a', sent('Sort', 'a'));
    await engine.applyTrigger('b', sent('Sort', 'b'));
    await engine.deleteInstance('b', { force: true });
    await engine.createInstance({ workflowId: 'orders', instanceId: 'b', context: { customer: '42' } });
    await engine.applyTrigger('a', sent('Done', 'a'));
    expect((await engine.getInstance('b')).stateId).toBe('open');
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [], queued: [] });
  });

  it("incarnations × the deadline timer of an automatic transition's wait, deletion and re-creation: a deleted instance's timer never ends the wait of the instance created again", async () => {
    const { engine, clock } = await setup(['a', 'b'], sortedOrders);
    await engine.applyTrigger('a', sent('Sort', 'a'));
    await engine.applyTrigger('b', sent('Sort', 'b'));
    await engine.deleteInstance('b', { force: true });
    await clock.advanceBy(12 * 3600_000);
    await engine.createInstance({ workflowId: 'orders', instanceId: 'b', context: { customer: '42' } });
    await engine.applyTrigger('b', sent('Sort', 'b', 'sort-again'));
    const [wait] = (await engine.getInstance('b')).capacityWaits ?? [];
    expect(wait).toMatchObject({ stateId: 'picking', whileIn: 'sorting', deadline: '2026-11-27T22:00:00.000Z' });
    // The first incarnation's deadline passes: its timer finds no wait of its own and ends nothing.
    await clock.advanceBy(12 * 3600_000);
    expect((await engine.getInstance('b')).capacityWaits).toEqual([wait]);
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]!.queued.map((waiter) => waiter.triggerId)).toContain(wait!.triggerId);
    // Its own deadline ends its wait, once.
    await clock.advanceBy(12 * 3600_000);
    expect((await engine.getInstance('b')).capacityWaits).toBeUndefined();
    expect((await engine.getOffers('b')).filter((offer) => offer.outcome === 'capacityTimeout')).toHaveLength(1);
    expect((await engine.getInstance('b')).stateId).toBe('sorting');
  });

  it("crash resumption × capacity re-offers (an automatic transition's wait): a re-offer saved by the leaving change just before the crash takes the transition once after the restart", async () => {
    const { engine, ports } = await setup(['a', 'b'], sortedOrders);
    await engine.applyTrigger('a', sent('Sort', 'a'));
    await engine.applyTrigger('b', sent('Sort', 'b'));
    const crashing = engine.withDelivery({ trigger: stopped, timer: stopped, startInstance: stopped, cancelChildren: stopped });
    await crashing.applyTrigger('a', sent('Done', 'a'));
    expect((await engine.getInstance('b')).stateId).toBe('sorting');
    const restarted = new Engine(ports, { clock: new ManualClock('2026-11-26T10:00:00.000Z'), logger: recordingLogger(), newId: () => 'after' });
    expect(await restarted.relayLeftovers()).toBe(1);
    expect((await restarted.getInstance('b')).stateId).toBe('picking');
    expect((await restarted.getHistory('b')).items.map((entry) => entry.transitionId)).toEqual([null, 'sort', 'toPicking']);
  });

  it("incarnations × capacity re-offers (a place given back by an instance that only passed through), deletion and re-creation: a deleted waiter's trigger never reaches the instance created again with its id", async () => {
    // x passes through `picking` (counted in, then on to `done` by an automatic transition in the same change);
    // while it holds the place, y's Pick finds the state full and queues; then y is deleted and created again.
    const passing = passingOrdersWorkflow();
    const ports = createInMemoryPorts();
    const paused = flowPausingWhenCounted(ports.flow!, 'x');
    const engine = new Engine({ ...ports, flow: paused.flow }, { clock: new ManualClock('2026-11-26T10:00:00.000Z'), logger: recordingLogger(), newId: () => 'gen' });
    await engine.createWorkflow(passing);
    await engine.createInstance({ workflowId: 'passing', instanceId: 'x', context: { customer: '42', express: true } });
    await engine.createInstance({ workflowId: 'passing', instanceId: 'y', context: { customer: '42', express: false } });
    const firstY = (await engine.getInstance('y')).incarnation;
    let queued: string | undefined;
    paused.whileCounted(async () => {
      queued = (await engine.applyTrigger('y', sent('Pick', 'y'))).outcome;
      await engine.deleteInstance('y', { force: true });
      await engine.createInstance({ workflowId: 'passing', instanceId: 'y', context: { customer: '42', express: false } });
    });

    expect(await engine.applyTrigger('x', sent('Go', 'x'))).toMatchObject({ outcome: 'transitioned', toStateId: 'done' });
    expect(queued).toBe('capacityQueued');
    const y = await engine.getInstance('y');
    expect(y.incarnation).not.toBe(firstY);
    // The give-back offered the room to the first y's queued Pick: its instance is gone, so it was forgotten, not applied to the new y.
    expect(y.stateId).toBe('open');
    expect((await engine.getHistory('y')).items.map((entry) => entry.triggerId)).not.toContain('Pick-y');
    expect((await engine.flow!.view('passing', 'customer:42')).capacity[0]).toMatchObject({ members: [], queued: [] });
    // The new y takes the free place with a Pick of its own.
    expect((await engine.applyTrigger('y', sent('Pick', 'y', 'pick-new-y'))).toStateId).toBe('picking');
  });
});
