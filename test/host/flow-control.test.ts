/**
 * Flow control over HTTP (local server, real loopback, Azurite): a trigger's `priority` (validated, kept on
 * its operation), a workflow's `flow.unique` key (a second non-final instance with the key refused
 * naming the first, or answered with it under `onConflict: existing`; the key freed when the first ends),
 * and `flow.debounce` through the storage-driven timer scheduler on the manual clock. A state's `capacity`
 * refuses a creation or recovery into it when full (409 naming the state and key), holds an automatic
 * transition into it until room frees, and ends a wait from its timer.
 */
import { ManualClock } from '../../src/testing';
import { startTestHost, type TestHost } from '../support/local-host';

const order = {
  id: 'flow-order',
  displayName: 'Order',
  initialStateId: 'open',
  flow: { unique: { key: 'customer:{{context.customerId}}' } },
  states: {
    open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] },
    closed: {},
  },
};

let test: TestHost;
let api: TestHost['api'];

beforeAll(async () => {
  test = await startTestHost('flowapi');
  api = test.api;
  expect((await api.request('PUT', `/api/workflows/${order.id}`, { json: order })).status).toBe(201);
  const existing = { ...order, id: 'flow-order-existing', flow: { unique: { key: 'context.customerId', onConflict: 'existing' } } };
  expect((await api.request('PUT', `/api/workflows/${existing.id}`, { json: existing })).status).toBe(201);
});

afterAll(async () => {
  await test?.host.stop();
});

describe('trigger priority', () => {
  it('is kept on the trigger of its operation, and absent means the default (3)', async () => {
    const sent = await api.request('POST', '/api/triggers', { json: { id: 'prio-high', name: 'Nothing', subjects: ['nobody'], priority: 5 } });
    expect(sent.status).toBe(202);
    const done = await api.waitForOperation('prio-high');
    expect(done.body).toMatchObject({ trigger: { priority: 5 }, priority: 5 });
    expect((await api.request('POST', '/api/triggers', { json: { id: 'prio-default', name: 'Nothing', subjects: ['nobody'] } })).status).toBe(202);
    expect((await api.waitForOperation('prio-default')).body).toMatchObject({ priority: 3 });
  });

  it('outside 1-5 is a 400 naming the field, and records nothing', async () => {
    for (const priority of [0, 6, 2.5, 'high']) {
      const refused = await api.request('POST', '/api/triggers', { json: { id: 'prio-bad', name: 'Nothing', subjects: ['nobody'], priority } });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'priority' })]);
    }
    expect((await api.request('GET', '/api/operations/prio-bad')).status).toBe(404);
  });
});

describe('flow.unique', () => {
  it('refuses a second instance with the key while the first is not final (409 naming it), and frees the key when it ends', async () => {
    expect((await api.request('POST', '/api/instances', { json: { workflowId: order.id, instanceId: 'u-1', context: { customerId: 'ann' } } })).status).toBe(201);
    const second = await api.request('POST', '/api/instances', { json: { workflowId: order.id, instanceId: 'u-2', context: { customerId: 'ann' } } });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ existingInstanceId: 'u-1' });
    expect(second.body.detail).toContain('u-1');
    expect((await api.request('GET', '/api/instances/u-2')).status).toBe(404);
    // Another key is free.
    expect((await api.request('POST', '/api/instances', { json: { workflowId: order.id, instanceId: 'u-3', context: { customerId: 'bob' } } })).status).toBe(201);

    expect((await api.request('POST', '/api/triggers', { json: { id: 'u-close', name: 'Close', subjects: ['u-1'] } })).status).toBe(202);
    await api.waitForOperation('u-close');
    expect((await api.request('GET', '/api/instances/u-1')).body.status).toBe('complete');
    expect((await api.request('POST', '/api/instances', { json: { workflowId: order.id, instanceId: 'u-2', context: { customerId: 'ann' } } })).status).toBe(201);
  });

  it('frees the key of a deleted instance', async () => {
    expect((await api.request('POST', '/api/instances', { json: { workflowId: order.id, instanceId: 'd-1', context: { customerId: 'cid' } } })).status).toBe(201);
    expect((await api.request('DELETE', '/api/instances/d-1?force=true')).status).toBe(204);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: order.id, instanceId: 'd-2', context: { customerId: 'cid' } } })).status).toBe(201);
  });

  it('answers the existing instance (200) under onConflict: existing', async () => {
    const first = await api.request('POST', '/api/instances', { json: { workflowId: 'flow-order-existing', instanceId: 'e-1', context: { customerId: 'ann' } } });
    expect(first.status).toBe(201);
    const again = await api.request('POST', '/api/instances', { json: { workflowId: 'flow-order-existing', instanceId: 'e-2', context: { customerId: 'ann' } } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: 'e-1', context: { customerId: 'ann' } });
    expect((await api.request('GET', '/api/instances/e-2')).status).toBe(404);
  });

  it('refuses a definition whose unique key is not a string template or expression (400 naming the field)', async () => {
    const refused = await api.request('PUT', '/api/workflows/flow-bad', { json: { ...order, id: 'flow-bad', flow: { unique: { key: 42 } } } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'flow.unique.key' })]));
  });
});

