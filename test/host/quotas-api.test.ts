/**
 * The quotas through a real loopback server on Azurite: a trigger over the tenant's rate answers 429
 * problem+json with Retry-After and records nothing; an instance over the tenant's instances alive answers
 * 409 and creates nothing, and finishing one frees its place. Dry runs record nothing and take no token.
 */
import { createRequestCounter } from '../../src/storage/request-counter';
import { startTestHost, type TestHost } from '../support/local-host';

const workflow = {
  id: 'quota-flow',
  displayName: 'Quota flow',
  initialStateId: 'open',
  states: { open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] }, closed: { transitions: [] } },
};

let test: TestHost;
const counter = createRequestCounter();

beforeAll(async () => {
  // A burst of 3 and one more token per 100 s: the fourth trigger of the test is over the rate.
  test = await startTestHost('quota', { requestCounter: counter, env: { SIGNALBOX_QUOTA_TRIGGER_BURST: '3', SIGNALBOX_QUOTA_TRIGGERS_PER_SECOND: '0.01', SIGNALBOX_QUOTA_INSTANCES_ALIVE: '2' } });
  expect((await test.api.request('PUT', `/api/workflows/${workflow.id}`, { json: workflow })).status).toBe(201);
});

afterAll(async () => {
  await test?.host.stop();
});

describe('quotas on the local server', () => {
  it('refuses an instance beyond the instances alive with 409, creating nothing, until one finishes', async () => {
    const { api } = test;
    for (const instanceId of ['q-1', 'q-2']) expect((await api.request('POST', '/api/instances', { json: { workflowId: workflow.id, instanceId } })).status).toBe(201);
    const refused = await api.request('POST', '/api/instances', { json: { workflowId: workflow.id, instanceId: 'q-3' } });
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(refused.body).toMatchObject({ title: 'Quota exceeded', detail: expect.stringMatching(/Tenant "default" has 2 instances alive, its quota; nothing was created/) });
    expect((await api.request('GET', '/api/instances/q-3')).status).toBe(404);

    // Cancelling one frees its place once the count is read again (at most a second later): poll for it.
    expect((await api.request('POST', '/api/instances/q-1/cancel')).status).toBe(200);
    const deadline = Date.now() + 30_000;
    let created = refused;
    while (created.status === 409 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      created = await api.request('POST', '/api/instances', { json: { workflowId: workflow.id, instanceId: 'q-3' } });
    }
    expect(created.status).toBe(201);
  });

  it('refuses a trigger over the rate with 429 and Retry-After, recording nothing; dry runs take no token', async () => {
    const { api } = test;
    for (let dryRun = 0; dryRun < 5; dryRun += 1) {
      expect((await api.request('POST', '/api/triggers?dryRun=true', { json: { id: `dry-${dryRun}`, name: 'Close', subjects: ['q-2'] } })).status).toBe(200);
    }
    expect((await api.request('POST', '/api/triggers', { json: { id: 't-1', name: 'Nothing', subjects: ['q-2'] } })).status).toBe(202);
    expect((await api.request('POST', '/api/instances/q-2/triggers', { json: { id: 't-2', name: 'Nothing' } })).status).toBe(202);
    expect((await api.request('POST', '/api/triggers', { json: { id: 't-3', name: 'Nothing', subjects: ['q-2'] } })).status).toBe(202);

    for (const id of ['t-1', 't-2', 't-3']) await api.waitForOperation(id); // their writes done before counting
    for (const [path, body] of [
      ['/api/triggers', { id: 't-4', name: 'Close', subjects: ['q-2'] }],
      ['/api/instances/q-2/triggers', { id: 't-4', name: 'Close' }],
    ] as const) {
      counter.reset();
      const refused = await api.request('POST', path, { json: body });
      // Refused from memory: a flood over the rate costs storage nothing (the instance route's 404 check comes after).
      expect(counter.requests()).toEqual([]);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(refused.body).toMatchObject({ status: 429, title: 'Too many requests', detail: expect.stringMatching(/Tenant "default" sends more than 0.01 triggers per second \(burst 3\)/) });
    }
    // Nothing recorded: no operation, and the instance did not move.
    expect((await api.request('GET', '/api/operations/t-4')).status).toBe(404);
    expect((await api.request('GET', '/api/instances/q-2')).body).toMatchObject({ stateId: 'open' });
  });
});
