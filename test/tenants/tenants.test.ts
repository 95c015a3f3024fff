/**
 * Tenants on the local server over HTTP, on Azurite: two tenants with the same workflow and instance ids
 * run side by side (raised triggers, children and timers each in its own tenant) with no table or container
 * shared; a tenant the caller may not use answers exactly as one that does not exist; deleting one tenant
 * removes all of its storage and leaves the other bit-for-bit as it was.
 */
import { TableClient, TableServiceClient } from '@azure/data-tables';
import { BlobServiceClient } from '@azure/storage-blob';
import { expandDevelopmentStorage } from '../../src/storage/connection';
import { tenantRegistryTable, tenantStorageNames } from '../../src/storage/names';
import { checkTenantStorage, tenantContainerNames, tenantTableNames } from '../../src/storage/tenant-storage';
import { httpClient } from '../host/http-client';
import { startTestHost, type TestHost } from '../support/local-host';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { dumpTenantStorage, pollUntil, tenantOrderWorkflow, tenantParcelWorkflow } from '../support/tenant-storage';

const order = tenantOrderWorkflow();
const parcel = tenantParcelWorkflow();

let issuer: LocalIssuer;
let test: TestHost;
let api: ReturnType<typeof httpClient>;
const tenantA = `a-${uniquePrefix('t').toLowerCase()}`;
const tenantB = `b-${uniquePrefix('t').toLowerCase()}`;
const entraTenantOfB = '7d1f0d3e-0000-4000-8000-00000000000b';

beforeAll(async () => {
  issuer = await startLocalIssuer({ audience: 'api://signalbox' });
  test = await startTestHost('tenants', {
    env: {
      SIGNALBOX_AUTH_ISSUERS: issuer.issuer,
      SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox',
      SIGNALBOX_API_KEY: 'the-key',
      SIGNALBOX_API_KEY_ROLES: 'Signalbox.Admin,Signalbox.TenantAdmin',
      SIGNALBOX_API_KEY_TENANTS: '*',
      SIGNALBOX_AUTH_TENANT_MAP: `${entraTenantOfB}=${tenantB}`,
    },
  });
  api = httpClient(test.host.url, { 'x-functions-key': 'the-key' });
}, 120_000);

afterAll(async () => {
  await test?.host.stop();
  await issuer?.close();
});

