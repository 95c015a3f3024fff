/**
 * The flow-control routes on the local server over Azurite: one key's view, and the admin's run-time
 * override of its limit (audited, validated, refused for a workflow without a concurrency policy).
 */
import { startTestHost, type TestHost } from '../support/local-host';

const limited = {
  id: 'limited',
  displayName: 'Limited',
  initialStateId: 'open',
  flow: { concurrency: { key: "'customer:' & context.customer", limit: 2, maxWait: 'PT5S' } },
  states: {
    open: { transitions: [{ id: 'touch', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Touch' }], actions: [{ type: 'setContext', expressions: { touched: 'true' } }] }] },
  },
};

const picking = {
  id: 'picking',
  displayName: 'Picking',
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

let test: TestHost;
beforeAll(async () => {
  test = await startTestHost('flowapi');
  expect((await test.api.request('PUT', '/api/workflows/picking', { json: picking })).status).toBe(201);
  expect((await test.api.request('PUT', '/api/workflows/limited', { json: limited })).status).toBe(201);
  expect((await test.api.request('PUT', '/api/workflows/free', { json: { ...limited, id: 'free', flow: undefined } })).status).toBe(201);
});
afterAll(async () => {
  await test?.host.stop();
});

describe('GET /api/flow/{workflowId}/keys/{key}', () => {
  it('answers the key: the limit in force, nothing running or queued after a trigger was applied', async () => {
    await test.api.request('POST', '/api/instances', { json: { workflowId: 'limited', instanceId: 'c42-1', context: { customer: 42 } } });
    const applied = await test.api.request('POST', '/api/triggers', { json: { name: 'Touch', subjects: ['c42-1'] }, headers: { prefer: 'wait=10' } });
    expect(applied.body.instances[0].trace[0]).toMatchObject({ type: 'concurrency', detail: 'admitted: customer:42 at 1/2' });

    const view = await test.api.request('GET', `/api/flow/limited/keys/${encodeURIComponent('customer:42')}`);

    expect(view.status).toBe(200);
    expect(view.body).toEqual({ workflowId: 'limited', key: 'customer:42', limit: 2, definedLimit: 2, running: [], queued: [], nextRelease: null, audit: [], capacity: [] });
  });

  it('is 404 for a workflow that does not exist', async () => {
    expect((await test.api.request('GET', '/api/flow/nope/keys/k')).status).toBe(404);
  });
});

describe('PUT /api/flow/{workflowId}/keys/{key}/limit', () => {
  it('overrides the limit of one key and audits who, when, old and new; null removes it', async () => {
    const set = await test.api.request('PUT', '/api/flow/limited/keys/customer%3A7/limit', { json: { limit: 5 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ key: 'customer:7', limit: 5, definedLimit: 2, override: { limit: 5 } });
    expect(set.body.audit).toEqual([{ key: 'customer:7', by: expect.any(String), at: expect.any(String), old: 2, new: 5, tenantId: 'default' }]);
    // Another key keeps the definition's limit.
    expect((await test.api.request('GET', '/api/flow/limited/keys/customer%3A8')).body.limit).toBe(2);

    const removed = await test.api.request('PUT', '/api/flow/limited/keys/customer%3A7/limit', { json: { limit: null } });
    expect(removed.body.limit).toBe(2);
    expect(removed.body.audit.map((entry: { old: number; new: number | null }) => [entry.old, entry.new])).toEqual([
      [5, null],
      [2, 5],
    ]);
  });

  it('refuses a bad limit with a problem naming the field, and changes nothing', async () => {
    const refused = await test.api.request('PUT', '/api/flow/limited/keys/customer%3A9/limit', { json: { limit: 0 } });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body.errors.map((error: { path: string }) => error.path)).toEqual(['limit']);
    expect((await test.api.request('GET', '/api/flow/limited/keys/customer%3A9')).body).toMatchObject({ limit: 2, audit: [] });
  });

  it('refuses a workflow without a concurrency policy (400) and one that does not exist (404)', async () => {
    const refused = await test.api.request('PUT', '/api/flow/free/keys/k/limit', { json: { limit: 3 } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: 'workflowId', message: 'the workflow has no `flow.concurrency`' }]);
    expect((await test.api.request('PUT', '/api/flow/nope/keys/k/limit', { json: { limit: 3 } })).status).toBe(404);
  });
});

describe('capacity on a state, over HTTP', () => {
  it('queues a trigger into a full state (traced, shown with the key) and applies it when the instance there leaves', async () => {
    for (const instanceId of ['p-1', 'p-2']) {
      expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'picking', instanceId, context: { customer: 42 } } })).status).toBe(201);
    }
    const wait = { prefer: 'wait=30' };
    const first = await test.api.request('POST', '/api/triggers', { json: { name: 'Pick', subjects: ['p-1'] }, headers: wait });
    expect(first.body.instances[0]).toMatchObject({ outcome: 'transitioned', trace: [{ type: 'capacity', detail: 'admitted: customer:42 at 1/1 in picking' }, expect.anything()] });
    const second = await test.api.request('POST', '/api/triggers', { json: { name: 'Pick', subjects: ['p-2'], priority: 4 }, headers: wait });
    expect(second.body.instances[0]).toMatchObject({ outcome: 'capacityQueued', trace: [{ type: 'capacity', detail: 'queued: customer:42 at 1/1 in picking' }, expect.anything()] });

    const view = await test.api.request('GET', `/api/flow/picking/keys/${encodeURIComponent('customer:42')}`);
    expect(view.status).toBe(200);
    expect(view.body.capacity).toEqual([
      {
        stateId: 'picking',
        limit: 1,
        members: [{ instanceId: 'p-1', since: expect.any(String) }],
        queued: [{ instanceId: 'p-2', triggerId: expect.any(String), priority: 4, arrivedAt: expect.any(String), deadline: expect.any(String) }],
      },
    ]);
    expect((await test.api.request('GET', '/api/instances/p-2')).body.stateId).toBe('open');

    await test.api.request('POST', '/api/triggers', { json: { name: 'Done', subjects: ['p-1'] }, headers: wait });
    const deadline = Date.now() + 30_000;
    while ((await test.api.request('GET', '/api/instances/p-2')).body.stateId !== 'picking') {
      if (Date.now() > deadline) throw new Error('the queued trigger was never applied');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const after = await test.api.request('GET', `/api/flow/picking/keys/${encodeURIComponent('customer:42')}`);
    expect(after.body.capacity[0]).toMatchObject({ members: [{ instanceId: 'p-2' }], queued: [] });
  });
});
