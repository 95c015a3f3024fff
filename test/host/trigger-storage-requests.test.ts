/**
 * The storage requests of one trigger to one instance (docs/performance.md), counted against the local
 * server on Azurite over loopback HTTP: each request in the table there serves a guarantee, and no
 * request beyond them is made. The operation stays listed (GET /api/operations) with its final status.
 */
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { prefixedStorageNames, type StorageNames } from '../../src/storage/names';
import { createRequestCounter } from '../../src/storage/request-counter';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from './http-client';

const counterWorkflow = {
  id: 'counter',
  displayName: 'Counter',
  initialStateId: 'counting',
  states: {
    counting: {
      transitions: [
        { id: 'increment', targetStateId: 'counting', conditions: [{ type: 'triggerName', name: 'Increment' }], actions: [{ type: 'setContext', expressions: { count: 'context.count + 1' } }] },
      ],
    },
  },
};

let host: LocalHost;
let api: ReturnType<typeof httpClient>;
let names: StorageNames;
const counter = createRequestCounter();

beforeAll(async () => {
  names = prefixedStorageNames(uniquePrefix('req'));
  host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' },
    port: 0,
    storageNames: names,
    logger: silentLogger,
    requestCounter: counter,
    // The runner's clock stands still: no progress within a batch (written at most once a second of it,
    // so a loaded machine would write some), so that the count is the same however slow the run.
    runner: { now: () => new Date(0) },
  });
  api = httpClient(host.url);
  expect((await api.request('PUT', '/api/workflows/counter', { json: counterWorkflow })).status).toBe(201);
});

afterAll(async () => {
  await host?.stop();
});

/** Polls until the counted requests stop changing and every lease acquired is released (the releases run after the answer). */
async function settledRequests(): Promise<readonly string[]> {
  const deadline = Date.now() + 30_000;
  const count = (requests: readonly string[], kind: string) => requests.filter((request) => request.startsWith(kind)).length;
  let last = counter.requests();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = counter.requests();
    const released = count(now, 'blob lease release');
    if ((now.length === last.length && released > 0 && released >= count(now, 'blob lease acquire')) || Date.now() > deadline) return now;
    last = now;
  }
}

