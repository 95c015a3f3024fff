/**
 * Seams of two mechanisms (issue 22, groups 3 and 4), crossed with each kind of follow-up work:
 * - incarnations: an instance id used again is a new instance. Every id derived from an instance (timer,
 *   raised trigger, child, event) includes its incarnation, and nothing of a deleted incarnation (a timer,
 *   a child's notification) is applied to the new one;
 * - held notifications: a child's notification to a parent that cannot take it (suspended, faulted) is
 *   kept on the parent and applied, in order, when it is resumed or recovered; cancelling or deleting a
 *   parent cascades to its children.
 * The engine's behaviour on in-memory ports; the re-creation on the local server over Azurite at the end.
 */
import { APPLIED_TRIGGER_MEMORY, Engine, decideTrigger, timerTriggerId, raisedTriggerId, validateDefinition, type DueTimer, type Trigger } from '../../src/engine';
import { derivedChildId } from '../../src/engine/steps';
import { eventId } from '../../src/engine/decide';
import { InMemoryDueTimerIndex, collectAll, createInMemoryPorts } from '../../src/testing';
import { FakeClock, RecordingDelivery, instanceIn, recordingLogger, testEffects, testEngine } from '../engine/support';
import { startTestHost, type TestHost } from '../support/local-host';

/** A state with a one-hour timer, an entry action raising a trigger to itself, and a subscription. */
const order = {
  id: 'order',
  displayName: 'Order',
  initialStateId: 'open',
  states: {
    open: {
      entryActions: [{ type: 'raiseTrigger', trigger: { name: 'Opened', subjects: ['{{instance.id}}'] } }],
      transitions: [
        { id: 'opened', targetStateId: 'counted', conditions: [{ type: 'triggerName', name: 'Opened' }], actions: [{ type: 'setContext', values: { opened: true } }] },
        { id: 'expire', targetStateId: 'expired', timer: { after: 'PT1H' } },
      ],
    },
    counted: { transitions: [{ id: 'expire', targetStateId: 'expired', timer: { after: 'PT1H' } }] },
    expired: {},
  },
};

