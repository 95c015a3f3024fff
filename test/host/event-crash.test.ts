/**
 * Events survive a SIGKILL of the local server between the save and the delivery: the subscriber holds
 * the first delivery open, the server is killed, and after a restart the same event (same id) arrives
 * and is recorded delivered.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../src/host/local/azurite';
import { startServerProcess } from '../support/server-process';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from './http-client';

describe('lifecycle events across a crash of the local server', () => {
  let subscriber: Server;
  const received: string[] = [];
  let held: ServerResponse | undefined;
  let holding = true;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    subscriber = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
        if (holding) held = response;
        else response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => subscriber.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    held?.destroy();
    await new Promise((resolve) => subscriber.close(resolve));
  });

  it('delivers the saved event after a restart, with the same id', async () => {
    const env = {
      SIGNALBOX_STORAGE: testConnectionString(),
      SIGNALBOX_STORAGE_PREFIX: uniquePrefix('evcrash'),
      SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1',
      PORT: String(await freePort()),
    };
    const first = await startServerProcess(env);
    children.push(first.child);
    const api = httpClient(first.url);
    const hook = `http://127.0.0.1:${(subscriber.address() as AddressInfo).port}/hook`;
    const workflow = {
      id: 'w',
      displayName: 'W',
      initialStateId: 'a',
      subscriptions: [{ id: 'hook', url: hook, events: ['created'] }],
      states: { a: { transitions: [{ id: 'go', targetStateId: 'a' }] } },
    };
    expect((await api.request('PUT', '/api/workflows/w', { json: workflow })).status).toBe(201);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'w', instanceId: 'k1' } })).status).toBe(201);
    for (let poll = 0; poll < 400 && !held; poll++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(received.map((id) => id.replace(/^k1:[0-9a-f]{12}:/, 'k1:'))).toEqual(['k1:0:created']);
    const before = await api.request('GET', '/api/instances/k1/events');
    expect(before.body.items[0].deliveries).toEqual([{ subscriptionId: 'hook', status: 'pending', attempts: 0 }]);

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    held!.destroy();
    holding = false;

    const second = await startServerProcess(env);
    children.push(second.child);
    const restarted = httpClient(second.url);
    let deliveries: unknown;
    for (let poll = 0; poll < 400; poll++) {
      deliveries = (await restarted.request('GET', '/api/instances/k1/events')).body.items[0].deliveries;
      if ((deliveries as Array<{ status: string }>)[0]!.status !== 'pending') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(deliveries).toEqual([{ subscriptionId: 'hook', status: 'delivered', attempts: 1 }]);
    expect(received.map((id) => id.replace(/^k1:[0-9a-f]{12}:/, 'k1:'))).toEqual(['k1:0:created', 'k1:0:created']);
    expect((await restarted.request('GET', '/api/instances/k1')).body.status).toBe('waiting');
    second.child.kill('SIGTERM');
  });
});