describe('tenants side by side', () => {
  it('creates a tenant ready to use (201), idempotently (200), and measures it', async () => {
    const started = performance.now();
    const created = await api.request('PUT', `/api/tenants/${tenantA}`, { json: {} });
    const onboardingInMs = performance.now() - started;
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: tenantA });
    // Ready when it answers: its routes work at once.
    expect((await api.request('GET', `/api/tenants/${tenantA}/workflows`)).status).toBe(200);
    expect((await api.request('PUT', `/api/tenants/${tenantA}`, { json: {} })).status).toBe(200);
    expect((await api.request('PUT', `/api/tenants/${tenantB}`, { json: {} })).status).toBe(201);
    const listed = await api.request('GET', '/api/tenants');
    expect(listed.body.items.map((tenant: { id: string }) => tenant.id)).toEqual(expect.arrayContaining(['default', tenantA, tenantB]));
    console.log(`onboarding a tenant on Azurite: ${Math.round(onboardingInMs)} ms`);
  });

  it('refuses a bad tenant id naming the field, and creates nothing', async () => {
    const response = await api.request('PUT', '/api/tenants/Not_A_Tenant', { json: {} });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { path: string }) => error.path)).toContain('tenantId');
    expect((await api.request('GET', '/api/tenants/Not_A_Tenant')).status).toBe(400);
  });

  it('runs the same workflow and instance ids in two tenants: raised triggers, children and timers stay in their tenant', async () => {
    for (const tenant of [tenantA, tenantB]) {
      const put = await api.request('PUT', `/api/tenants/${tenant}/workflows/order`, { json: order });
      if (put.status !== 201) throw new Error(put.text);
      expect((await api.request('PUT', `/api/tenants/${tenant}/workflows/parcel`, { json: parcel })).status).toBe(201);
      expect((await api.request('POST', `/api/tenants/${tenant}/instances`, { json: { workflowId: 'order', instanceId: 'o1' } })).status).toBe(201);
    }
    // Only tenant A is sent Go: tenant B's o1 (same id) must not move.
    const sent = await api.request('POST', `/api/tenants/${tenantA}/triggers`, { json: { id: 'go-1', name: 'Go', subjects: ['o1'] }, headers: { prefer: 'wait=10' } });
    expect(sent.status).toBe(200);
    const done = await pollUntil(api, `/api/tenants/${tenantA}/instances/o1`, (result) => result.body?.stateId === 'done');
    expect(done.body.stateId).toBe('done');
    expect((await api.request('GET', `/api/tenants/${tenantA}/instances/o1-parcel`)).status).toBe(200);

    expect((await api.request('GET', `/api/tenants/${tenantB}/instances/o1`)).body.stateId).toBe('open');
    expect((await api.request('GET', `/api/tenants/${tenantB}/instances/o1-parcel`)).status).toBe(404);
    expect((await api.request('GET', `/api/tenants/${tenantB}/operations/go-1`)).status).toBe(404);
    // The default tenant has none of it.
    expect((await api.request('GET', '/api/instances/o1')).status).toBe(404);
    expect((await api.request('GET', '/api/workflows/order')).status).toBe(404);

    // Now B, with the same trigger id: its own operation, its own child, its own timer.
    expect((await api.request('POST', `/api/tenants/${tenantB}/triggers`, { json: { id: 'go-1', name: 'Go', subjects: ['o1'] } })).status).toBe(202);
    expect((await pollUntil(api, `/api/tenants/${tenantB}/instances/o1`, (result) => result.body?.stateId === 'done')).body.stateId).toBe('done');
    expect((await api.request('GET', `/api/tenants/${tenantB}/instances/o1-parcel`)).status).toBe(200);
    const historyA = await api.request('GET', `/api/tenants/${tenantA}/instances/o1/history`);
    const historyB = await api.request('GET', `/api/tenants/${tenantB}/instances/o1/history`);
    expect(historyA.body.items.map((entry: { toStateId: string }) => entry.toStateId)).toEqual(historyB.body.items.map((entry: { toStateId: string }) => entry.toStateId));
  }, 120_000);

  it('shares no table or container: each tenant has its own, and the default tenant keeps its names', async () => {
    const base = test.storageNames;
    const names = [base, tenantStorageNames(tenantA, base), tenantStorageNames(tenantB, base)];
    const service = TableServiceClient.fromConnectionString(expandDevelopmentStorage(testConnectionString()), { allowInsecureConnection: true });
    const existing = new Set<string>();
    for await (const table of service.listTables()) existing.add(table.name!);
    const all = names.flatMap(tenantTableNames);
    expect(new Set(all).size).toBe(all.length);
    for (const table of all) expect([table, existing.has(table)]).toEqual([table, true]);
    expect(existing.has(tenantRegistryTable(base))).toBe(true);
    const containers = names.flatMap(tenantContainerNames);
    expect(new Set(containers).size).toBe(6);
    const blobService = BlobServiceClient.fromConnectionString(expandDevelopmentStorage(testConnectionString()));
    for (const container of containers) expect(await blobService.getContainerClient(container).exists()).toBe(true);
    // Tenant A's o1 is in A's instances table only, B's in B's.
    const connection = expandDevelopmentStorage(testConnectionString());
    const rowsOf = async (table: string) => {
      const keys: string[] = [];
      for await (const entity of TableClient.fromConnectionString(connection, table, { allowInsecureConnection: true }).listEntities()) keys.push(entity.partitionKey!);
      return keys;
    };
    expect(await rowsOf(base.instancesTable)).toEqual([]);
    expect((await rowsOf(names[1]!.instancesTable)).length).toBeGreaterThan(0);
  });
});

