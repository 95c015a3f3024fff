/**
 * `Prefer: wait` (RFC 7240) on the trigger routes and the operation poll, against the local server over
 * real loopback HTTP on Azurite, with the storage requests it makes counted: waiting reads no operation
 * record, a finished record is answered from memory, and an instance's lease blob exists before its
 * first trigger.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestedWaitInSeconds } from '../../src/host/http/prefer-wait';
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
let external: Server;
const held: ServerResponse[] = [];

beforeAll(async () => {
  external = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    held.push(response);
  });
  await new Promise<void>((resolve) => external.listen(0, '127.0.0.1', resolve));
  names = prefixedStorageNames(uniquePrefix('wait'));
  host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' },
    port: 0,
    storageNames: names,
    logger: silentLogger,
    requestCounter: counter,
  });
  api = httpClient(host.url);
  expect((await api.request('PUT', '/api/workflows/counter', { json: counterWorkflow })).status).toBe(201);
  const slowWorkflow = {
    id: 'slow',
    displayName: 'Slow',
    initialStateId: 'open',
    states: {
      open: {
        transitions: [
          {
            id: 'check',
            targetStateId: 'open',
            conditions: [{ type: 'triggerName', name: 'Check' }],
            actions: [{ type: 'invokeExternalService', id: 'check', url: `http://127.0.0.1:${(external.address() as AddressInfo).port}/check` }],
          },
        ],
      },
    },
  };
  expect((await api.request('PUT', '/api/workflows/slow', { json: slowWorkflow })).status).toBe(201);
});

afterAll(async () => {
  held.forEach((response) => response.destroy());
  await host?.stop();
  await new Promise((resolve) => external.close(resolve));
});

/** The requests since the last reset that touched the operations table. */
const operationReads = () => counter.requests().filter((request) => request.startsWith('table GET') && request.endsWith(names.operationsTable));

