/**
 * Operating a live system over HTTP (local server, real loopback, Azurite): migrations (dry run and
 * real run), suspend and resume, bulk actions, deleting instances and workflows.
 */
import { BlobServiceClient } from '@azure/storage-blob';
import { leaseBlobName } from '../../src/leasing/lease-name';
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { purgeFinishedInstances, retentionDays } from '../../src/host/retention';
import { prefixedStorageNames, type StorageNames } from '../../src/storage/names';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from './http-client';

const v1 = {
  id: 'ticket',
  displayName: 'Ticket',
  initialStateId: 'open',
  states: {
    open: { interests: ['queue:{{context.queue}}'], transitions: [{ id: 'triage', targetStateId: 'triaged', conditions: [{ type: 'triggerName', name: 'Triage' }] }] },
    triaged: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] },
    parked: { transitions: [{ id: 'unpark', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Unpark' }] }] },
    closed: {},
  },
};
// Version 2: `triaged` becomes `assigned`, `parked` is gone, and `open` answers a new trigger.
const v2 = {
  ...v1,
  states: {
    open: {
      interests: ['queue:{{context.queue}}'],
      transitions: [
        { id: 'assign', targetStateId: 'assigned', conditions: [{ type: 'triggerName', name: 'Assign' }] },
        { id: 'triage', targetStateId: 'assigned', conditions: [{ type: 'triggerName', name: 'Triage' }] },
      ],
    },
    assigned: { transitions: [{ id: 'resolve', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Resolve' }] }] },
    closed: {},
  },
};

let host: LocalHost;
let api: ReturnType<typeof httpClient>;
let names: StorageNames;

beforeAll(async () => {
  names = prefixedStorageNames(uniquePrefix('ops'));
  host = await startLocalHost({ env: { SIGNALBOX_STORAGE: testConnectionString() }, port: 0, storageNames: names, logger: silentLogger });
  api = httpClient(host.url);
  expect((await api.request('PUT', '/api/workflows/ticket', { json: v1 })).status).toBe(201);
});

afterAll(async () => {
  await host?.stop();
});

async function start(instanceId: string, queue = 'q1') {
  const created = await api.request('POST', '/api/instances', { json: { workflowId: 'ticket', instanceId, context: { queue } } });
  expect(created.status).toBe(201);
}

async function send(instanceId: string, name: string) {
  const accepted = await api.request('POST', `/api/instances/${instanceId}/triggers`, { json: { name } });
  expect(accepted.status).toBe(202);
  return (await api.waitForOperation(accepted.body.operationId)).body;
}

async function runOperation(method: string, path: string, json: unknown) {
  const accepted = await api.request(method, path, { json });
  expect(accepted.status).toBe(202);
  expect(accepted.headers.get('location')).toBe(`/api/operations/${accepted.body.operationId}`);
  const finished = await api.waitForOperation(accepted.body.operationId);
  expect(finished.status).toBe(200);
  return finished.body;
}

async function leaseBlobExists(instanceId: string): Promise<boolean> {
  const container = BlobServiceClient.fromConnectionString(testConnectionString()).getContainerClient(names.leaseContainer);
  return container.getBlockBlobClient(leaseBlobName(instanceId)).exists();
}

describe('migrations', () => {
  it('dry run counts per state and reports unmapped states; the real run moves them onto the new version', async () => {
    await start('m-open');
    await start('m-triaged');
    await send('m-triaged', 'Triage');
    await start('m-open2');
    await start('m-closed');
    await send('m-closed', 'Triage');
    await send('m-closed', 'Close');
    const current = await api.request('GET', '/api/workflows/ticket');
    expect((await api.request('PUT', '/api/workflows/ticket', { json: v2, headers: { 'if-match': current.headers.get('etag')! } })).status).toBe(200);

    const dryRun = await api.request('POST', '/api/workflows/ticket/migrations', { json: { fromVersion: 1, toVersion: 2, stateMap: { triaged: 'assigned' }, dryRun: true } });
    expect(dryRun.status).toBe(200);
    expect(dryRun.body.rows).toEqual([
      { fromStateId: 'open', toStateId: 'open', count: 2, sample: ['m-open', 'm-open2'] },
      { fromStateId: 'triaged', toStateId: 'assigned', count: 1, sample: ['m-triaged'] },
    ]);
    expect(dryRun.body.blocked).toEqual([{ fromStateId: 'closed', reason: 'status complete is not migratable', count: 1, sample: ['m-closed'] }]);
    // Nothing changed.
    expect((await api.request('GET', '/api/instances/m-triaged')).body).toMatchObject({ workflowVersion: 1, stateId: 'triaged' });

    const unmapped = await api.request('POST', '/api/workflows/ticket/migrations', { json: { fromVersion: 1, toVersion: 2, dryRun: true } });
    expect(unmapped.body.blocked).toContainEqual({ fromStateId: 'triaged', reason: 'state "triaged" is neither mapped nor in version 2', count: 1, sample: ['m-triaged'] });

    const operation = await runOperation('POST', '/api/workflows/ticket/migrations', { fromVersion: 1, toVersion: 2, stateMap: { triaged: 'assigned' } });
    expect(operation).toMatchObject({ kind: 'migration', status: 'succeeded', candidates: 4, summary: { migrated: 3, skipped: 0, notMigratable: 1, notFound: 0, failed: 0 } });
    // Complete and cancelled instances are reported and left.
    expect(operation.instances).toContainEqual({ instanceId: 'm-closed', outcome: 'notMigratable', fromStateId: 'closed', error: 'status complete is not migratable' });
    expect(operation).not.toHaveProperty('progress');
    expect(await api.request('GET', '/api/instances/m-triaged')).toMatchObject({ body: { workflowVersion: 2, stateId: 'assigned' } });
    const history = await api.request('GET', '/api/instances/m-triaged/history');
    expect(history.body.items.at(-1)).toMatchObject({ event: 'migrated', fromStateId: 'triaged', toStateId: 'assigned' });
    // The new version's triggers now apply.
    expect(await send('m-open', 'Assign')).toMatchObject({ summary: { transitioned: 1 } });
    expect(await send('m-triaged', 'Resolve')).toMatchObject({ summary: { transitioned: 1 } });

    // Run again: nothing is left on version 1 but the complete one, reported and left.
    const again = await runOperation('POST', '/api/workflows/ticket/migrations', { fromVersion: 1, toVersion: 2, stateMap: { triaged: 'assigned' } });
    expect(again).toMatchObject({ candidates: 1, summary: { migrated: 0, notMigratable: 1 }, instances: [{ instanceId: 'm-closed', outcome: 'notMigratable' }] });
  });

  it('refuses a bad request, naming the field, and changes nothing', async () => {
    const bad = await api.request('POST', '/api/workflows/ticket/migrations', { json: { fromVersion: 1, toVersion: 9, stateMap: { nowhere: 'open' } } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(['stateMap.nowhere', 'toVersion']);
    expect((await api.request('POST', '/api/workflows/nobody/migrations', { json: { fromVersion: 1, toVersion: 2 } })).status).toBe(404);
  });
});

describe('suspend and resume', () => {
  it('suspends a waiting instance (triggers are notActive), resumes it, 409 when the status does not allow it', async () => {
    await start('s1');
    const suspended = await api.request('POST', '/api/instances/s1/suspend');
    expect(suspended).toMatchObject({ status: 200, body: { status: 'suspended' } });
    expect(await send('s1', 'Triage')).toMatchObject({ summary: { notActive: 1 } });
    expect((await api.request('POST', '/api/instances/s1/suspend')).status).toBe(409);
    expect(await api.request('POST', '/api/instances/s1/resume')).toMatchObject({ status: 200, body: { status: 'waiting' } });
    expect((await api.request('POST', '/api/instances/s1/resume')).status).toBe(409);
    expect((await api.request('POST', '/api/instances/nobody/suspend')).status).toBe(404);
    const events = (await api.request('GET', '/api/instances/s1/history')).body.items.map((entry: { event: string }) => entry.event);
    expect(events).toEqual(['created', 'suspended', 'resumed']);
  });
});

describe('bulk operations', () => {
  it('cancels every instance in one state, and a filter that matches nothing succeeds with 0', async () => {
    await api.request('PUT', '/api/workflows/chore', { json: { ...v1, id: 'chore' } });
    for (const id of ['b1', 'b2', 'b3']) {
      expect((await api.request('POST', '/api/instances', { json: { workflowId: 'chore', instanceId: id, context: { queue: 'chores' } } })).status).toBe(201);
    }
    await api.request('POST', '/api/instances/b3/triggers', { json: { name: 'Triage', id: 'b3-triage' } }).then((accepted) => api.waitForOperation(accepted.body.operationId));

    const cancelled = await runOperation('POST', '/api/instances/bulk', { action: 'cancel', filter: { workflowId: 'chore', stateId: 'open' } });
    expect(cancelled).toMatchObject({ kind: 'bulk', status: 'succeeded', candidates: 2, summary: { cancelled: 2, conflict: 0, skipped: 0 } });
    expect(cancelled.instances.map((result: { instanceId: string }) => result.instanceId).sort()).toEqual(['b1', 'b2']);
    expect((await api.request('GET', '/api/instances/b1')).body.status).toBe('cancelled');
    expect((await api.request('GET', '/api/instances/b3')).body.status).toBe('waiting');

    const none = await runOperation('POST', '/api/instances/bulk', { action: 'suspend', filter: { workflowId: 'chore', stateId: 'parked' } });
    expect(none).toMatchObject({ status: 'succeeded', candidates: 0, summary: { suspended: 0 } });

    const purge = await runOperation('POST', '/api/instances/bulk', {
      action: 'delete',
      filter: { workflowId: 'chore', status: 'cancelled', updatedBefore: new Date(Date.now() + 60_000).toISOString() },
      expectedCount: 2,
    });
    expect(purge).toMatchObject({ summary: { deleted: 2 } });
    expect((await api.request('GET', '/api/instances/b1')).status).toBe(404);

    const bad = await api.request('POST', '/api/instances/bulk', { json: { action: 'recover', filter: { workflowId: 'chore' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'stateId', message: expect.any(String) }]);
  });

  it('deletes in bulk only with the count the filter matches named: a dry run tells it, another count is refused', async () => {
    await api.request('PUT', '/api/workflows/purge', { json: { ...v1, id: 'purge' } });
    for (const id of ['p1', 'p2', 'p3']) expect((await api.request('POST', '/api/instances', { json: { workflowId: 'purge', instanceId: id, context: { queue: 'purge' } } })).status).toBe(201);
    const everything = { action: 'delete', filter: { workflowId: 'purge' }, force: true };

    // Only a workflow id and force: refused, naming the field, and nothing is deleted.
    const unguarded = await api.request('POST', '/api/instances/bulk', { json: everything });
    expect(unguarded.status).toBe(400);
    expect(unguarded.body.errors).toEqual([{ path: 'expectedCount', message: expect.stringContaining('dryRun') }]);

    const dryRun = await api.request('POST', '/api/instances/bulk', { json: { ...everything, dryRun: true } });
    expect(dryRun.status).toBe(200);
    expect(dryRun.body).toEqual({ action: 'delete', filter: { workflowId: 'purge' }, matched: 3 });

    const wrong = await api.request('POST', '/api/instances/bulk', { json: { ...everything, expectedCount: 2 } });
    expect(wrong.status).toBe(409);
    expect(wrong.body.detail).toContain('matches 3 instances, not 2');
    for (const id of ['p1', 'p2', 'p3']) expect((await api.request('GET', `/api/instances/${id}`)).status).toBe(200);

    const purged = await runOperation('POST', '/api/instances/bulk', { ...everything, expectedCount: 3 });
    expect(purged).toMatchObject({ status: 'succeeded', summary: { deleted: 3 } });
    // Other actions need no count.
    expect((await api.request('POST', '/api/instances/bulk', { json: { action: 'cancel', filter: { workflowId: 'purge' } } })).status).toBe(202);
  });
});

describe('deletion', () => {
  it('deletes an instance: 204, then 404, no longer matched by its subjects, lease blob gone; 409 while waiting unless forced', async () => {
    await api.request('PUT', '/api/workflows/errand', { json: { ...v1, id: 'errand' } });
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'errand', instanceId: 'd1', context: { queue: 'errands' } } })).status).toBe(201);
    expect((await api.request('DELETE', '/api/instances/d1')).status).toBe(409);
    expect(await leaseBlobExists('d1')).toBe(true); // the refused deletion took the lease

    expect((await api.request('DELETE', '/api/instances/d1?force=true')).status).toBe(204);
    expect((await api.request('GET', '/api/instances/d1')).status).toBe(404);
    expect((await api.request('GET', '/api/instances/d1/history')).status).toBe(404);
    expect((await api.request('DELETE', '/api/instances/d1')).status).toBe(404);
    expect(await leaseBlobExists('d1')).toBe(false);
    expect((await api.request('GET', '/api/instances?subject=queue:errands')).body.items).toEqual([]);
    const offered = await runOperation('POST', '/api/triggers', { name: 'Triage', subjects: ['queue:errands'] });
    expect(offered).toMatchObject({ candidates: 0 });
    expect((await api.request('DELETE', '/api/instances/d1?force=maybe')).status).toBe(400);
  });

  it('a workflow with instances refuses deletion (409); without, 204 and every version is gone', async () => {
    await api.request('PUT', '/api/workflows/temp', { json: { ...v1, id: 'temp' } });
    await api.request('POST', '/api/instances', { json: { workflowId: 'temp', instanceId: 'w1' } });
    expect((await api.request('DELETE', '/api/workflows/temp')).status).toBe(409);
    expect((await api.request('DELETE', '/api/instances/w1?force=true')).status).toBe(204);
    expect((await api.request('DELETE', '/api/workflows/temp')).status).toBe(204);
    expect((await api.request('GET', '/api/workflows/temp')).status).toBe(404);
    expect((await api.request('GET', '/api/workflows/temp/versions/1')).status).toBe(404);
    expect((await api.request('DELETE', '/api/workflows/temp')).status).toBe(404);
  });
});

describe('retention', () => {
  it('is off unless SIGNALBOX_RETENTION_DAYS is a positive number', () => {
    expect(retentionDays({})).toBeUndefined();
    expect(retentionDays({ SIGNALBOX_RETENTION_DAYS: '' })).toBeUndefined();
    expect(retentionDays({ SIGNALBOX_RETENTION_DAYS: 'soon' })).toBeUndefined();
    expect(retentionDays({ SIGNALBOX_RETENTION_DAYS: '0' })).toBeUndefined();
    expect(retentionDays({ SIGNALBOX_RETENTION_DAYS: '30' })).toBe(30);
  });

  it('purges complete and cancelled instances older than the period, and leaves the rest', async () => {
    await api.request('PUT', '/api/workflows/kept', { json: { ...v1, id: 'kept' } });
    for (const id of ['r-done', 'r-cancelled', 'r-waiting']) await api.request('POST', '/api/instances', { json: { workflowId: 'kept', instanceId: id } });
    await send('r-done', 'Triage');
    await send('r-done', 'Close');
    await api.request('POST', '/api/instances/r-cancelled/cancel');
    const services = host.core.servicesFor(host.runner);

    // Nothing is old enough yet: a 1-day period, now.
    for (const operation of await purgeFinishedInstances(services, 1, new Date())) await api.waitForOperation(operation.id);
    expect((await api.request('GET', '/api/instances/r-done')).status).toBe(200);

    // Two days on, they are.
    const operations = await purgeFinishedInstances(services, 1, new Date(Date.now() + 2 * 86_400_000));
    const finished = await Promise.all(operations.map(async (operation) => (await api.waitForOperation(operation.id)).body));
    expect(finished.every((operation) => operation.status === 'succeeded')).toBe(true);
    expect((await api.request('GET', '/api/instances/r-done')).status).toBe(404);
    expect((await api.request('GET', '/api/instances/r-cancelled')).status).toBe(404);
    expect((await api.request('GET', '/api/instances/r-waiting')).status).toBe(200);
  });
});