/** A self-transition on `Tick`, so that an instance can apply more triggers than its own list remembers. */
const tally = {
  id: 'tally',
  displayName: 'Tally',
  initialStateId: 'on',
  states: { on: { transitions: [{ id: 'tick', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Tick' }] }] } },
};

const parcel = {
  id: 'parcel',
  displayName: 'Parcel',
  initialStateId: 'packing',
  states: {
    packing: { transitions: [{ id: 'ship', targetStateId: 'delivered', conditions: [{ type: 'triggerName', name: 'Shipped' }] }] },
    delivered: {},
  },
};

/** Starts a parcel with an explicit id and one with a derived id; counts the children that complete, in order. */
const shipment = {
  id: 'shipment',
  displayName: 'Shipment',
  initialStateId: 'new',
  states: {
    new: {
      transitions: [
        {
          id: 'split',
          targetStateId: 'waiting',
          conditions: [{ type: 'triggerName', name: 'Split' }],
          actions: [
            { type: 'startInstance', workflowId: 'parcel', instanceId: '{{instance.id}}-p1' },
            { type: 'startInstance', workflowId: 'parcel' },
          ],
        },
      ],
    },
    waiting: {
      transitions: [
        { id: 'boom', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'Boom' }], actions: [{ type: 'setContext', expressions: { x: '$error("boom")' } }] },
        {
          id: 'last',
          targetStateId: 'done',
          conditions: [
            { type: 'triggerName', name: 'ChildCompleted' },
            { type: 'expression', expression: '$count(context.done) = 1' },
          ],
          actions: [{ type: 'setContext', expressions: { done: '$append(context.done, trigger.parameters.childInstanceId)' } }],
        },
        {
          id: 'one',
          targetStateId: 'waiting',
          conditions: [{ type: 'triggerName', name: 'ChildCompleted' }],
          actions: [{ type: 'setContext', expressions: { done: '$append(context.done, trigger.parameters.childInstanceId)' } }],
        },
      ],
    },
    done: {},
  },
};

async function childrenOf(engine: ReturnType<typeof testEngine>['engine'], parentId: string) {
  return collectAll((page) => engine.listInstances({ parentId }, page));
}

describe('incarnations: an instance id used again is a new instance (engine)', () => {
  it("incarnations × timers: a deleted instance's timer does not fire into a new instance with its id", async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(order);
    await engine.createInstance({ workflowId: 'order', instanceId: 'order-1' });
    const [oldTimer] = delivery.timers as DueTimer[];
    await engine.deleteInstance('order-1', { force: true });
    await engine.createInstance({ workflowId: 'order', instanceId: 'order-1' });
    const newTimer = delivery.timers[1]!;

    expect(newTimer.timerId).not.toBe(oldTimer!.timerId);
    expect((await engine.fireTimer(oldTimer!)).outcome).toBe('notInterested');
    expect((await engine.getInstance('order-1')).stateId).toBe('open');
    expect((await engine.fireTimer(newTimer)).outcome).toBe('transitioned');
    expect((await engine.getInstance('order-1')).stateId).toBe('expired');
  });

  it('incarnations × raised triggers: a new instance raises triggers under ids of its own', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(order);
    await engine.createInstance({ workflowId: 'order', instanceId: 'order-1' });
    await engine.deleteInstance('order-1', { force: true });
    await engine.createInstance({ workflowId: 'order', instanceId: 'order-1' });

    const [first, second] = delivery.delivered;
    expect([first!.name, second!.name]).toEqual(['Opened', 'Opened']);
    expect(second!.id).not.toBe(first!.id);
    expect((await engine.applyTrigger('order-1', second!)).outcome).toBe('transitioned');
  });

  it('incarnations × events: event ids of a new instance never repeat those of the deleted one', async () => {
    const subscribers = { send: async () => ({ status: 200, body: undefined }) };
    const { engine } = testEngine({ inProcess: true, events: { http: subscribers, policy: { maxAttempts: 1, firstRetryDelayInMs: 1, maxRetryDelayInMs: 1 }, sourcePrefix: '/t' } });
    await engine.createWorkflow({ ...order, subscriptions: [{ id: 'audit', url: 'https://audit.example/hook' }] });
    await engine.createInstance({ workflowId: 'order', instanceId: 'order-1' });
    const before = (await collectAll((page) => engine.listEvents('order-1', page))).map((event) => event.id);
    await engine.eventDeliveriesIdle();
    await engine.deleteInstance('order-1', { force: true });
    await engine.createInstance({ workflowId: 'order', instanceId: 'order-1' });
    const after = (await collectAll((page) => engine.listEvents('order-1', page))).map((event) => event.id);
    await engine.eventDeliveriesIdle();

    expect(before).toHaveLength(2); // created, then transitioned by the raised trigger
    expect(after).toHaveLength(2);
    expect(after.filter((id) => before.includes(id))).toEqual([]);
    const incarnation = (await engine.getInstance('order-1')).incarnation!;
    expect(after[0]).toBe(`order-1:${incarnation}:0:created`);
  });

  it('incarnations × children: a re-created parent starts its children again and hears them, and never hears the old ones', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(parcel);
    await engine.createWorkflow(shipment);
    await engine.createInstance({ workflowId: 'shipment', instanceId: 's1' });
    await engine.applyTrigger('s1', { id: 'split-a', name: 'Split', subjects: ['s1'] });
    const oldChildren = (await childrenOf(engine, 's1')).map((child) => child.id).sort();
    expect(oldChildren).toHaveLength(2);
    // The old explicit-id child completes; its notification is still on its way when the parent is deleted.
    await engine.applyTrigger('s1-p1', { id: 'ship-a', name: 'Shipped', subjects: ['s1-p1'] });
    const staleNotice = delivery.delivered.find((t) => t.name === 'ChildCompleted')!;
    await engine.deleteInstance('s1', { force: true });
    expect(await childrenOf(engine, 's1')).toEqual([]); // deleting a parent deletes its children

    await engine.createInstance({ workflowId: 'shipment', instanceId: 's1' });
    expect((await engine.applyTrigger('s1', staleNotice)).outcome).toBe('notInterested');
    await engine.applyTrigger('s1', { id: 'split-b', name: 'Split', subjects: ['s1'] });
    const newChildren = (await childrenOf(engine, 's1')).map((child) => child.id).sort();
    expect(newChildren).toHaveLength(2);
    expect(newChildren).toContain('s1-p1');
    expect(newChildren.filter((id) => id !== 's1-p1' && oldChildren.includes(id))).toEqual([]);

    for (const child of newChildren) await engine.applyTrigger(child, { id: `ship-${child}`, name: 'Shipped', subjects: [child] });
    for (const notice of delivery.delivered.filter((t) => t.name === 'ChildCompleted' && t.id !== staleNotice.id)) await engine.applyTrigger('s1', notice);
    const parent = await engine.getInstance('s1');
    expect([parent.stateId, parent.status]).toEqual(['done', 'complete']);
  });

  it('incarnations × re-creation: a stored instance without an incarnation (before it existed) keeps the ids it had', async () => {
    const definition = validateDefinition(order);
    const legacy = instanceIn(definition, 'open', { id: 'old-1', interests: ['old-1'] });
    const decision = await decideTrigger(definition, legacy, { id: 'x1', name: 'Opened', subjects: ['old-1'] }, testEffects(), testEffects().registry);
    const timerRow = decision.change!.outbox.find((row) => row.kind === 'timer')!;
    expect(timerRow.id).toBe('timer:old-1:1:expire');
    expect(timerTriggerId('old-1', 1, 'expire')).toBe('timer:old-1:1:expire');
    expect(raisedTriggerId('old-1', 'c', 0)).toBe('raised:5:old-1:c:0');
    expect(eventId('old-1', 3, 'created')).toBe('old-1:3:created');
    expect(derivedChildId('old-1', 'c', 'l', 0)).toMatch(/^old-1\.child\.[0-9a-f]{16}$/);
    // The same derivations with an incarnation give other ids.
    expect(timerTriggerId('old-1', 1, 'expire', 'abc123')).not.toBe('timer:old-1:1:expire');
    expect(raisedTriggerId('old-1', 'c', 0, 'abc123')).not.toBe('raised:5:old-1:c:0');
    expect(derivedChildId('old-1', 'c', 'l', 0, 'abc123')).not.toBe(derivedChildId('old-1', 'c', 'l', 0));
  });

  it('incarnations × bulk actions: a bulk delete leaves nothing a new incarnation collides with', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(order);
    await engine.createInstance({ workflowId: 'order', instanceId: 'order-1' });
    const decided = await engine.migrationsAndBulkActions.applyBulk('order-1', { action: 'delete', force: true, filter: { workflowId: 'order' } });
    expect(decided.outcome).toBe('deleted');
    await engine.createInstance({ workflowId: 'order', instanceId: 'order-1' });
    expect(delivery.timers[1]!.timerId).not.toBe(delivery.timers[0]!.timerId);
    expect((await engine.fireTimer(delivery.timers[0]!)).outcome).toBe('notInterested');
  });

  it('incarnations × migrations: a migrated instance keeps its incarnation, so its timers stay its own', async () => {
    const { engine, delivery } = testEngine();
    const v1 = await engine.createWorkflow(order);
    const created = await engine.createInstance({ workflowId: 'order', instanceId: 'order-1' });
    await engine.addWorkflowVersion(order, { ifMatch: v1.etag });
    expect((await engine.migrationsAndBulkActions.migrate('order-1', { workflowId: 'order', fromVersion: 1, toVersion: 2, stateMap: {} })).outcome).toBe('migrated');
    const migrated = await engine.getInstance('order-1');
    expect(migrated.incarnation).toBe(created.incarnation);
    const last = delivery.timers.at(-1)!;
    expect(last.incarnation).toBe(created.incarnation);
  });
});

