/**
 * Kill the local server (SIGKILL) while an operation with many candidates runs, start it again, and
 * see the operation finish with every candidate having applied the trigger exactly once. The external
 * service the workflow calls is held by the test, so the kill lands mid-operation deterministically.
 */
import { onePage } from '../../src/engine/ports';
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectAll } from '../../src/testing';
import { freePort } from '../../src/host/local/azurite';
import { createAzureStorage } from '../../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../../src/storage/names';
import { startServerProcess } from '../support/server-process';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from './http-client';

// Child processes (a server killed and restarted; tsx loading the app twice) are slow on a loaded
// machine: a longer budget than jest's 60 s, with the assertions unchanged.
jest.setTimeout(180_000);

const INSTANCES = 60;
const ANSWERED_BEFORE_KILL = 20;

describe('crash recovery of the local server', () => {
  let external: Server;
  let held: ServerResponse[] = [];
  let received = 0;
  let holding = true;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    external = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      received += 1;
      const answer = () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ contextValuesToSetOrAdd: { checked: true } }));
      if (holding && received > ANSWERED_BEFORE_KILL) held.push(response);
      else answer();
    });
    await new Promise<void>((resolve) => external.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    held.forEach((response) => response.destroy());
    await new Promise((resolve) => external.close(resolve));
  });

  it('finishes the operation after a restart, applying the trigger once per instance', async () => {
    const externalUrl = `http://127.0.0.1:${(external.address() as AddressInfo).port}/check`;
    const env = {
      SIGNALBOX_STORAGE: testConnectionString(),
      SIGNALBOX_STORAGE_PREFIX: uniquePrefix('crash'),
      SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1',
      PORT: String(await freePort()),
    };
    const first = await startServerProcess(env);
    children.push(first.child);
    const api = httpClient(first.url);
    const workflow = {
      id: 'counted',
      displayName: 'Counted',
      initialStateId: 'open',
      states: {
        open: {
          interests: ['batch'],
          transitions: [
            {
              id: 'count',
              targetStateId: 'open',
              conditions: [{ type: 'triggerName', name: 'Count' }],
              actions: [
                { type: 'invokeExternalService', id: 'check', url: externalUrl, contextItemsToInclude: ['count'] },
                { type: 'setContext', expressions: { count: 'context.count + 1' } },
              ],
            },
          ],
        },
      },
    };
    expect((await api.request('PUT', '/api/workflows/counted', { json: workflow })).status).toBe(201);
    for (let start = 0; start < INSTANCES; start += 10) {
      const created = await Promise.all(
        Array.from({ length: 10 }, (_, offset) => api.request('POST', '/api/instances', { json: { workflowId: 'counted', instanceId: `i-${start + offset}`, context: { count: 0 } } })),
      );
      expect(created.map((response) => response.status)).toEqual(Array(10).fill(201));
    }

    expect((await api.request('POST', '/api/triggers', { json: { id: 'count-once', name: 'Count', subjects: ['batch'] } })).status).toBe(202);
    // Wait until some instances are done and more are stuck in the external call, then kill.
    for (let poll = 0; poll < 600 && held.length === 0; poll += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(held.length).toBeGreaterThan(0);
    const midway = await api.request('GET', '/api/operations/count-once');
    expect(midway.status).toBe(202);
    expect(midway.body.status).toBe('running');
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    held.forEach((response) => response.destroy());
    held = [];
    holding = false;
    // A runner slot frees only when an application has saved, so when call 21 arrived at least
    // ANSWERED_BEFORE_KILL - 16 (the runner's concurrency) instances had applied the trigger: the kill
    // really landed mid-operation, with some instances done and others not.
    const storage = await createAzureStorage({ connection: testConnectionString(), names: prefixedStorageNames(env.SIGNALBOX_STORAGE_PREFIX), createIfMissing: false });
    const beforeRestart = await collectAll((options) => onePage(storage.instances.query({ workflowId: 'counted' }, options)));
    const doneBeforeKill = beforeRestart.filter((instance) => instance.context.count === 1).length;
    expect(doneBeforeKill).toBeGreaterThanOrEqual(ANSWERED_BEFORE_KILL - 16);
    expect(doneBeforeKill).toBeLessThan(INSTANCES);

    const second = await startServerProcess(env);
    children.push(second.child);
    const resumed = httpClient(second.url);
    const operation = await resumed.waitForOperation('count-once', 1200);
    expect(operation.status).toBe(200);
    expect(operation.body.status).toBe('succeeded');
    expect(operation.body.candidates).toBe(INSTANCES);
    // Instances that applied the trigger before the kill are reported with what it did then, not as
    // `duplicate`: the operation tells what the trigger did to every candidate.
    expect(operation.body.summary).toMatchObject({ transitioned: INSTANCES, duplicate: 0, faulted: 0 });
    expect(operation.body.instances).toHaveLength(INSTANCES);
    for (const result of operation.body.instances) expect(result).toMatchObject({ outcome: 'transitioned', transitionId: 'count', toStateId: 'open' });

    for (let index = 0; index < INSTANCES; index += 1) {
      const instance = await resumed.request('GET', `/api/instances/i-${index}`);
      expect(instance.body.context.count).toBe(1);
      const history = await resumed.request('GET', `/api/instances/i-${index}/history`);
      expect(history.body.items.filter((item: { triggerId: string }) => item.triggerId === 'count-once')).toHaveLength(1);
    }

    second.child.kill('SIGTERM');
    const exitCode = await new Promise((resolve) => second.child.once('exit', resolve));
    expect(exitCode).toBe(0);
  });
});
