/**
 * `capacity` on a state, on in-memory ports and the manual clock: at most `limit` instances per key in the
 * state, the rest of the triggers into it queued in order (priority first) and applied when an instance
 * leaves, or ended with `capacityTimeout`; counts reconciled with the instances' own state.
 */
import { DefinitionInvalidError, MAX_CAPACITY_ROW_CHARS, validateDefinition, type WorkflowDefinitionInput } from '../../src/engine';
import { ConflictError, Engine, NotFoundError } from '../../src/engine';
import { InMemoryDueTimerIndex, InMemoryFlowStore, ManualClock, createInMemoryPorts } from '../../src/testing';
import { flowPausingWhenCounted, passingOrdersWorkflow, recordingLogger, testEngine, trigger } from './support';

function workflow(capacity: object | undefined): WorkflowDefinitionInput {
  return {
    id: 'orders',
    displayName: 'Orders',
    initialStateId: 'open',
    states: {
      open: { transitions: [{ id: 'pick', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Pick' }] }] },
      picking: {
        ...(capacity ? { capacity } : {}),
        transitions: [
          { id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] },
          { id: 'note', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Note' }] },
        ],
      },
      done: {},
    },
  } as WorkflowDefinitionInput;
}

const perCustomer = (limit: number, timeout?: string) => ({ key: 'customer:{{context.customer}}', limit, ...(timeout ? { timeout } : {}) });

async function setUp(capacity: object | undefined, instances: { id: string; customer: string }[]) {
  const test = testEngine({ inProcess: true });
  await test.engine.createWorkflow(workflow(capacity));
  for (const { id, customer } of instances) await test.engine.createInstance({ workflowId: 'orders', instanceId: id, context: { customer } });
  return test;
}

const pick = (instanceId: string, extra: object = {}) => trigger('Pick', { id: `pick-${instanceId}`, subjects: [instanceId], ...extra });
const done = (instanceId: string) => trigger('Done', { id: `done-${instanceId}`, subjects: [instanceId] });

describe('capacity on a state', () => {
  it('rejects a malformed key, a limit out of range and a bad timeout, naming the field', () => {
    const pathsOf = (capacity: object) => {
      try {
        validateDefinition(workflow(capacity));
        return [];
      } catch (error) {
        return (error as DefinitionInvalidError).issues.map((issue) => issue.path);
      }
    };
    expect(pathsOf({ key: 'context.(', limit: 2 })).toEqual(['states.picking.capacity.key']);
    expect(pathsOf({ key: 'context.customer', limit: 0 })).toEqual(['states.picking.capacity.limit']);
    expect(pathsOf({ key: 'context.customer', limit: 2, timeout: 'soon' })).toEqual(['states.picking.capacity.timeout']);
    expect(pathsOf({ key: 'context.customer', limit: 2, timeout: 'PT1H' })).toEqual([]);
  });

  it('admits `limit` instances per key, queues the next trigger (instance unchanged, traced) and applies it when one leaves', async () => {
    const { engine } = await setUp(perCustomer(2), [
      { id: 'a', customer: '42' },
      { id: 'b', customer: '42' },
      { id: 'c', customer: '42' },
      { id: 'x', customer: '7' },
    ]);
    const first = await engine.applyTrigger('a', pick('a'));
    expect(first.outcome).toBe('transitioned');
    expect(first.trace?.[0]).toEqual({ path: 'states.picking.capacity', type: 'capacity', result: true, detail: 'admitted: customer:42 at 1/2 in picking' });
    expect((await engine.applyTrigger('b', pick('b'))).outcome).toBe('transitioned');

    const queued = await engine.applyTrigger('c', pick('c'));
    expect(queued).toMatchObject({ outcome: 'capacityQueued', fromStateId: 'open', transitionId: 'pick' });
    expect(queued.trace?.[0]).toEqual({ path: 'states.picking.capacity', type: 'capacity', result: false, detail: 'queued: customer:42 at 2/2 in picking' });
    expect((await engine.getInstance('c')).stateId).toBe('open');
    // Another key is not held up; a change that stays in the full state is not counted twice.
    expect((await engine.applyTrigger('x', pick('x'))).outcome).toBe('transitioned');
    expect((await engine.applyTrigger('a', trigger('Note', { subjects: ['a'] }))).outcome).toBe('transitioned');

    const view = await engine.flow!.view('orders', 'customer:42');
    expect(view.capacity).toEqual([
      {
        stateId: 'picking',
        limit: 2,
        members: [expect.objectContaining({ instanceId: 'a' }), expect.objectContaining({ instanceId: 'b' })],
        queued: [expect.objectContaining({ instanceId: 'c', triggerId: 'pick-c', priority: 3 })],
      },
    ]);

    expect((await engine.applyTrigger('a', done('a'))).outcome).toBe('transitioned');
    const c = await engine.getInstance('c');
    expect(c.stateId).toBe('picking');
    const history = (await engine.getHistory('c')).items;
    expect(history.at(-1)).toMatchObject({ triggerId: 'pick-c', toStateId: 'picking' });
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'b' }, { instanceId: 'c' }], queued: [] });
  });

  it('keeps a waiter queued while its instance is suspended, and applies it once room frees after the resume', async () => {
    const { engine } = await setUp(perCustomer(1), [
      { id: 'a', customer: '42' },
      { id: 'b', customer: '42' },
      { id: 'c', customer: '42' },
    ]);
    expect((await engine.applyTrigger('a', pick('a'))).outcome).toBe('transitioned');
    expect((await engine.applyTrigger('b', pick('b'))).outcome).toBe('capacityQueued');
    await engine.suspend('b');
    // Room frees while b cannot take its trigger: the offer answers notActive, and the trigger stays queued.
    expect((await engine.applyTrigger('a', done('a'))).outcome).toBe('transitioned');
    expect((await engine.getInstance('b')).stateId).toBe('open');
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ queued: [{ instanceId: 'b', triggerId: 'pick-b' }] });
    await engine.resume('b');
    // The next trigger into the state with room offers the waiter ahead of it first.
    await engine.applyTrigger('c', pick('c'));
    expect((await engine.getInstance('b')).stateId).toBe('picking');
    expect((await engine.getHistory('b')).items.at(-1)).toMatchObject({ triggerId: 'pick-b', toStateId: 'picking' });
  });

  it('admits waiters higher priority first, then in arrival order', async () => {
    const { engine } = await setUp(
      perCustomer(1),
      ['a', 'b', 'c', 'd'].map((id) => ({ id, customer: '42' })),
    );
    await engine.applyTrigger('a', pick('a'));
    expect((await engine.applyTrigger('b', pick('b'))).outcome).toBe('capacityQueued');
    expect((await engine.applyTrigger('c', pick('c', { priority: 5 }))).outcome).toBe('capacityQueued');
    expect((await engine.applyTrigger('d', pick('d'))).outcome).toBe('capacityQueued');
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]!.queued.map((waiter) => waiter.instanceId)).toEqual(['c', 'b', 'd']);

    const order: string[] = [];
    for (const leaving of ['a', 'c', 'b']) {
      await engine.applyTrigger(leaving, done(leaving));
      const inPicking = await Promise.all(['b', 'c', 'd'].map(async (id) => ((await engine.getInstance(id)).stateId === 'picking' ? id : undefined)));
      order.push(...inPicking.filter((id): id is string => id !== undefined && !order.includes(id)));
    }
    expect(order).toEqual(['c', 'b', 'd']);
  });

  it('ends a wait past `timeout` with capacityTimeout: the instance stays where it was and the queue lets it go', async () => {
    const { engine, clock, logger } = await setUp(
      perCustomer(1, 'PT1H'),
      ['a', 'b'].map((id) => ({ id, customer: '42' })),
    );
    await engine.applyTrigger('a', pick('a'));
    expect((await engine.applyTrigger('b', pick('b'))).outcome).toBe('capacityQueued');
    clock.advance(3600_000);
    await engine.applyTrigger('a', done('a'));

    expect((await engine.getInstance('b')).stateId).toBe('open');
    const offers = await engine.getOffers('b');
    // Offers are newest first, one per operation: the queued offer is replaced by how its wait ended.
    expect(offers).toEqual([expect.objectContaining({ operationId: 'pick-b', outcome: 'capacityTimeout', fromStateId: 'open' })]);
    expect(offers[0]!.trace?.[0]?.detail).toBe('capacityTimeout: customer:42 at 0/1 in picking, waited since 2026-01-01T00:00:00.000Z');
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [], queued: [] });
    expect(logger.lines.filter((line) => line.level !== 'info')).toEqual([]);
    // A trigger after the wait is a new arrival, admitted now that there is room.
    expect((await engine.applyTrigger('b', pick('b', { id: 'pick-b-again' }))).outcome).toBe('transitioned');
  });

  it('ends a wait from a timer at its deadline, with nothing else happening: capacityTimeout, the queue lets it go, the timer row goes', async () => {
    const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex() };
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const engine = new Engine(ports, { clock, logger: recordingLogger(), newId: () => 'gen' });
    await engine.createWorkflow(workflow(perCustomer(1, 'PT1H')));
    for (const id of ['a', 'b']) await engine.createInstance({ workflowId: 'orders', instanceId: id, context: { customer: '42' } });
    await engine.applyTrigger('a', pick('a'));
    expect((await engine.applyTrigger('b', pick('b'))).outcome).toBe('capacityQueued');
    expect((await engine.getInstance('b')).capacityWaits).toEqual([{ triggerId: 'pick-b', stateId: 'picking', key: 'customer:42', deadline: '2026-01-01T01:00:00.000Z' }]);
    await clock.advanceBy(3600_000);
    expect((await engine.getInstance('b')).stateId).toBe('open');
    expect((await engine.getInstance('b')).capacityWaits).toBeUndefined();
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'a' }], queued: [] });
    const offers = await engine.getOffers('b');
    expect(offers[0]).toMatchObject({ operationId: 'pick-b', outcome: 'capacityTimeout' });
    expect(offers[0]!.trace?.[0]?.detail).toBe('capacityTimeout: customer:42 at 1/1 in picking, waited since 2026-01-01T00:00:00.000Z');
    const due = [];
    for await (const row of ports.dueTimers.listDue(new Date('2100-01-01T00:00:00Z'))) due.push(row);
    expect(due).toEqual([]);
    // Admitted before its deadline instead, the waiter's timer is disarmed with the entry.
    expect((await engine.applyTrigger('b', pick('b', { id: 'pick-b-2' }))).outcome).toBe('capacityQueued');
    await engine.applyTrigger('a', done('a'));
    expect((await engine.getInstance('b')).stateId).toBe('picking');
    expect((await engine.getInstance('b')).capacityWaits).toBeUndefined();
  });

  it("counts by the instances' own state: a member cancelled or deleted in the state frees its place at the next full check", async () => {
    const { engine } = await setUp(
      perCustomer(2),
      ['a', 'b', 'c', 'd'].map((id) => ({ id, customer: '42' })),
    );
    await engine.applyTrigger('a', pick('a'));
    await engine.applyTrigger('b', pick('b'));
    await engine.cancel('a');
    await engine.deleteInstance('b', { force: true });
    expect((await engine.applyTrigger('c', pick('c'))).trace?.[0]?.detail).toBe('admitted: customer:42 at 1/2 in picking');
    expect((await engine.applyTrigger('d', pick('d'))).outcome).toBe('transitioned');
  });

  it('holds exactly `limit` under concurrent triggers and applies every queued trigger once as instances leave', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `o${i}`);
    const { engine } = await setUp(
      perCustomer(3),
      ids.map((id) => ({ id, customer: '42' })),
    );
    const outcomes = await Promise.all(ids.map((id) => engine.applyTrigger(id, pick(id))));
    expect(outcomes.filter((result) => result.outcome === 'transitioned')).toHaveLength(3);
    expect(outcomes.filter((result) => result.outcome === 'capacityQueued')).toHaveLength(9);

    for (let round = 0; round < 12; round++) {
      const states = await Promise.all(ids.map(async (id) => (await engine.getInstance(id)).stateId));
      expect(states.filter((state) => state === 'picking').length).toBeLessThanOrEqual(3);
      const leaving = ids.find((_id, index) => states[index] === 'picking');
      if (!leaving) break;
      await engine.applyTrigger(leaving, done(leaving));
    }
    for (const id of ids) {
      const history = (await engine.getHistory(id)).items;
      expect(history.filter((entry) => entry.triggerId === `pick-${id}`)).toHaveLength(1);
      expect((await engine.getInstance(id)).stateId).toBe('done');
    }
  });

  it("runs no action of a trigger that must wait: the check comes before the transition's steps, so its call is made once, when it is applied", async () => {
    const calls: string[] = [];
    const test = testEngine({ inProcess: true, http: { send: async (request) => (calls.push(request.url), { status: 200, body: undefined }) } });
    const definition = workflow(perCustomer(1)) as { states: Record<string, { transitions?: { actions?: object[] }[] }> };
    definition.states.open!.transitions![0]!.actions = [{ type: 'invokeExternalService', url: 'https://partner.example/reserve' }];
    await test.engine.createWorkflow(definition as unknown as WorkflowDefinitionInput);
    for (const id of ['a', 'b']) await test.engine.createInstance({ workflowId: 'orders', instanceId: id, context: { customer: '42' } });
    await test.engine.applyTrigger('a', pick('a'));
    expect(calls).toHaveLength(1);
    expect((await test.engine.applyTrigger('b', pick('b'))).outcome).toBe('capacityQueued');
    expect(calls).toHaveLength(1);
    await test.engine.applyTrigger('a', done('a'));
    expect((await test.engine.getInstance('b')).stateId).toBe('picking');
    expect(calls).toHaveLength(2);
  });

  it('counts an instance out under the key it entered with, even when the key reads the trigger', async () => {
    const { engine } = await setUp({ key: 'customer:{{trigger.parameters.customer}}', limit: 1 }, [
      { id: 'a', customer: '42' },
      { id: 'b', customer: '42' },
    ]);
    expect((await engine.applyTrigger('a', pick('a', { parameters: { customer: '42' } }))).outcome).toBe('transitioned');
    expect((await engine.getInstance('a')).capacityEntry).toEqual({ stateId: 'picking', key: 'customer:42' });
    expect((await engine.applyTrigger('b', pick('b', { parameters: { customer: '42' } }))).outcome).toBe('capacityQueued');
    // `Done` names no customer: the key it would give now is `customer:`, but `a` leaves `customer:42`.
    await engine.applyTrigger('a', done('a'));
    expect((await engine.getInstance('a')).capacityEntry).toBeUndefined();
    expect((await engine.getInstance('b')).stateId).toBe('picking');
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'b' }], queued: [] });
  });

  it('offers the waiter again by an outbox row of the leaving save, addressed to its instance and incarnation', async () => {
    const { engine, delivery } = await (async () => {
      const test = testEngine();
      await test.engine.createWorkflow(workflow(perCustomer(1)));
      for (const id of ['a', 'b']) await test.engine.createInstance({ workflowId: 'orders', instanceId: id, context: { customer: '42' } });
      return test;
    })();
    await engine.applyTrigger('a', pick('a'));
    expect((await engine.applyTrigger('b', pick('b', { priority: 4 }))).outcome).toBe('capacityQueued');
    await engine.applyTrigger('a', done('a'));
    const b = await engine.getInstance('b');
    const reoffers = delivery.delivered.filter((sent) => sent.internal?.kind === 'capacityReoffer');
    expect(reoffers).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^raised:1:a:i\.[0-9a-f]+:k2\.pick-b:0$/),
        name: 'Pick',
        subjects: ['b'],
        priority: 4,
        recipient: { instanceId: 'b', incarnation: b.incarnation },
        causalDepth: 1,
        internal: { kind: 'capacityReoffer', workflowId: 'orders', stateId: 'picking', key: 'customer:42', trigger: expect.objectContaining({ id: 'pick-b' }) },
      }),
    ]);
    // Applied: the waiting trigger itself, under its own id; the copy delivered again changes nothing more.
    await engine.applyTrigger('b', reoffers[0]!);
    expect((await engine.getHistory('b')).items.at(-1)).toMatchObject({ triggerId: 'pick-b', toStateId: 'picking' });
    expect((await engine.applyTrigger('b', reoffers[0]!)).outcome).toBe('duplicate');
    expect((await engine.getHistory('b')).items.filter((entry) => entry.triggerId === 'pick-b')).toHaveLength(1);
  });

  it('frees the place of an instance cancelled, deleted or migrated out of the state at once, offering it to the next waiter', async () => {
    const { engine } = await setUp(
      perCustomer(1),
      ['a', 'b', 'c', 'd'].map((id) => ({ id, customer: '42' })),
    );
    await engine.applyTrigger('a', pick('a'));
    for (const id of ['b', 'c', 'd']) expect((await engine.applyTrigger(id, pick(id))).outcome).toBe('capacityQueued');
    await engine.cancel('a');
    expect((await engine.getInstance('b')).stateId).toBe('picking');
    await engine.deleteInstance('b', { force: true });
    expect((await engine.getInstance('c')).stateId).toBe('picking');
    await engine.addWorkflowVersion({ ...workflow(perCustomer(1)), displayName: 'Orders v2' } as WorkflowDefinitionInput, { ifMatch: '*' });
    expect((await engine.migrationsAndBulkActions.migrate('c', { workflowId: 'orders', fromVersion: 1, toVersion: 2, stateMap: { picking: 'open' } })).outcome).toBe('migrated');
    expect((await engine.getInstance('d')).stateId).toBe('picking');
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'd' }], queued: [] });
  });

  it("bounds a queue by its row's size: a trigger that would take the row past it answers capacityTimeout at once", async () => {
    const { engine } = await setUp(
      perCustomer(1),
      Array.from({ length: 9 }, (_, i) => ({ id: `o${i}`, customer: '42' })),
    );
    await engine.applyTrigger('o0', pick('o0'));
    const bulky = { note: 'x'.repeat(60_000) };
    const outcomes = [];
    for (let i = 1; i < 9; i++) outcomes.push((await engine.applyTrigger(`o${i}`, pick(`o${i}`, { parameters: bulky }))).outcome);
    // Six waiters of 60,000 characters fit under MAX_CAPACITY_ROW_CHARS (400,000); the seventh would not.
    expect(outcomes).toEqual(['capacityQueued', 'capacityQueued', 'capacityQueued', 'capacityQueued', 'capacityQueued', 'capacityQueued', 'capacityTimeout', 'capacityTimeout']);
    expect(MAX_CAPACITY_ROW_CHARS).toBe(400_000);
  });

  it('costs two flow-store requests to enter, two to leave (the read for the re-offers is the one the leave writes over), two to apply a re-offer', async () => {
    const { engine, flow } = await setUp(perCustomer(1), [
      { id: 'a', customer: '42' },
      { id: 'b', customer: '42' },
    ]);
    const store = flow as InMemoryFlowStore;
    const requestsOf = async (work: () => Promise<unknown>) => {
      const before = store.requests;
      await work();
      return store.requests - before;
    };
    expect(await requestsOf(() => engine.applyTrigger('a', pick('a')))).toBe(2);
    expect(await requestsOf(() => engine.applyTrigger('b', pick('b')))).toBe(2);
    // a leaves (read, write) and b's re-offer is applied in process (read, write).
    expect(await requestsOf(() => engine.applyTrigger('a', done('a')))).toBe(4);
    expect(await requestsOf(() => engine.applyTrigger('b', done('b')))).toBe(2);
  });

  it('costs a workflow whose states declare no capacity no flow-store request', async () => {
    const { engine, flow } = await setUp(undefined, [{ id: 'a', customer: '42' }]);
    await engine.applyTrigger('a', pick('a'));
    await engine.applyTrigger('a', done('a'));
    expect((flow as InMemoryFlowStore).requests).toBe(0);
  });
});