describe('held notifications: nothing addressed to an instance is lost while it cannot take it (engine)', () => {
  async function splitShipment() {
    const test = testEngine({ inProcess: true });
    await test.engine.createWorkflow(parcel);
    await test.engine.createWorkflow(shipment);
    await test.engine.createInstance({ workflowId: 'shipment', instanceId: 's1' });
    await test.engine.applyTrigger('s1', { id: 'split-1', name: 'Split', subjects: ['s1'] });
    const children = (await childrenOf(test.engine, 's1')).map((child) => child.id);
    // The explicit one first, so the order of completion is known.
    return { ...test, children: [children.find((id) => id === 's1-p1')!, children.find((id) => id !== 's1-p1')!] };
  }

  it('held notifications × children: a suspended parent hears its children when resumed, in the order they ended', async () => {
    const { engine, children } = await splitShipment();
    await engine.suspend('s1');
    await engine.applyTrigger(children[1]!, { id: 'ship-b', name: 'Shipped', subjects: [children[1]!] });
    await engine.applyTrigger(children[0]!, { id: 'ship-a', name: 'Shipped', subjects: [children[0]!] });
    expect((await engine.getInstance('s1')).status).toBe('suspended');

    await engine.resume('s1');
    const parent = await engine.getInstance('s1');
    expect([parent.stateId, parent.status]).toEqual(['done', 'complete']);
    expect(parent.context.done).toEqual([children[1], children[0]]);
  });

  it('held notifications × children: a faulted parent hears its children when recovered', async () => {
    const { engine, children } = await splitShipment();
    expect((await engine.applyTrigger('s1', { id: 'boom-1', name: 'Boom', subjects: ['s1'] })).outcome).toBe('faulted');
    for (const child of children) await engine.applyTrigger(child, { id: `ship-${child}`, name: 'Shipped', subjects: [child] });
    expect((await engine.getInstance('s1')).status).toBe('faulted');

    await engine.recover('s1', 'waiting');
    const parent = await engine.getInstance('s1');
    expect([parent.stateId, parent.status]).toEqual(['done', 'complete']);
    expect(parent.context.done).toEqual(children);
  });

  it('held notifications × bulk actions: a bulk resume delivers what was held', async () => {
    const { engine, children } = await splitShipment();
    await engine.suspend('s1');
    for (const child of children) await engine.applyTrigger(child, { id: `ship-${child}`, name: 'Shipped', subjects: [child] });
    expect((await engine.migrationsAndBulkActions.applyBulk('s1', { action: 'resume', filter: { workflowId: 'shipment' } })).outcome).toBe('resumed');
    expect((await engine.getInstance('s1')).status).toBe('complete');
  });

  it('held notifications × raised triggers: a held notification delivered twice is held once and applied once', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(parcel);
    await engine.createWorkflow(shipment);
    await engine.createInstance({ workflowId: 'shipment', instanceId: 's1' });
    await engine.applyTrigger('s1', { id: 'split-1', name: 'Split', subjects: ['s1'] });
    expect(delivery.delivered).toEqual([]);
    await engine.suspend('s1');
    await engine.applyTrigger('s1-p1', { id: 'ship-a', name: 'Shipped', subjects: ['s1-p1'] });
    const notice = delivery.delivered.find((t) => t.name === 'ChildCompleted')!;
    expect((await engine.applyTrigger('s1', notice)).outcome).toBe('notActive');
    expect((await engine.applyTrigger('s1', notice)).outcome).toBe('notActive');
    await engine.resume('s1');
    const released = delivery.delivered.filter((t: Trigger) => t.name === 'ChildCompleted' && t.id !== notice.id);
    expect(released).toHaveLength(1);
    expect((await engine.applyTrigger('s1', released[0]!)).outcome).toBe('transitioned');
    expect((await engine.applyTrigger('s1', released[0]!)).outcome).not.toBe('transitioned');
    expect((await engine.applyTrigger('s1', notice)).outcome).toBe('duplicate');
    expect((await engine.getInstance('s1')).context.done).toBe('s1-p1'); // $append of nothing and one id is the id
  });

  it('held notifications × cancellation: cancelling a parent cancels its running children', async () => {
    const { engine, children } = await splitShipment();
    await engine.applyTrigger(children[0]!, { id: 'ship-a', name: 'Shipped', subjects: [children[0]!] });
    await engine.cancel('s1');
    const statuses = Object.fromEntries((await childrenOf(engine, 's1')).map((child) => [child.id, child.status]));
    expect(statuses).toEqual({ [children[0]!]: 'complete', [children[1]!]: 'cancelled' });
  });

  it('held notifications × deletion: deleting a parent with running children needs force, and deletes them', async () => {
    const { engine, children } = await splitShipment();
    await engine.suspend('s1');
    await expect(engine.deleteInstance('s1')).rejects.toThrow(/running children/);
    expect(await childrenOf(engine, 's1')).toHaveLength(2);
    await engine.deleteInstance('s1', { force: true });
    for (const child of children) await expect(engine.getInstance(child)).rejects.toThrow(/does not exist/);
  });
});