describe('Prefer: wait', () => {
  it('answers POST /api/triggers with 200 and the finished operation, reading no operation record but the repeat check of a client-named id', async () => {
    await api.request('POST', '/api/instances', { json: { workflowId: 'counter', instanceId: 'c-1', context: { count: 0 } } });
    counter.reset();
    const answer = await api.request('POST', '/api/triggers', { json: { id: 'inc-1', name: 'Increment', subjects: ['c-1'] }, headers: { prefer: 'wait=10' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('preference-applied')).toBe('wait=10');
    expect(answer.body).toMatchObject({ id: 'inc-1', status: 'succeeded', candidates: 1, summary: { transitioned: 1 } });
    expect(answer.body.instances).toEqual([
      {
        instanceId: 'c-1',
        outcome: 'transitioned',
        transitionId: 'increment',
        fromStateId: 'counting',
        toStateId: 'counting',
        // Results carry the conditions evaluated (issue 16).
        trace: [{ path: 'states.counting.transitions[0].conditions[0]', type: 'triggerName', result: true }],
      },
    ]);
    // The id was the client's: one point read (it answered 404) says it is no repeat; nothing else reads the record.
    expect(operationReads()).toEqual([`table GET ${names.operationsTable}`]);
    // The lease blob was made with the instance: the first trigger acquired it once, with no 404 or upload.
    const blobRequests = counter.requests().filter((request) => request.startsWith('blob'));
    expect(blobRequests.filter((request) => !request.startsWith('blob lease'))).toEqual([]);
    expect(blobRequests.filter((request) => request.startsWith('blob lease acquire'))).toHaveLength(1);

    // The finished record is answered from memory from now on, with or without a wait.
    counter.reset();
    const polled = await api.request('GET', '/api/operations/inc-1');
    expect(polled.status).toBe(200);
    expect(polled.headers.get('preference-applied')).toBeNull();
    expect(polled.body).toEqual(answer.body);
    const waited = await api.request('GET', '/api/operations/inc-1', { headers: { prefer: 'respond-async, wait=5' } });
    expect(waited.status).toBe(200);
    expect(waited.headers.get('preference-applied')).toBe('wait=5');
    expect(counter.counts().total).toBe(0);
  });

  it('answers POST /api/instances/{id}/triggers with 200 when it finishes within the wait', async () => {
    await api.request('POST', '/api/instances', { json: { workflowId: 'counter', instanceId: 'c-2', context: { count: 0 } } });
    const answer = await api.request('POST', '/api/instances/c-2/triggers', { json: { name: 'Increment' }, headers: { Prefer: 'wait=10' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
    expect((await api.request('GET', '/api/instances/c-2')).body.context.count).toBe(1);
  });

  it('answers 202 as before when the wait runs out, then 200 from a waiting poll once it finishes', async () => {
    await api.request('POST', '/api/instances', { json: { workflowId: 'slow', instanceId: 's-1' } });
    const accepted = await api.request('POST', '/api/triggers', { json: { id: 'check-1', name: 'Check', subjects: ['s-1'] }, headers: { prefer: 'wait=1' } });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('preference-applied')).toBe('wait=1');
    expect(accepted.headers.get('location')).toBe('/api/operations/check-1');
    expect(accepted.body).toMatchObject({ operationId: 'check-1', statusUrl: '/api/operations/check-1' });

    const pending = await api.request('GET', '/api/operations/check-1', { headers: { prefer: 'wait=1' } });
    expect(pending.status).toBe(202);
    expect(pending.headers.get('preference-applied')).toBe('wait=1');
    expect(pending.body.status).not.toBe('succeeded');

    // Answer the external call while a poll waits: the poll answers 200 as soon as the run ends.
    const waiting = api.request('GET', '/api/operations/check-1', { headers: { prefer: 'wait=30' } });
    for (let attempt = 0; attempt < 400 && held.length === 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    held.splice(0).forEach((response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    const finished = await waiting;
    expect(finished.status).toBe(200);
    expect(finished.headers.get('preference-applied')).toBe('wait=30');
    expect(finished.body).toMatchObject({ id: 'check-1', status: 'succeeded', summary: { transitioned: 1 } });
    // Run before it was recorded, recorded when the wait ran out, completed by the run: one record, listed
    // once with its final status, and the trigger applied once.
    const listed = (await api.request('GET', '/api/operations')).body.items.filter((item: { id: string }) => item.id === 'check-1');
    expect(listed).toEqual([expect.objectContaining({ id: 'check-1', status: 'succeeded' })]);
    const history = (await api.request('GET', '/api/instances/s-1/history')).body.items;
    expect(history.filter((entry: { triggerId?: string }) => entry.triggerId === 'check-1')).toHaveLength(1);
  });

  it('records a waiting trigger before it waits for a concurrency slot, so its id answers while it waits', async () => {
    const limited = { ...(await api.request('GET', '/api/workflows/slow')).body, id: 'slow-limited', flow: { concurrency: { key: "'all'", limit: 1 } } };
    for (const key of ['version', 'createdAt', 'updatedAt', 'etag']) delete limited[key];
    expect((await api.request('PUT', '/api/workflows/slow-limited', { json: limited })).status).toBe(201);
    await api.request('POST', '/api/instances', { json: { workflowId: 'slow-limited', instanceId: 'l-1' } });
    await api.request('POST', '/api/instances', { json: { workflowId: 'slow-limited', instanceId: 'l-2' } });
    // l-1's trigger takes the one slot and waits in its external call.
    expect((await api.request('POST', '/api/instances/l-1/triggers', { json: { id: 'hold-1', name: 'Check' } })).status).toBe(202);
    for (let attempt = 0; attempt < 400 && held.length === 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(held).toHaveLength(1);
    // l-2's trigger, waiting for its answer, finds the slot taken and is parked: it is recorded first.
    const answer = api.request('POST', '/api/instances/l-2/triggers', { json: { id: 'wait-2', name: 'Check' }, headers: { prefer: 'wait=30' } });
    let recorded = await api.request('GET', '/api/operations/wait-2');
    for (let attempt = 0; attempt < 400 && recorded.status === 404; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      recorded = await api.request('GET', '/api/operations/wait-2');
    }
    expect(recorded.status).toBe(202);
    expect(recorded.body.status).toBe('running');
    // l-1's call answered: the slot is l-2's, whose own call is answered in turn.
    held.splice(0).forEach((response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    for (let attempt = 0; attempt < 400 && held.length === 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    held.splice(0).forEach((response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    const finished = await answer;
    expect(finished.status).toBe(200);
    expect(finished.body).toMatchObject({ id: 'wait-2', status: 'succeeded', summary: { transitioned: 1 } });
    expect((await api.request('GET', '/api/operations/wait-2')).body).toMatchObject({ status: 'succeeded' });
  });

  it('ignores a Prefer header without a usable wait, and caps a long wait at 60 seconds', async () => {
    await api.request('POST', '/api/instances', { json: { workflowId: 'counter', instanceId: 'c-3', context: { count: 0 } } });
    const ignored = await api.request('POST', '/api/triggers', { json: { name: 'Increment', subjects: ['c-3'] }, headers: { prefer: 'wait=soon' } });
    expect(ignored.status).toBe(202);
    expect(ignored.headers.get('preference-applied')).toBeNull();
    const capped = await api.request('GET', `/api/operations/${ignored.body.operationId}`, { headers: { prefer: 'wait=3600' } });
    expect(capped.status).toBe(200);
    expect(capped.headers.get('preference-applied')).toBe('wait=60');
  });

  it('answers 404 for an unknown operation, waiting or not', async () => {
    expect((await api.request('GET', '/api/operations/never', { headers: { prefer: 'wait=5' } })).status).toBe(404);
  });
});

describe('requestedWaitInSeconds', () => {
  const waitOf = (prefer: string | null) => requestedWaitInSeconds({ headers: { get: () => prefer } });
  it.each([
    [null, undefined],
    ['', undefined],
    ['wait=10', 10],
    ['WAIT = 7', 7],
    ['wait="3"', 3],
    ['respond-async, wait=12', 12],
    ['return=minimal; foo=bar, wait=2; x=y', 2],
    ['wait=0', 0],
    ['wait=100', 60],
    ['wait=-1', undefined],
    ['wait=1.5', undefined],
    ['wait', undefined],
    ['handling=lenient', undefined],
    ['wait=4, wait=9', 4],
  ])('Prefer: %p → %p', (header, expected) => {
    expect(waitOf(header)).toBe(expected);
  });
});