describe('capacity on a state, entered by a creation, a recovery or a migration', () => {
  /** Orders created straight into `picking`, or faulted in `broken` and recovered into it. */
  const entering: WorkflowDefinitionInput = {
    id: 'direct',
    displayName: 'Direct orders',
    initialStateId: 'picking',
    states: {
      picking: {
        capacity: perCustomer(2),
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
  } as WorkflowDefinitionInput;

  async function directly(ids: string[], customer = '42') {
    const test = testEngine({ inProcess: true });
    await test.engine.createWorkflow(entering);
    for (const id of ids) await test.engine.createInstance({ workflowId: 'direct', instanceId: id, context: { customer } });
    return test;
  }

  it('counts an instance created into the state, and refuses a creation into a full one with a 409 naming the state and key, creating nothing', async () => {
    const { engine, interests } = await directly(['a', 'b']);
    expect(await engine.getInstance('a')).toMatchObject({ stateId: 'picking', capacityEntry: { stateId: 'picking', key: 'customer:42' } });
    const refused = engine.createInstance({ workflowId: 'direct', instanceId: 'c', context: { customer: '42' } });
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await expect(refused).rejects.toMatchObject({ message: 'state `picking` is full for key `customer:42`: 2/2', stateId: 'picking', key: 'customer:42' });
    await expect(engine.getInstance('c')).rejects.toBeInstanceOf(NotFoundError);
    const candidates: string[] = [];
    for await (const id of interests.findCandidates(['c'])) candidates.push(id);
    expect(candidates).toEqual([]);
    expect((await engine.flow!.view('direct', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'a' }, { instanceId: 'b' }], queued: [] });
    // Another key is not held up; once one leaves, a creation fits again.
    expect(await engine.createInstance({ workflowId: 'direct', instanceId: 'x', context: { customer: '7' } })).toMatchObject({ stateId: 'picking' });
    await engine.applyTrigger('a', done('a'));
    expect(await engine.createInstance({ workflowId: 'direct', instanceId: 'c', context: { customer: '42' } })).toMatchObject({ stateId: 'picking', capacityEntry: { key: 'customer:42' } });
  });

  it('refuses a recovery into a full state with a 409 naming the state and key, leaving the instance faulted as it was', async () => {
    const { engine } = await directly(['a', 'b']);
    expect(await engine.applyTrigger('a', trigger('Break', { subjects: ['a'] }))).toMatchObject({ outcome: 'faulted' });
    const faulted = await engine.getInstance('a');
    expect(faulted).toMatchObject({ status: 'faulted', stateId: 'broken' });
    expect(faulted.capacityEntry).toBeUndefined();
    await engine.createInstance({ workflowId: 'direct', instanceId: 'c', context: { customer: '42' } });

    const refused = engine.recover('a', 'picking');
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await expect(refused).rejects.toMatchObject({ message: 'state `picking` is full for key `customer:42`: 2/2' });
    expect(await engine.getInstance('a')).toMatchObject({ status: 'faulted', stateId: 'broken', etag: faulted.etag });

    await engine.applyTrigger('b', done('b'));
    expect(await engine.recover('a', 'picking')).toMatchObject({ status: 'waiting', stateId: 'picking', capacityEntry: { stateId: 'picking', key: 'customer:42' } });
    expect((await engine.flow!.view('direct', 'customer:42')).capacity[0]!.members.map((member) => member.instanceId).sort()).toEqual(['a', 'c']);
  });

  it('costs a creation into a state with capacity two flow-store requests (read, write), a refused one one read (its members are read from the instances), one with no capacity none', async () => {
    const { engine, flow } = await directly(['a']);
    const store = flow as InMemoryFlowStore;
    const requestsOf = async (work: () => Promise<unknown>) => {
      const before = store.requests;
      await work().catch(() => undefined);
      return store.requests - before;
    };
    expect(await requestsOf(() => engine.createInstance({ workflowId: 'direct', instanceId: 'b', context: { customer: '42' } }))).toBe(2);
    expect(await requestsOf(() => engine.createInstance({ workflowId: 'direct', instanceId: 'c', context: { customer: '42' } }))).toBe(1);
    await engine.createWorkflow(workflow(undefined));
    expect(await requestsOf(() => engine.createInstance({ workflowId: 'orders', instanceId: 'plain', context: { customer: '42' } }))).toBe(0);
  });

  it('leaves an instance a migration would move into a full state where it is, notMigratable saying why, and migrates the others', async () => {
    const { engine } = await setUp(perCustomer(1), [
      { id: 'a', customer: '42' },
      { id: 'b', customer: '42' },
      { id: 'x', customer: '7' },
    ]);
    await engine.applyTrigger('a', pick('a'));
    await engine.addWorkflowVersion({ ...workflow(perCustomer(1)), displayName: 'Orders v2' } as WorkflowDefinitionInput, { ifMatch: '*' });
    const migration = { workflowId: 'orders', fromVersion: 1, toVersion: 2, stateMap: { open: 'picking' } };
    const before = await engine.getInstance('b');
    expect(await engine.migrationsAndBulkActions.migrate('b', migration)).toEqual({
      instanceId: 'b',
      outcome: 'notMigratable',
      fromStateId: 'open',
      error: 'state `picking` is full for key `customer:42`: 1/1',
    });
    expect(await engine.getInstance('b')).toMatchObject({ workflowVersion: 1, stateId: 'open', etag: before.etag });
    expect(await engine.migrationsAndBulkActions.migrate('x', migration)).toMatchObject({ outcome: 'migrated', toStateId: 'picking' });
    expect(await engine.getInstance('x')).toMatchObject({ stateId: 'picking', capacityEntry: { stateId: 'picking', key: 'customer:7' } });
    expect((await engine.flow!.view('orders', 'customer:7')).capacity[0]).toMatchObject({ members: [{ instanceId: 'x' }] });
  });

  it('predicts in a migration dry run which instances a full state would refuse, per key, as the migration then does', async () => {
    const { engine } = await setUp(
      perCustomer(2),
      ['a', 'b', 'c', 'x', 'y', 'z'].map((id) => ({ id, customer: id < 'x' ? '42' : '7' })),
    );
    await engine.applyTrigger('a', pick('a'));
    await engine.addWorkflowVersion({ ...workflow(perCustomer(2)), displayName: 'Orders v2' } as WorkflowDefinitionInput, { ifMatch: '*' });
    const migration = { workflowId: 'orders', fromVersion: 1, toVersion: 2, stateMap: { open: 'picking' } };
    const report = await engine.migrationsAndBulkActions.migrationReport(migration);
    // customer:42 has one place left (a is in picking), customer:7 two; a itself is counted there already.
    expect(report.rows).toEqual([
      expect.objectContaining({ fromStateId: 'open', toStateId: 'picking', count: 3, sample: ['b', 'x', 'y'] }),
      expect.objectContaining({ fromStateId: 'picking', toStateId: 'picking', count: 1, sample: ['a'] }),
    ]);
    expect(report.blocked).toEqual([
      { fromStateId: 'open', reason: 'state `picking` would be full for key `customer:42`: 1/2 now', count: 1, sample: ['c'] },
      { fromStateId: 'open', reason: 'state `picking` would be full for key `customer:7`: 0/2 now', count: 1, sample: ['z'] },
    ]);
    // Nothing changed; the migration, offering them in the same order, refuses the same two.
    expect((await engine.flow!.view('orders', 'customer:7')).capacity.flatMap((row) => row.members)).toEqual([]);
    const outcomes: Record<string, string> = {};
    for (const id of ['a', 'b', 'c', 'x', 'y', 'z']) outcomes[id] = (await engine.migrationsAndBulkActions.migrate(id, migration)).outcome;
    expect(outcomes).toEqual({ a: 'migrated', b: 'migrated', c: 'notMigratable', x: 'migrated', y: 'migrated', z: 'notMigratable' });
  });
});

describe('capacity on a state entered by an automatic transition', () => {
  /** Orders sorted on arrival, then taken automatically into `picking` (at most 1 per customer). */
  const sorted: WorkflowDefinitionInput = {
    id: 'sorted',
    displayName: 'Sorted orders',
    initialStateId: 'open',
    states: {
      open: { transitions: [{ id: 'sort', targetStateId: 'sorting', conditions: [{ type: 'triggerName', name: 'Sort' }] }] },
      sorting: {
        transitions: [
          { id: 'cancel', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Cancel' }] },
          { id: 'toPicking', targetStateId: 'picking', automatic: true, conditions: [{ type: 'expression', expression: 'context.ready = true' }] },
        ],
      },
      picking: {
        capacity: perCustomer(1),
        transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }],
      },
      done: {},
    },
  } as WorkflowDefinitionInput;

  async function sortedSetUp(ids: string[]) {
    const test = testEngine({ inProcess: true });
    await test.engine.createWorkflow(sorted);
    for (const id of ids) await test.engine.createInstance({ workflowId: 'sorted', instanceId: id, context: { customer: '42', ready: true } });
    return test;
  }
  const sort = (instanceId: string) => trigger('Sort', { id: `sort-${instanceId}`, subjects: [instanceId] });

  it('does not take an automatic transition into a full state (traced as capacity), and takes it when room frees, re-offered through the outbox', async () => {
    const { engine } = await sortedSetUp(['a', 'b']);
    const first = await engine.applyTrigger('a', sort('a'));
    expect(first).toMatchObject({ outcome: 'transitioned', toStateId: 'picking' });
    expect(first.trace).toContainEqual({ path: 'states.picking.capacity', type: 'capacity', result: true, detail: 'admitted: customer:42 at 1/1 in picking' });
    expect(await engine.getInstance('a')).toMatchObject({ stateId: 'picking', capacityEntry: { stateId: 'picking', key: 'customer:42' } });

    const held = await engine.applyTrigger('b', sort('b'));
    expect(held).toMatchObject({ outcome: 'transitioned', toStateId: 'sorting' });
    expect(held.trace).toContainEqual({ path: 'states.picking.capacity', type: 'capacity', result: false, detail: 'full: customer:42 at 1/1 in picking' });
    expect((await engine.getInstance('b')).stateId).toBe('sorting');
    expect((await engine.flow!.view('sorted', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'a' }], queued: [{ instanceId: 'b' }] });
    // Why is it stuck: waiting for room, where, and how to see the key.
    const why = await engine.whyWaiting('b');
    expect(why.class).toBe('waitingForRoom');
    expect(why.reasons[0]).toEqual({
      class: 'waitingForRoom',
      waits: [{ stateId: 'picking', key: 'customer:42', position: 1, queuedOnKey: 1, members: 1, limit: 1, arrivedAt: expect.any(String), deadline: expect.any(String) }],
      view: { cli: 'signalbox flow sorted customer:42', http: { method: 'GET', path: '/api/flow/sorted/keys/customer%3A42' } },
    });

    // a leaves: its change re-offers b's wait, which takes the automatic transition now.
    await engine.applyTrigger('a', done('a'));
    expect(await engine.getInstance('b')).toMatchObject({ stateId: 'picking', capacityEntry: { stateId: 'picking', key: 'customer:42' } });
    expect((await engine.getHistory('b')).items.map((entry) => [entry.transitionId, entry.fromStateId, entry.toStateId])).toEqual([
      [null, null, 'open'],
      ['sort', 'open', 'sorting'],
      ['toPicking', 'sorting', 'picking'],
    ]);
    expect((await engine.flow!.view('sorted', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'b' }], queued: [] });
  });

  it('ends an automatic transition’s wait for room at its deadline by its own timer: capacityTimeout, the queue lets it go, the instance stays', async () => {
    const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex() };
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const engine = new Engine(ports, { clock, logger: recordingLogger(), newId: () => 'gen' });
    const timed = { ...sorted, states: { ...sorted.states, picking: { ...sorted.states.picking!, capacity: perCustomer(1, 'PT1H') } } } as WorkflowDefinitionInput;
    await engine.createWorkflow(timed);
    for (const id of ['a', 'b']) await engine.createInstance({ workflowId: 'sorted', instanceId: id, context: { customer: '42', ready: true } });
    await engine.applyTrigger('a', sort('a'));
    expect(await engine.applyTrigger('b', sort('b'))).toMatchObject({ outcome: 'transitioned', toStateId: 'sorting' });
    const stored = await engine.getInstance('b');
    // One wait per entry into the state it waits in, of this incarnation.
    const waitId = `b:room:${stored.incarnation}:sorting:1`;
    expect(stored.capacityWaits).toEqual([{ triggerId: waitId, stateId: 'picking', key: 'customer:42', deadline: '2026-01-01T01:00:00.000Z', whileIn: 'sorting' }]);
    expect((await engine.flow!.view('sorted', 'customer:42')).capacity[0]).toMatchObject({ queued: [{ instanceId: 'b' }] });

    await clock.advanceBy(3600_000);
    expect(await engine.getInstance('b')).toMatchObject({ stateId: 'sorting' });
    expect((await engine.getInstance('b')).capacityWaits).toBeUndefined();
    expect((await engine.flow!.view('sorted', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'a' }], queued: [] });
    expect((await engine.getOffers('b'))[0]).toMatchObject({ operationId: waitId, outcome: 'capacityTimeout' });
    expect((await engine.whyWaiting('b')).class).not.toBe('waitingForRoom');
    const due = [];
    for await (const row of ports.dueTimers.listDue(new Date('2100-01-01T00:00:00Z'))) due.push(row);
    expect(due).toEqual([]);
  });

  it('disarms an automatic transition’s wait for room when room frees before its deadline', async () => {
    const { engine } = await sortedSetUp(['a', 'b']);
    await engine.applyTrigger('a', sort('a'));
    await engine.applyTrigger('b', sort('b'));
    expect((await engine.getInstance('b')).capacityWaits).toHaveLength(1);
    await engine.applyTrigger('a', done('a'));
    expect(await engine.getInstance('b')).toMatchObject({ stateId: 'picking', capacityEntry: { stateId: 'picking', key: 'customer:42' } });
    expect((await engine.getInstance('b')).capacityWaits).toBeUndefined();
  });

  it('offers the room of an instance that only passed through the state to a trigger queued while it held it', async () => {
    const passing = passingOrdersWorkflow();
    const ports = createInMemoryPorts();
    // The moment x is counted in `picking` (before its change goes on through it to `done`), y's Pick arrives and finds the state full.
    const paused = flowPausingWhenCounted(ports.flow!, 'x');
    const engine = new Engine({ ...ports, flow: paused.flow }, { clock: new ManualClock('2026-01-01T00:00:00.000Z'), logger: recordingLogger(), newId: () => 'gen' });
    await engine.createWorkflow(passing);
    await engine.createInstance({ workflowId: 'passing', instanceId: 'x', context: { customer: '42', express: true } });
    await engine.createInstance({ workflowId: 'passing', instanceId: 'y', context: { customer: '42', express: false } });
    let queued: string | undefined;
    paused.whileCounted(async () => (queued = (await engine.applyTrigger('y', trigger('Pick', { id: 'pick-y', subjects: ['y'] }))).outcome));

    expect(await engine.applyTrigger('x', trigger('Go', { id: 'go-x', subjects: ['x'] }))).toMatchObject({ outcome: 'transitioned', toStateId: 'done' });
    expect(queued).toBe('capacityQueued');
    // x gave its place back, and y, queued behind it meanwhile, was offered the room and took it.
    expect(await engine.getInstance('y')).toMatchObject({ stateId: 'picking', capacityEntry: { stateId: 'picking', key: 'customer:42' } });
    expect((await engine.flow!.view('passing', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'y' }], queued: [] });
  });

  it('a waiting instance that moved on before room freed leaves the queue unapplied', async () => {
    const { engine } = await sortedSetUp(['a', 'b']);
    await engine.applyTrigger('a', sort('a'));
    await engine.applyTrigger('b', sort('b'));
    expect(await engine.applyTrigger('b', trigger('Cancel', { subjects: ['b'] }))).toMatchObject({ toStateId: 'done' });
    // Its wait (and the timer of its deadline) ended as it left the state it waited in.
    expect((await engine.getInstance('b')).capacityWaits).toBeUndefined();
    await engine.applyTrigger('a', done('a'));
    expect((await engine.getInstance('b')).stateId).toBe('done');
    expect((await engine.flow!.view('sorted', 'customer:42')).capacity[0]).toMatchObject({ members: [], queued: [] });
  });
});