describe('incarnations × deletion: a deleted incarnation leaves nothing a re-created one finds (engine)', () => {
  it('incarnations × deletion: applied-trigger rows, due-timer rows, recent offers and held notifications of the deleted incarnation are gone, and its notifications are not interested', async () => {
    const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex() };
    const delivery = new RecordingDelivery();
    const engine = new Engine(ports, { clock: new FakeClock(), logger: recordingLogger() }).withDelivery(delivery.handlers);
    const dueRows = async () => {
      const rows: DueTimer[] = [];
      for await (const row of ports.dueTimers.listDue(new Date('2100-01-01T00:00:00Z'))) rows.push(row);
      return rows;
    };
    await engine.createWorkflow(parcel);
    await engine.createWorkflow(order);
    await engine.createWorkflow(shipment);
    await engine.createWorkflow(tally);
    // Everything an incarnation leaves beside itself: a timer row (order), applied-trigger rows (tally: its
    // list lets its first trigger go after APPLIED_TRIGGER_MEMORY more), an offer
    // that changed nothing, and (shipment) a child's notification held while suspended.
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1' });
    const oldOrder = await engine.getInstance('o1');
    expect((await engine.applyTrigger('o1', { id: 'nothing-1', name: 'Nothing', subjects: ['o1'] })).outcome).toBe('noTransition');
    await engine.createInstance({ workflowId: 'shipment', instanceId: 's1' });
    await engine.applyTrigger('s1', { id: 'split-1', name: 'Split', subjects: ['s1'] });
    await engine.suspend('s1');
    await engine.applyTrigger('s1-p1', { id: 'ship-a', name: 'Shipped', subjects: ['s1-p1'] });
    const notice = delivery.delivered.find((t) => t.name === 'ChildCompleted')!;
    expect((await engine.applyTrigger('s1', notice)).outcome).toBe('notActive');
    expect((await engine.getInstance('s1')).heldTriggers).toHaveLength(1);
    await engine.createInstance({ workflowId: 'tally', instanceId: 't1' });
    for (let index = 0; index <= APPLIED_TRIGGER_MEMORY; index++) await engine.applyTrigger('t1', { id: `tick-${index}`, name: 'Tick', subjects: ['t1'] });
    expect(await ports.instances.getApplied('t1', 'tick-0')).toBeDefined();
    expect((await engine.getOffers('o1')).map((offer) => offer.operationId)).toEqual(['nothing-1']);
    expect((await dueRows()).filter((row) => row.instanceId === 'o1')).toHaveLength(1);

    await engine.deleteInstance('o1', { force: true });
    await engine.deleteInstance('s1', { force: true });
    await engine.deleteInstance('t1', { force: true });
    expect(await dueRows()).toEqual([]);
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1' });
    await engine.createInstance({ workflowId: 'shipment', instanceId: 's1' });

    const order1 = await engine.getInstance('o1');
    expect(order1.incarnation).not.toBe(oldOrder.incarnation);
    expect(await engine.getOffers('o1')).toEqual([]);
    expect((await dueRows()).map((row) => [row.instanceId, row.incarnation])).toEqual([['o1', order1.incarnation]]);
    const shipment1 = await engine.getInstance('s1');
    expect(shipment1.heldTriggers).toBeUndefined();
    await engine.createInstance({ workflowId: 'tally', instanceId: 't1' });
    expect(await ports.instances.getApplied('t1', 'tick-0')).toBeUndefined();
    expect((await engine.applyTrigger('t1', { id: 'tick-0', name: 'Tick', subjects: ['t1'] })).outcome).toBe('transitioned');
    // The old incarnation's notification, delivered late, is for another incarnation.
    expect((await engine.applyTrigger('s1', notice)).outcome).toBe('notInterested');
    expect((await engine.applyTrigger('s1', { id: 'split-1', name: 'Split', subjects: ['s1'] })).outcome).toBe('transitioned');
  });
});