describe('storage requests of one trigger to one instance (Prefer: wait)', () => {
  it('are those of docs/performance.md: lookup, lease, read, save, release, and the operation recorded once, finished, with its listing and its result', async () => {
    await api.request('POST', '/api/instances', { json: { workflowId: 'counter', instanceId: 'r-1', context: { count: 0 } } });
    // A first trigger warms what one process does once per instance.
    expect((await api.request('POST', '/api/triggers', { json: { id: 'warm-1', name: 'Increment', subjects: ['r-1'] }, headers: { prefer: 'wait=10' } })).status).toBe(200);
    await settledRequests();
    counter.reset();
    // No id: the server names it, so it cannot be a repeat, and it finishes within its wait before it is recorded.
    const answer = await api.request('POST', '/api/triggers', { json: { name: 'Increment', subjects: ['r-1'] }, headers: { prefer: 'wait=10' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
    expect(await settledRequests()).toEqual([
      `table GET ${names.interestsTable}`,
      'blob lease acquire ' + names.leaseContainer,
      `table GET ${names.instancesTable}`,
      'table POST $batch $batch',
      // Recorded once, finished (decision 0018); the result rides in it (decision 0017): no row of its own.
      'table POST $batch $batch',
      // Kept for the carry-over time for a next trigger to the instance, then released (decision 0024).
      'blob lease release ' + names.leaseContainer,
    ]);
    expect(answer.body.instances).toEqual([expect.objectContaining({ instanceId: 'r-1', outcome: 'transitioned', trace: expect.any(Array) })]);
    // Listed, and read back, as any operation.
    expect((await api.request('GET', `/api/operations/${answer.body.id}`)).body).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
    expect((await api.request('GET', '/api/operations')).body.items.map((item: { id: string }) => item.id)).toContain(answer.body.id);
  });

  it('with an id the client named: one point read of the record first (a repeat answers with the first operation), then as without', async () => {
    await api.request('POST', '/api/instances', { json: { workflowId: 'counter', instanceId: 'r-5', context: { count: 0 } } });
    expect((await api.request('POST', '/api/triggers', { json: { id: 'warm-5', name: 'Increment', subjects: ['r-5'] }, headers: { prefer: 'wait=10' } })).status).toBe(200);
    await settledRequests();
    counter.reset();
    const answer = await api.request('POST', '/api/triggers', { json: { id: 'count-5', name: 'Increment', subjects: ['r-5'] }, headers: { prefer: 'wait=10' } });
    expect(answer.body).toMatchObject({ id: 'count-5', status: 'succeeded', summary: { transitioned: 1 } });
    expect(await settledRequests()).toEqual([
      `table GET ${names.interestsTable}`,
      `table GET ${names.operationsTable}`,
      'blob lease acquire ' + names.leaseContainer,
      `table GET ${names.instancesTable}`,
      'table POST $batch $batch',
      'table POST $batch $batch',
      'blob lease release ' + names.leaseContainer,
    ]);
  });

  it('to one instance by its route: the instance read that answers 404, then as by subject without the interest lookup (the instance is the only candidate)', async () => {
    await api.request('POST', '/api/instances', { json: { workflowId: 'counter', instanceId: 'r-3', context: { count: 0 } } });
    expect((await api.request('POST', '/api/instances/r-3/triggers', { json: { id: 'warm-3', name: 'Increment' }, headers: { prefer: 'wait=10' } })).status).toBe(200);
    await settledRequests();
    counter.reset();
    const answer = await api.request('POST', '/api/instances/r-3/triggers', { json: { id: 'count-3', name: 'Increment' }, headers: { prefer: 'wait=10' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: 'count-3', status: 'succeeded', candidates: 1, summary: { transitioned: 1 }, instances: [{ instanceId: 'r-3', outcome: 'transitioned' }] });
    expect(await settledRequests()).toEqual([
      `table GET ${names.instancesTable}`,
      // The id was the client's: is it a repeat?
      `table GET ${names.operationsTable}`,
      'blob lease acquire ' + names.leaseContainer,
      `table GET ${names.instancesTable}`,
      'table POST $batch $batch',
      'table POST $batch $batch',
      'blob lease release ' + names.leaseContainer,
    ]);
  });

  it('to ten instances by one subject: one lookup, the operation recorded, marked running and finished, and acquire, read, save, release per instance', async () => {
    const subjects = ['ten'];
    const tens = { ...counterWorkflow, id: 'tens', states: { counting: { ...counterWorkflow.states.counting, interests: subjects } } };
    expect((await api.request('PUT', '/api/workflows/tens', { json: tens })).status).toBe(201);
    for (let index = 0; index < 10; index += 1) await api.request('POST', '/api/instances', { json: { workflowId: 'tens', instanceId: `t-${index}`, context: { count: 0 } } });
    expect((await api.request('POST', '/api/triggers', { json: { id: 'warm-10', name: 'Increment', subjects }, headers: { prefer: 'wait=10' } })).status).toBe(200);
    await settledRequests();
    counter.reset();
    const answer = await api.request('POST', '/api/triggers', { json: { id: 'count-10', name: 'Increment', subjects }, headers: { prefer: 'wait=10' } });
    expect(answer.body).toMatchObject({ status: 'succeeded', candidates: 10, summary: { transitioned: 10 } });
    expect(answer.body.instances).toHaveLength(10);
    const requests = await settledRequests();
    const count = (request: string) => requests.filter((each) => each === request).length;
    expect(requests).toHaveLength(44);
    expect(count(`table GET ${names.interestsTable}`)).toBe(1);
    expect(count(`table GET ${names.instancesTable}`)).toBe(10);
    expect(count('blob lease acquire ' + names.leaseContainer)).toBe(10);
    expect(count('blob lease release ' + names.leaseContainer)).toBe(10);
    // The operation created, marked running, finished (with its results); each instance's save.
    expect(count('table POST $batch $batch') + count(`table PUT ${names.operationsTable}`) + count(`table MERGE ${names.operationsTable}`)).toBe(13);
  });

  it("with a concurrency policy adds exactly a read and a write of the key's slot row to take the slot, and another pair to give it back", async () => {
    expect((await api.request('PUT', '/api/workflows/limited', { json: { ...counterWorkflow, id: 'limited', flow: { concurrency: { key: "'all'", limit: 4 } } } })).status).toBe(201);
    await api.request('POST', '/api/instances', { json: { workflowId: 'limited', instanceId: 'flow-1', context: { count: 0 } } });
    expect((await api.request('POST', '/api/triggers', { json: { id: 'flow-warm-1', name: 'Increment', subjects: ['flow-1'] }, headers: { prefer: 'wait=10' } })).status).toBe(200);
    await settledRequests();
    counter.reset();
    const answer = await api.request('POST', '/api/triggers', { json: { id: 'flow-count-1', name: 'Increment', subjects: ['flow-1'] }, headers: { prefer: 'wait=10' } });
    expect(answer.body).toMatchObject({ id: 'flow-count-1', status: 'succeeded', summary: { transitioned: 1 } });
    expect(answer.body.instances[0].trace[0]).toEqual({ path: 'flow.concurrency', type: 'concurrency', result: true, detail: 'admitted: all at 1/4' });
    const requests = await settledRequests();
    expect(requests.filter((request) => request.includes(names.flowTable))).toEqual([
      `table GET ${names.flowTable}`,
      `table PUT ${names.flowTable}`,
      `table GET ${names.flowTable}`,
      `table PUT ${names.flowTable}`,
    ]);
    // Everything else is what the same trigger costs without a policy.
    await api.request('POST', '/api/instances', { json: { workflowId: 'counter', instanceId: 'flow-0', context: { count: 0 } } });
    expect((await api.request('POST', '/api/triggers', { json: { id: 'flow-warm-0', name: 'Increment', subjects: ['flow-0'] }, headers: { prefer: 'wait=10' } })).status).toBe(200);
    await settledRequests();
    counter.reset();
    expect((await api.request('POST', '/api/triggers', { json: { id: 'flow-count-0', name: 'Increment', subjects: ['flow-0'] }, headers: { prefer: 'wait=10' } })).status).toBe(200);
    const withoutPolicy = await settledRequests();
    expect(requests.filter((request) => !request.includes(names.flowTable))).toEqual(withoutPolicy);
  });

  it('keeps the operation listed newest first with its final status', async () => {
    await api.request('POST', '/api/instances', { json: { workflowId: 'counter', instanceId: 'r-2', context: { count: 0 } } });
    expect((await api.request('POST', '/api/triggers', { json: { id: 'count-2', name: 'Increment', subjects: ['r-2'] }, headers: { prefer: 'wait=10' } })).status).toBe(200);
    const listed = await api.request('GET', '/api/operations?status=succeeded');
    expect(listed.status).toBe(200);
    expect(listed.body.items[0]).toMatchObject({ id: 'count-2', status: 'succeeded' });
    const running = await api.request('GET', '/api/operations?status=running');
    expect(running.body.items.map((item: { id: string }) => item.id)).not.toContain('count-2');
  });
});
