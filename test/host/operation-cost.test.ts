/**
 * Decision 0021: every operation's record carries what it cost, counted by a pipeline policy per storage
 * client and attributed to the operation through its async context. Checked against the local server on
 * Azurite over loopback HTTP: an independent counter on the same clients (src/storage/request-counter.ts,
 * its own policy) sees every request the process sends, and the record must name exactly those of the
 * operation's run, kind by kind; then the workflow's sum over two operations is theirs added.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { prefixedStorageNames } from '../../src/storage/names';
import { createRequestCounter } from '../../src/storage/request-counter';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from './http-client';

const counterWorkflow = {
  id: 'cost-counter',
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
const counter = createRequestCounter();
/** An external service on loopback: what it received, and the body it answers. */
let external: Server;
const externalAnswer = JSON.stringify({ contextValuesToSetOrAdd: { checked: true } });
let bytesReceivedByExternal = 0;

beforeAll(async () => {
  external = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytesReceivedByExternal += chunk.length));
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(externalAnswer));
  });
  await new Promise<void>((resolve) => external.listen(0, '127.0.0.1', resolve));
  host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' },
    port: 0,
    storageNames: prefixedStorageNames(uniquePrefix('cost')),
    logger: silentLogger,
    requestCounter: counter,
    // The runner's clock stands still: no progress writes within a batch, whatever the machine's load.
    runner: { now: () => new Date(0) },
  });
  api = httpClient(host.url);
  expect((await api.request('PUT', `/api/workflows/${counterWorkflow.id}`, { json: counterWorkflow })).status).toBe(201);
});

afterAll(async () => {
  await host?.stop();
  await new Promise((resolve) => external?.close(resolve));
});

/** Waits until the counted requests stop changing and every lease acquired is released (releases run after the answer). */
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

/**
 * The independent count in the record's terms: a table GET naming an entity by its keys is a point read,
 * any other a query (the counter lists the table, so the test tells them apart from the URL it saw).
 */
function independentCounts(requests: readonly string[], pointReads: number) {
  const of = (prefix: string) => requests.filter((request) => request.startsWith(prefix)).length;
  const tableGets = of('table GET');
  return {
    tableRead: pointReads,
    tableQuery: tableGets - pointReads,
    tableWrite: requests.filter((request) => request.startsWith('table ') && !request.startsWith('table GET')).length,
    blobLease: of('blob lease'),
    blobRead: of('blob GET') + of('blob HEAD'),
    blobWrite: requests.filter((request) => request.startsWith('blob ') && !request.startsWith('blob lease') && !request.startsWith('blob GET') && !request.startsWith('blob HEAD')).length,
  };
}

/** Sends a trigger and answers the operation's record once everything it sent is counted. */
async function triggerAndSettle(subject: string): Promise<{ operation: any; requests: readonly string[] }> {
  counter.reset();
  const answer = await api.request('POST', '/api/triggers', { json: { name: 'Increment', subjects: [subject] }, headers: { prefer: 'wait=10' } });
  expect(answer.status).toBe(200);
  // The lease's release is sent once its carry-over time is up, after the operation was recorded
  // (decision 0024): it is billed to no operation, and left out here.
  const requests = (await settledRequests()).filter((request) => !request.startsWith('blob lease release'));
  const operation = (await api.request('GET', `/api/operations/${answer.body.id}`)).body;
  return { operation, requests };
}