describe('tenant access', () => {
  it('answers a tenant the caller may not use exactly as one that does not exist: 404, the same body', async () => {
    const token = await issuer.mint({ roles: ['Signalbox.Reader'], tenants: [tenantA] });
    const asA = httpClient(test.host.url, { authorization: `Bearer ${token}` });
    expect((await asA.request('GET', `/api/tenants/${tenantA}/instances/o1`)).status).toBe(200);
    const foreign = await asA.request('GET', `/api/tenants/${tenantB}/instances/o1`);
    const missing = await asA.request('GET', '/api/tenants/no-such-tenant/instances/o1');
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    // Not the default tenant either: the token names its tenants.
    expect((await asA.request('GET', '/api/workflows')).text).toBe(missing.text);
    // Nor the admin API (its own role).
    expect((await asA.request('GET', '/api/tenants')).status).toBe(403);
    expect((await asA.request('GET', `/api/tenants/${tenantA}/me`)).body.tenants).toEqual([tenantA]);
  });

  it('grants tenants by app role (Signalbox.Tenant.<id>) and by a mapped Entra tid; a token naming no tenant uses the default one', async () => {
    const byRole = httpClient(test.host.url, { authorization: `Bearer ${await issuer.mint({ roles: ['Signalbox.Reader', `Signalbox.Tenant.${tenantB}`] })}` });
    expect((await byRole.request('GET', `/api/tenants/${tenantB}/instances/o1`)).status).toBe(200);
    expect((await byRole.request('GET', `/api/tenants/${tenantA}/instances/o1`)).status).toBe(404);
    const byTid = httpClient(test.host.url, { authorization: `Bearer ${await issuer.mint({ roles: ['Signalbox.Reader'], tid: entraTenantOfB })}` });
    expect((await byTid.request('GET', `/api/tenants/${tenantB}/instances/o1`)).status).toBe(200);
    expect((await byTid.request('GET', '/api/workflows')).status).toBe(404);
    const plain = httpClient(test.host.url, { authorization: `Bearer ${await issuer.mint({ roles: ['Signalbox.Reader'] })}` });
    expect((await plain.request('GET', '/api/workflows')).status).toBe(200);
    expect((await plain.request('GET', `/api/tenants/${tenantA}/workflows`)).status).toBe(404);
    expect((await plain.request('GET', '/api/me')).body.tenants).toEqual(['default']);
  });
});

describe('deleting a tenant', () => {
  it('refuses to delete the default tenant', async () => {
    expect((await api.request('DELETE', '/api/tenants/default')).status).toBe(400);
  });

  it('removes every table, container, row, blob and lease of A, proves it, and leaves B bit-for-bit unchanged', async () => {
    const base = test.storageNames;
    const namesA = tenantStorageNames(tenantA, base);
    const namesB = tenantStorageNames(tenantB, base);
    const before = await dumpTenantStorage(namesB);
    const defaultBefore = await dumpTenantStorage(base);
    const deleting = await api.request('DELETE', `/api/tenants/${tenantA}`);
    expect(deleting.status).toBe(202);
    expect(deleting.body).toMatchObject({ kind: 'tenantDeletion', tenantId: tenantA, status: 'running' });
    expect(deleting.headers.get('location')).toBe(`/api/tenants/${tenantA}`);
    // It serves nothing from the moment it is marked.
    expect((await api.request('GET', `/api/tenants/${tenantA}/instances/o1`)).status).toBe(404);
    expect((await pollUntil(api, `/api/tenants/${tenantA}`, (result) => result.status === 404)).status).toBe(404);
    const check = await checkTenantStorage({ kind: 'connectionString', connectionString: expandDevelopmentStorage(testConnectionString()) }, namesA);
    expect(check).toHaveLength(9); // seven tables (the flow table among them), the lease container and the context container;
    expect(check.filter((resource) => resource.exists)).toEqual([]);
    expect(await dumpTenantStorage(namesB)).toEqual(before);
    expect(await dumpTenantStorage(base)).toEqual(defaultBefore);
    // The id can be created again, empty.
    expect((await api.request('PUT', `/api/tenants/${tenantA}`, { json: {} })).status).toBe(201);
    expect((await api.request('GET', `/api/tenants/${tenantA}/instances/o1`)).status).toBe(404);
  }, 120_000);
});