describe('incarnations on the local server (Azurite)', () => {
  let test: TestHost;
  beforeAll(async () => {
    test = await startTestHost('incarnations');
  });
  afterAll(async () => {
    await test?.host.stop();
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, deadlineInMs = 60_000): Promise<T> {
    const until = Date.now() + deadlineInMs;
    let value = await read();
    while (!done(value) && Date.now() < until) {
      await sleep(100);
      value = await read();
    }
    return value;
  }

  it('incarnations × re-creation: after delete and re-create, raised triggers, timers and children work as for a fresh instance', async () => {
    const { api } = test;
    const quick = { ...order, states: { ...order.states, counted: { transitions: [{ id: 'expire', targetStateId: 'expired', timer: { after: 'PT1S' } }] } } };
    expect((await api.request('PUT', '/api/workflows/order', { json: quick })).status).toBe(201);
    expect((await api.request('PUT', '/api/workflows/parcel', { json: parcel })).status).toBe(201);
    expect((await api.request('PUT', '/api/workflows/shipment', { json: shipment })).status).toBe(201);

    for (const round of [1, 2]) {
      expect((await api.request('POST', '/api/instances', { json: { workflowId: 'order', instanceId: 'order-1' } })).status).toBe(201);
      const finished = await waitFor(
        () => api.request('GET', '/api/instances/order-1'),
        (answer) => (answer.body as { stateId?: string }).stateId === 'expired',
      );
      expect([round, (finished.body as { stateId: string }).stateId]).toEqual([round, 'expired']);
      expect((await api.request('DELETE', '/api/instances/order-1')).status).toBe(204);

      expect((await api.request('POST', '/api/instances', { json: { workflowId: 'shipment', instanceId: 's1' } })).status).toBe(201);
      expect((await api.request('POST', '/api/instances/s1/triggers', { json: { name: 'Split' }, headers: { prefer: 'wait=30' } })).status).toBe(200);
      const kids = await waitFor(
        () => api.request('GET', '/api/instances?parentId=s1'),
        (answer) => (answer.body as { items: unknown[] }).items.length === 2,
      );
      for (const child of (kids.body as { items: Array<{ id: string }> }).items) {
        expect((await api.request('POST', `/api/instances/${child.id}/triggers`, { json: { name: 'Shipped' }, headers: { prefer: 'wait=30' } })).status).toBe(200);
      }
      const parent = await waitFor(
        () => api.request('GET', '/api/instances/s1'),
        (answer) => (answer.body as { status?: string }).status === 'complete',
      );
      expect([round, (parent.body as { status: string }).status]).toEqual([round, 'complete']);
      expect((await api.request('DELETE', '/api/instances/s1')).status).toBe(204);
    }
  }, 180_000);
});