describe('flow.debounce on the local server', () => {
  let debounced: TestHost;
  const clock = new ManualClock('2026-11-26T10:00:00.000Z');

  beforeAll(async () => {
    // The scheduler reads the engine's (manual) clock; it looks at the due-timer rows often, so an advance is seen soon.
    debounced = await startTestHost('flowdeb', { engineOptions: { clock }, timers: { maxSleepInMs: 50, minIntervalInMs: 10 } });
    const profile = {
      id: 'profile',
      displayName: 'Profile',
      initialStateId: 'open',
      flow: { debounce: [{ trigger: 'Update', periodMs: 60_000 }] },
      states: {
        open: {
          transitions: [
            {
              id: 'update',
              targetStateId: 'open',
              conditions: [{ type: 'triggerName', name: 'Update' }],
              actions: [{ type: 'setContext', expressions: { last: 'trigger.parameters', applied: '($exists(context.applied) ? context.applied : 0) + 1' } }],
            },
          ],
        },
      },
    };
    expect((await debounced.api.request('PUT', '/api/workflows/profile', { json: profile })).status).toBe(201);
  });

  afterAll(async () => {
    await debounced?.host.stop();
  });

  it('holds a burst back (each operation says so) and applies its latest trigger once, when the clock passes the quiet period', async () => {
    const { api } = debounced;
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'profile', instanceId: 'p1' } })).status).toBe(201);
    for (const [index, name] of ['a', 'b', 'c'].entries()) {
      expect((await api.request('POST', '/api/triggers', { json: { id: `upd-${index}`, name: 'Update', subjects: ['p1'], parameters: { name } } })).status).toBe(202);
      const operation = (await api.waitForOperation(`upd-${index}`)).body;
      expect(operation.summary).toMatchObject({ debounced: 1 });
      expect(operation.instances[0]).toMatchObject({
        outcome: 'debounced',
        trace: [expect.objectContaining({ type: 'debounce', detail: expect.stringContaining(`held back: ${index + 1} "Update"`) })],
      });
    }
    expect((await api.request('GET', '/api/instances/p1')).body.context).toEqual({});
    await clock.advanceBy(60_000);
    let instance = (await api.request('GET', '/api/instances/p1')).body;
    for (let poll = 0; poll < 400 && instance.context.applied === undefined; poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      instance = (await api.request('GET', '/api/instances/p1')).body;
    }
    expect(instance.context).toEqual({ last: { name: 'c' }, applied: 1 });
    const history = (await api.request('GET', '/api/instances/p1/history')).body.items;
    expect(history.map((entry: { transitionId: string | null }) => entry.transitionId)).toEqual([null, 'update']);
  });
});

