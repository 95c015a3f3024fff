/**
 * A tenant in a storage account of its own, named by the app setting that holds its connection string
 * (`storage.connectionSetting`): over HTTP on the local server, with a second Azurite as the tenant's
 * account. Its data lives there and nowhere in the deployment's account; its record and every answer show
 * the setting's name, never the connection string; a name outside the SIGNALBOX_TENANT_STORAGE_ family, or
 * a setting that is not set, is refused naming the field and registers nothing; deleting the tenant removes
 * its storage from its own account.
 */
import { startAzurite, type RunningAzurite } from '../../src/host/local/azurite';
import { expandDevelopmentStorage, type StorageConnection } from '../../src/storage/connection';
import { tenantStorageNames } from '../../src/storage/names';
import { checkTenantStorage } from '../../src/storage/tenant-storage';
import { startTestHost, type TestHost } from '../support/local-host';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { pollUntil, tenantOrderWorkflow } from '../support/tenant-storage';

const tenant = `own-${uniquePrefix('t').toLowerCase()}`;
const SETTING = 'SIGNALBOX_TENANT_STORAGE_OWN';

let ownAccount: RunningAzurite;
let test: TestHost;

const deploymentAccount = (): StorageConnection => ({ kind: 'connectionString', connectionString: expandDevelopmentStorage(testConnectionString()) });
const tenantAccount = (): StorageConnection => ({ kind: 'connectionString', connectionString: ownAccount.connectionString });

beforeAll(async () => {
  ownAccount = await startAzurite();
  test = await startTestHost('ownaccount', { env: { [SETTING]: ownAccount.connectionString, SIGNALBOX_TENANT_STORAGE_UNSET: '' } });
}, 120_000);

afterAll(async () => {
  await test?.host.stop();
  await ownAccount?.stop();
});

describe('a tenant in an account of its own, by connection setting', () => {
  it('refuses a setting outside the family, and one that is not set, naming the field; registers nothing', async () => {
    for (const connectionSetting of ['AzureWebJobsStorage', 'SIGNALBOX_API_KEY', 'signalbox_tenant_storage_own', 'SIGNALBOX_TENANT_STORAGE_UNSET']) {
      const refused = await test.api.request('PUT', `/api/tenants/${tenant}`, { json: { storage: { connectionSetting } } });
      expect(refused.status).toBe(400);
      expect(refused.body.errors.map((error: { path: string }) => error.path)).toContain('storage.connectionSetting');
      expect((await test.api.request('GET', `/api/tenants/${tenant}`)).status).toBe(404);
    }
    const both = await test.api.request('PUT', `/api/tenants/${tenant}`, { json: { storage: { connectionSetting: SETTING, tableServiceUri: 'https://x.table.core.windows.net' } } });
    expect(both.status).toBe(400);
    const neither = await test.api.request('PUT', `/api/tenants/${tenant}`, { json: { storage: {} } });
    expect(neither.status).toBe(400);
    expect(neither.text).toContain('connectionSetting');
  });

  it('keeps the tenant’s data in its own account only, and shows the setting’s name, never its value', async () => {
    const created = await test.api.request('PUT', `/api/tenants/${tenant}`, { json: { storage: { connectionSetting: SETTING } } });
    expect(created.status).toBe(201);
    expect(created.body.storage).toEqual({ connectionSetting: SETTING });
    expect((await test.api.request('PUT', `/api/tenants/${tenant}/workflows/order`, { json: tenantOrderWorkflow() })).status).toBe(201);
    expect((await test.api.request('POST', `/api/tenants/${tenant}/instances`, { json: { workflowId: 'order', instanceId: 'o1' } })).status).toBe(201);
    const sent = await test.api.request('POST', `/api/tenants/${tenant}/triggers`, { json: { name: 'Go', subjects: ['o1'] }, headers: { prefer: 'wait=10' } });
    expect(sent.status).toBe(200);

    const names = tenantStorageNames(tenant, test.storageNames);
    const inOwnAccount = await checkTenantStorage(tenantAccount(), names);
    expect(inOwnAccount.filter((resource) => !resource.exists)).toEqual([]);
    expect((await checkTenantStorage(deploymentAccount(), names)).filter((resource) => resource.exists)).toEqual([]);

    const answers = [created, await test.api.request('GET', `/api/tenants/${tenant}`), await test.api.request('GET', '/api/tenants')];
    for (const answer of answers) {
      expect(answer.text).toContain(SETTING);
      expect(answer.text).not.toContain('AccountKey');
      expect(answer.text).not.toContain(String(ownAccount.blobPort));
    }
  }, 60_000);

  it('deletes the tenant’s storage from its own account and proves it gone', async () => {
    expect((await test.api.request('DELETE', `/api/tenants/${tenant}`)).status).toBe(202);
    expect((await pollUntil(test.api, `/api/tenants/${tenant}`, (result) => result.status === 404)).status).toBe(404);
    const left = await checkTenantStorage(tenantAccount(), tenantStorageNames(tenant, test.storageNames));
    expect(left.length).toBeGreaterThan(0);
    expect(left.filter((resource) => resource.exists)).toEqual([]);
  }, 120_000);
});
