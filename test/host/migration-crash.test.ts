/**
 * Kill the local server (SIGKILL) mid-migration, start it again, and read the report (issue 42, defect 4):
 * every instance is reported once, `migrated`, and migrated once. Before the fix, the instances migrated
 * before the kill were offered again by the resumed run, found on the target version and reported
 * `skipped`. The target state's automatic transition calls an external service the test holds, so the
 * kill lands mid-migration deterministically (some instances saved, others waiting on the call), as in
 * crash-recovery.test.ts for a trigger.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onePage } from '../../src/engine/ports';
import { freePort } from '../../src/host/local/azurite';
import { createAzureStorage } from '../../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../../src/storage/names';
import { collectAll } from '../../src/testing';
import { startServerProcess } from '../support/server-process';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from './http-client';

// A server killed and restarted (tsx loading the app twice) is slow on a loaded machine.
jest.setTimeout(180_000);

const INSTANCES = 40;
const ANSWERED_BEFORE_KILL = 20;

/** Version 2 checks each instance it receives with the external service, in the migration's change. */
const ledger = (version: 1 | 2, externalUrl: string) => ({
  id: 'ledger',
  displayName: `Ledger ${version}`,
  initialStateId: 'open',
  states: {
    open: {
      transitions: [
        { id: 'touch', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Touch' }] },
        ...(version === 2 ? [{ id: 'check', targetStateId: 'checked', automatic: true, actions: [{ type: 'invokeExternalService', id: 'check', url: externalUrl }] }] : []),
      ],
    },
    ...(version === 2 ? { checked: { transitions: [{ id: 'reopen', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Reopen' }] }] } } : {}),
  },
});

describe('a migration the local server was killed in the middle of', () => {
  let external: Server;
  let held: ServerResponse[] = [];
  let received = 0;
  let holding = true;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    external = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      received += 1;
      if (holding && received > ANSWERED_BEFORE_KILL) held.push(response);
      else response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => external.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    held.forEach((response) => response.destroy());
    await new Promise((resolve) => external.close(resolve));
  });

  it('reports each instance once, migrated, after the restart, and migrates none twice', async () => {
    const externalUrl = `http://127.0.0.1:${(external.address() as AddressInfo).port}/check`;
    const env = { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_STORAGE_PREFIX: uniquePrefix('migcrash'), SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1', PORT: String(await freePort()) };
    const first = await startServerProcess(env);
    children.push(first.child);
    const api = httpClient(first.url);
    expect((await api.request('PUT', '/api/workflows/ledger', { json: ledger(1, externalUrl) })).status).toBe(201);
    for (let start = 0; start < INSTANCES; start += 10) {
      const created = await Promise.all(Array.from({ length: 10 }, (_, offset) => api.request('POST', '/api/instances', { json: { workflowId: 'ledger', instanceId: `l-${start + offset}` } })));
      expect(created.map((response) => response.status)).toEqual(Array(10).fill(201));
    }
    const latest = await api.request('GET', '/api/workflows/ledger');
    expect((await api.request('PUT', '/api/workflows/ledger', { json: ledger(2, externalUrl), headers: { 'if-match': latest.headers.get('etag')! } })).status).toBe(200);

    const started = await api.request('POST', '/api/workflows/ledger/migrations', { json: { fromVersion: 1, toVersion: 2, stateMap: {} } });
    expect(started.status).toBe(202);
    const operationId: string = started.body.operationId;
    for (let poll = 0; poll < 1200 && held.length === 0; poll += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(held.length).toBeGreaterThan(0);
    expect((await api.request('GET', `/api/operations/${operationId}`)).body.status).toBe('running');
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    held.forEach((response) => response.destroy());
    held = [];
    holding = false;

    // The kill landed mid-migration: some instances saved on version 2 (a runner slot frees only once an
    // application has saved), the others still on version 1.
    const storage = await createAzureStorage({ connection: testConnectionString(), names: prefixedStorageNames(env.SIGNALBOX_STORAGE_PREFIX), createIfMissing: false });
    const beforeRestart = await collectAll((options) => onePage(storage.instances.query({ workflowId: 'ledger' }, options)));
    const migratedBeforeKill = beforeRestart.filter((instance) => instance.workflowVersion === 2).length;
    expect(migratedBeforeKill).toBeGreaterThan(0);
    expect(migratedBeforeKill).toBeLessThan(INSTANCES);

    const second = await startServerProcess(env);
    children.push(second.child);
    const resumed = httpClient(second.url);
    const operation = await resumed.waitForOperation(operationId, 2400);
    expect(operation.body).toMatchObject({ status: 'succeeded', candidates: INSTANCES, summary: { migrated: INSTANCES, skipped: 0, notMigratable: 0, failed: 0 } });
    expect(operation.body.instances).toHaveLength(INSTANCES);
    for (const result of operation.body.instances) expect(result).toMatchObject({ outcome: 'migrated', fromStateId: 'open', toStateId: 'checked' });
    for (let index = 0; index < INSTANCES; index += 1) {
      const history = await resumed.request('GET', `/api/instances/l-${index}/history`);
      expect(history.body.items.filter((entry: { event: string }) => entry.event === 'migrated').map((entry: { operationId: string }) => entry.operationId)).toEqual([operationId]);
    }

    second.child.kill('SIGTERM');
    expect(await new Promise((resolve) => second.child.once('exit', resolve))).toBe(0);
  });
});