describe('the cost of an operation (decision 0021)', () => {
  it('records every request its run sent, by kind, and the workflow sums two operations', async () => {
    for (const id of ['cost-1', 'cost-2']) {
      expect((await api.request('POST', '/api/instances', { json: { workflowId: counterWorkflow.id, instanceId: id, context: { count: 0 } } })).status).toBe(201);
    }
    // Warm what a process does once per instance and workflow (cached definitions, lease blobs).
    for (const id of ['cost-1', 'cost-2']) await triggerAndSettle(id);
    // The instance's own running totals grew by what the application sent up to its save, and the save:
    // the lease, the read, the save (its release and the operation's record come after it).
    const instanceCost = async () => (await api.request('GET', '/api/instances/cost-1')).body.cost;
    const totalsBefore = await instanceCost();
    await triggerAndSettle('cost-1');
    const totalsAfter = await instanceCost();
    expect(totalsAfter.storage.blobLease - totalsBefore.storage.blobLease).toBe(1);
    expect(totalsAfter.storage.tableRead - totalsBefore.storage.tableRead).toBe(1);
    expect(totalsAfter.storage.tableWrite - totalsBefore.storage.tableWrite).toBe(1);
    expect(totalsAfter.storage.tableQuery).toBe(totalsBefore.storage.tableQuery);

    // From yesterday (UTC): the operations below finish today, or tomorrow if midnight passes meanwhile.
    const since = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const before = (await api.request('GET', `/api/workflows/${counterWorkflow.id}/cost?since=${since}`)).body;
    expect(before.operations).toBe(3);

    const first = await triggerAndSettle('cost-1');
    expect(first.operation).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
    // The instance is the only entity read by its keys (the interest lookup is a query).
    const pointReads = first.requests.filter((request) => request.startsWith('table GET') && request.toLowerCase().includes('instances')).length;
    expect(first.operation.cost.storage).toEqual(independentCounts(first.requests, pointReads));
    expect(first.operation.cost).toMatchObject({ outbound: { calls: 0, bytesSent: 0, bytesReceived: 0 }, activities: 0 });
    // Nothing counted is missing: the record names as many requests as the process sent for it.
    const total = Object.values(first.operation.cost.storage as Record<string, number>).reduce((sum, n) => sum + n, 0);
    expect(total).toBe(first.requests.length);
    expect(first.operation.costByWorkflow).toEqual({ [counterWorkflow.id]: first.operation.cost });

    const second = await triggerAndSettle('cost-2');
    expect(second.operation.cost.storage).toEqual(
      independentCounts(second.requests, second.requests.filter((request) => request.startsWith('table GET') && request.toLowerCase().includes('instances')).length),
    );

    const after = (await api.request('GET', `/api/workflows/${counterWorkflow.id}/cost?since=${since}`)).body;
    expect(after.operations - before.operations).toBe(2);
    for (const kind of Object.keys(first.operation.cost.storage)) {
      expect(after.cost.storage[kind] - before.cost.storage[kind]).toBe(first.operation.cost.storage[kind] + second.operation.cost.storage[kind]);
    }
    expect(after.days.map((day: any) => day.day)).toContain(second.operation.updatedAt.slice(0, 10));
    expect(after.days.reduce((sum: number, day: any) => sum + day.operations, 0)).toBe(after.operations);
    expect(after.estimate.currency).toBe('USD');
    expect(after.estimate.total).toBeGreaterThan(0);
    expect(after.prices).toMatchObject({ takenOn: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    // The tenant's sum lists the workflow with the same counts.
    const tenant = (await api.request('GET', `/api/cost?since=${since}`)).body;
    expect(tenant.workflows.find((entry: any) => entry.workflowId === counterWorkflow.id)).toMatchObject({ operations: after.operations, cost: after.cost });
    expect(tenant.operations).toBeGreaterThanOrEqual(after.operations);
    // Written to the cost rows (in the background; flushed here), the sums read the same from storage alone.
    await host.core.dailyCosts!.flush();
    const stored = await host.core.ports.costs!.list({ sinceDay: since, workflowId: counterWorkflow.id });
    expect(stored.reduce((sum, row) => sum + row.operations, 0)).toBe(after.operations);
    expect(stored.reduce((sum, row) => sum + row.cost.storage.tableWrite, 0)).toBe(after.cost.storage.tableWrite);
  });

  it('counts outbound calls with their bytes, and splits a trigger that reached two workflows between them', async () => {
    const url = `http://127.0.0.1:${(external.address() as AddressInfo).port}/check`;
    const caller = (id: string, withCall: boolean) => ({
      id,
      displayName: id,
      initialStateId: 'open',
      states: {
        open: {
          interests: ['cost-shared'],
          transitions: [
            {
              id: 'count',
              targetStateId: 'open',
              conditions: [{ type: 'triggerName', name: 'Count' }],
              actions: [
                ...(withCall ? [{ type: 'invokeExternalService', id: 'check', url, contextItemsToInclude: ['count'] }] : []),
                { type: 'setContext', expressions: { count: 'context.count + 1' } },
              ],
            },
          ],
        },
      },
    });
    for (const [id, withCall] of [
      ['cost-caller', true],
      ['cost-quiet', false],
    ] as const) {
      expect((await api.request('PUT', `/api/workflows/${id}`, { json: caller(id, withCall) })).status).toBe(201);
      expect((await api.request('POST', '/api/instances', { json: { workflowId: id, instanceId: `${id}-1`, context: { count: 0 } } })).status).toBe(201);
    }
    bytesReceivedByExternal = 0;
    counter.reset();
    const sent = await api.request('POST', '/api/triggers', { json: { id: 'cost-both', name: 'Count', subjects: ['cost-shared'] } });
    expect(sent.status).toBe(202);
    let operation: any;
    for (let poll = 0; poll < 400 && operation?.status !== 'succeeded'; poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      operation = (await api.request('GET', '/api/operations/cost-both')).body;
    }
    expect(operation).toMatchObject({ status: 'succeeded', summary: { transitioned: 2 } });
    expect(operation.cost.outbound).toEqual({ calls: 1, bytesSent: bytesReceivedByExternal, bytesReceived: Buffer.byteLength(externalAnswer) });
    expect(bytesReceivedByExternal).toBeGreaterThan(0);
    // The call is the caller's workflow's; the rest is what each instance's application sent plus an even share.
    expect(operation.costByWorkflow['cost-caller'].outbound.calls).toBe(1);
    expect(operation.costByWorkflow['cost-quiet'].outbound.calls).toBe(0);
    for (const kind of Object.keys(operation.cost.storage)) {
      expect(operation.costByWorkflow['cost-caller'].storage[kind] + operation.costByWorkflow['cost-quiet'].storage[kind]).toBe(operation.cost.storage[kind]);
    }
    expect(operation.costByWorkflow['cost-caller'].storage.blobLease).toBeGreaterThanOrEqual(1);
    expect(operation.costByWorkflow['cost-quiet'].storage.blobLease).toBeGreaterThanOrEqual(1);
  });

  it('refuses a bad `since` with a problem naming it', async () => {
    for (const since of ['yesterday', '2026-02-30', '1970-01-01']) {
      const answer = await api.request('GET', `/api/workflows/${counterWorkflow.id}/cost?since=${since}`);
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.stringify(answer.body)).toContain('since');
    }
  });
});
