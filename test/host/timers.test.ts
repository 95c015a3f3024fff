/**
 * Timers on the local server over HTTP, on Azurite (issue 13): a 2-second timer fires and the history
 * shows it; a trigger that moves the instance on before the due time leaves nothing behind; a timer that
 * falls due while the server is killed (SIGKILL) fires exactly once after it starts again.
 */
import { onePage } from '../../src/engine/ports';
import { timerTriggerId } from '../../src/engine';
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../../src/host/local/azurite';
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { createAzureStorage } from '../../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../../src/storage/names';
import { startServerProcess } from '../support/server-process';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient, type HttpResult } from './http-client';

function escalation(after: string) {
  return {
    id: 'claim',
    displayName: 'Claim',
    initialStateId: 'waiting',
    states: {
      waiting: {
        transitions: [
          { id: 'approve', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Approve' }] },
          { id: 'escalate', targetStateId: 'escalated', timer: { after }, actions: [{ type: 'setContext', values: { escalated: true } }] },
        ],
      },
      // Not final, so the instance still takes triggers there: the stale timer is told apart from an inactive instance.
      approved: { transitions: [{ id: 'archive', targetStateId: 'escalated', conditions: [{ type: 'triggerName', name: 'Archive' }] }] },
      escalated: {},
    },
  };
}

/** The id of `instanceId`'s `escalate` timer for state entry 0, with the incarnation it has in storage. */
async function timerIdOf(storageNames: ReturnType<typeof prefixedStorageNames>, instanceId: string): Promise<string> {
  const storage = await createAzureStorage({ connection: testConnectionString(), names: storageNames, createIfMissing: false });
  return timerTriggerId(instanceId, 0, 'escalate', (await storage.instances.get(instanceId))?.incarnation);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls GET `path` until `done` holds (bounded), returning the last answer. */
async function pollUntil(api: ReturnType<typeof httpClient>, path: string, done: (result: HttpResult) => boolean, maxPolls = 600): Promise<HttpResult> {
  let result = await api.request('GET', path);
  for (let poll = 0; poll < maxPolls && !done(result); poll += 1) {
    await sleep(50);
    result = await api.request('GET', path);
  }
  return result;
}

const finished = (result: HttpResult) => result.status === 200;

describe('timers on the local server', () => {
  let host: LocalHost;
  let api: ReturnType<typeof httpClient>;
  const names = prefixedStorageNames(uniquePrefix('timers'));

  beforeAll(async () => {
    host = await startLocalHost({ env: { SIGNALBOX_STORAGE: testConnectionString() }, port: 0, storageNames: names, logger: silentLogger });
    api = httpClient(host.url);
    expect((await api.request('PUT', '/api/workflows/claim', { json: escalation('PT2S') })).status).toBe(201);
  });

  afterAll(async () => {
    await host?.stop();
  });

  it('fires a 2-second timer through the normal path: an operation, a history entry, the instance moved on', async () => {
    const created = await api.request('POST', '/api/instances', { json: { workflowId: 'claim', instanceId: 'fires' } });
    expect(created.status).toBe(201);
    expect(created.body.timers).toEqual([{ transitionId: 'escalate', dueAt: new Date(Date.parse(created.body.createdAt) + 2000).toISOString() }]);
    expect((await api.request('GET', '/api/instances/fires')).body.timers).toEqual(created.body.timers);

    const timerId = await timerIdOf(names, 'fires');
    const operation = await pollUntil(api, `/api/operations/${timerId}`, finished);
    expect(operation.status).toBe(200);
    expect(operation.body).toMatchObject({ triggerId: timerId, status: 'succeeded', summary: { transitioned: 1 } });
    expect(operation.body.instances).toEqual([{ instanceId: 'fires', outcome: 'transitioned', transitionId: 'escalate', fromStateId: 'waiting', toStateId: 'escalated' }]);
    const instance = await api.request('GET', '/api/instances/fires');
    expect(instance.body).toMatchObject({ stateId: 'escalated', status: 'complete', timers: [], context: { escalated: true } });
    const history = await api.request('GET', '/api/instances/fires/history');
    expect(history.body.items.map((entry: { triggerId: string | null; transitionId: string | null }) => [entry.triggerId, entry.transitionId])).toEqual([
      [null, null],
      [timerId, 'escalate'],
    ]);
  });

  it('leaves nothing behind when a trigger moves the instance on before the due time', async () => {
    const createdAt = Date.now();
    await api.request('POST', '/api/instances', { json: { workflowId: 'claim', instanceId: 'approved-first' } });
    const approved = await api.request('POST', '/api/instances/approved-first/triggers', { json: { id: 'approve-1', name: 'Approve' } });
    expect(approved.status).toBe(202);
    expect((await api.waitForOperation('approve-1')).body.summary).toMatchObject({ transitioned: 1 });
    const after = await api.request('GET', '/api/instances/approved-first');
    expect(after.body).toMatchObject({ stateId: 'approved', status: 'waiting', timers: [] });

    // Its row left the due-timer index with the save that left the state (issue 22): the timer never
    // wakes up as a useless operation.
    const storage = await createAzureStorage({ connection: testConnectionString(), names, createIfMissing: false });
    const due = await onePage(storage.dueTimers.listDue(new Date(Date.now() + 60_000)));
    expect(due.items.filter((timer) => timer.instanceId === 'approved-first')).toEqual([]);
    // Past its due time (2 s after creation) and a scheduler pass, still no operation and nothing saved.
    await sleep(Math.max(0, createdAt + 3000 - Date.now()));
    await host.timers.idle();
    expect((await api.request('GET', `/api/operations/${await timerIdOf(names, 'approved-first')}`)).status).toBe(404);
    const unchanged = await api.request('GET', '/api/instances/approved-first');
    expect(unchanged.body.etag).toBe(after.body.etag);
    const history = await api.request('GET', '/api/instances/approved-first/history');
    expect(history.body.items).toHaveLength(2);
  });
});

describe('timers across a restart of the local server', () => {
  const children: ChildProcess[] = [];

  async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
    const server = await startServerProcess(env);
    children.push(server.child);
    return server;
  }

  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  it('fires a timer that fell due while the server was killed exactly once after it starts again', async () => {
    const env = { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_STORAGE_PREFIX: uniquePrefix('tkill'), PORT: String(await freePort()) };
    const first = await startServer(env);
    const api = httpClient(first.url);
    expect((await api.request('PUT', '/api/workflows/claim', { json: escalation('PT3S') })).status).toBe(201);
    const created = await api.request('POST', '/api/instances', { json: { workflowId: 'claim', instanceId: 'sleeper' } });
    expect(created.body.timers).toHaveLength(1);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const dueAt = Date.parse(created.body.timers[0].dueAt);
    await sleep(Math.max(0, dueAt - Date.now()) + 500);
    expect(
      (
        await httpClient(first.url)
          .request('GET', '/api/health')
          .catch(() => undefined)
      )?.status,
    ).toBeUndefined(); // really down

    const second = await startServer(env);
    const resumed = httpClient(second.url);
    const timerId = await timerIdOf(prefixedStorageNames(env.SIGNALBOX_STORAGE_PREFIX), 'sleeper');
    const operation = await pollUntil(resumed, `/api/operations/${timerId}`, finished);
    expect(operation.body).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
    expect((await resumed.request('GET', '/api/instances/sleeper')).body).toMatchObject({ stateId: 'escalated', timers: [] });
    const history = await resumed.request('GET', '/api/instances/sleeper/history');
    expect(history.body.items.filter((entry: { triggerId: string | null }) => entry.triggerId === timerId)).toHaveLength(1);
    expect(history.body.items).toHaveLength(2);
  });
});