describe('capacity on a state entered by a creation or a recovery', () => {
  const direct = {
    id: 'flow-direct',
    displayName: 'Direct orders',
    initialStateId: 'picking',
    states: {
      picking: {
        capacity: { key: 'customer:{{context.customerId}}', limit: 1 },
        transitions: [{ id: 'break', targetStateId: 'broken', conditions: [{ type: 'triggerName', name: 'Break' }] }],
      },
      broken: {
        entryActions: [{ type: 'setContext', expressions: { failed: '$error("broken")' } }],
        transitions: [{ id: 'back', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Back' }] }],
      },
    },
  };
  const create = (instanceId: string) => api.request('POST', '/api/instances', { json: { workflowId: direct.id, instanceId, context: { customerId: '42' } } });

  beforeAll(async () => {
    expect((await api.request('PUT', `/api/workflows/${direct.id}`, { json: direct })).status).toBe(201);
  });

  it('refuses a creation into a full state with a 409 naming the state and key, creating nothing', async () => {
    expect((await create('full-1')).status).toBe(201);
    const refused = await create('full-2');
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body.detail).toBe('state `picking` is full for key `customer:42`: 1/1');
    expect((await api.request('GET', '/api/instances/full-2')).status).toBe(404);
    expect((await api.request('GET', '/api/flow/flow-direct/keys/customer%3A42')).body.capacity[0]).toMatchObject({ members: [{ instanceId: 'full-1' }], queued: [] });
  });

  it('refuses a recovery into a full state with a 409 naming the state and key, leaving the instance faulted', async () => {
    expect((await api.request('POST', '/api/triggers', { json: { id: 'full-1-break', name: 'Break', subjects: ['full-1'] } })).status).toBe(202);
    await api.waitForOperation('full-1-break');
    expect((await api.request('GET', '/api/instances/full-1')).body).toMatchObject({ status: 'faulted', stateId: 'broken' });
    // Its place was freed by the fault: another order takes it.
    expect((await create('full-3')).status).toBe(201);
    const refused = await api.request('POST', '/api/instances/full-1/recover', { json: { stateId: 'picking' } });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe('state `picking` is full for key `customer:42`: 1/1');
    expect((await api.request('GET', '/api/instances/full-1')).body).toMatchObject({ status: 'faulted', stateId: 'broken' });
  });
});

describe('capacity on a state entered by an automatic transition', () => {
  const sorted = {
    id: 'flow-sorted',
    displayName: 'Sorted orders',
    initialStateId: 'open',
    states: {
      open: { transitions: [{ id: 'sort', targetStateId: 'sorting', conditions: [{ type: 'triggerName', name: 'Sort' }] }] },
      sorting: { transitions: [{ id: 'toPicking', targetStateId: 'picking', automatic: true }] },
      picking: {
        capacity: { key: 'customer:{{context.customerId}}', limit: 1 },
        transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }],
      },
      done: {},
    },
  };
  const send = async (id: string, name: string, instanceId: string) => {
    expect((await api.request('POST', '/api/triggers', { json: { id, name, subjects: [instanceId] } })).status).toBe(202);
    return (await api.waitForOperation(id)).body;
  };

  beforeAll(async () => {
    expect((await api.request('PUT', `/api/workflows/${sorted.id}`, { json: sorted })).status).toBe(201);
  });

  it('holds an automatic transition into a full state (traced, why-stuck says so) and takes it once room frees', async () => {
    for (const id of ['auto-1', 'auto-2']) {
      expect((await api.request('POST', '/api/instances', { json: { workflowId: sorted.id, instanceId: id, context: { customerId: '42' } } })).status).toBe(201);
    }
    expect((await send('auto-1-sort', 'Sort', 'auto-1')).instances[0]).toMatchObject({ toStateId: 'picking' });
    const held = (await send('auto-2-sort', 'Sort', 'auto-2')).instances[0];
    expect(held).toMatchObject({ outcome: 'transitioned', toStateId: 'sorting' });
    expect(held.trace).toContainEqual({ path: 'states.picking.capacity', type: 'capacity', result: false, detail: 'full: customer:42 at 1/1 in picking' });
    const why = await api.request('GET', '/api/instances/auto-2/waiting');
    expect(why.body.class).toBe('waitingForRoom');
    expect(why.body.reasons[0]).toMatchObject({ class: 'waitingForRoom', waits: [{ stateId: 'picking', key: 'customer:42', position: 1, members: 1, limit: 1 }] });

    await send('auto-1-done', 'Done', 'auto-1');
    let state = (await api.request('GET', '/api/instances/auto-2')).body.stateId;
    for (let poll = 0; poll < 400 && state !== 'picking'; poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = (await api.request('GET', '/api/instances/auto-2')).body.stateId;
    }
    expect(state).toBe('picking');
    expect((await api.request('GET', '/api/flow/flow-sorted/keys/customer%3A42')).body.capacity[0]).toMatchObject({ members: [{ instanceId: 'auto-2' }], queued: [] });
  });
});

describe('capacity on the local server: a wait ends from its timer', () => {
  let host: TestHost;
  const clock = new ManualClock('2026-11-26T10:00:00.000Z');

  beforeAll(async () => {
    host = await startTestHost('flowcapwait', { engineOptions: { clock }, timers: { maxSleepInMs: 50, minIntervalInMs: 10 } });
    const picks = {
      id: 'picks',
      displayName: 'Picks',
      initialStateId: 'open',
      states: {
        open: { transitions: [{ id: 'pick', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Pick' }] }] },
        picking: {
          capacity: { key: 'customer:{{context.customer}}', limit: 1, timeout: 'PT1H' },
          transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }],
        },
        done: {},
      },
    };
    expect((await host.api.request('PUT', '/api/workflows/picks', { json: picks })).status).toBe(201);
  });

  afterAll(async () => {
    await host?.host.stop();
  });

  it('answers capacityTimeout at the deadline through the due-timer rows, with no other change to the state, and the queue lets it go', async () => {
    const { api } = host;
    for (const id of ['w1', 'w2']) {
      expect((await api.request('POST', '/api/instances', { json: { workflowId: 'picks', instanceId: id, context: { customer: '42' } } })).status).toBe(201);
      expect((await api.request('POST', '/api/triggers', { json: { id: `pick-${id}`, name: 'Pick', subjects: [id] } })).status).toBe(202);
      await api.waitForOperation(`pick-${id}`);
    }
    expect((await api.request('GET', '/api/flow/picks/keys/customer%3A42')).body.capacity[0].queued).toHaveLength(1);
    await clock.advanceBy(3600_000);
    let offers = (await api.request('GET', '/api/instances/w2/offers')).body.items;
    for (let poll = 0; poll < 400 && offers[0]?.outcome !== 'capacityTimeout'; poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      offers = (await api.request('GET', '/api/instances/w2/offers')).body.items;
    }
    expect(offers[0]).toMatchObject({ operationId: 'pick-w2', outcome: 'capacityTimeout' });
    expect((await api.request('GET', '/api/flow/picks/keys/customer%3A42')).body.capacity[0]).toMatchObject({ members: [{ instanceId: 'w1' }], queued: [] });
    expect((await api.request('GET', '/api/instances/w2')).body.stateId).toBe('open');
  });
});
