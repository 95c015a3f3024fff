/**
 * Tenants in the CLI (the real binary against a real local server): `signalbox tenants create|list|show|delete`,
 * and `--tenant` / SIGNALBOX_TENANT scoping every other command to one tenant.
 */
import { startTestHost, type TestHost } from '../support/local-host';
import { uniquePrefix } from '../support/storage';
import { signalbox } from './run-signalbox';

let test: TestHost;
let env: Record<string, string>;
const tenant = `cli-${uniquePrefix('t').toLowerCase()}`;

beforeAll(async () => {
  test = await startTestHost('tenantcli');
  env = { SIGNALBOX_URL: `${test.host.url}/api` };
}, 120_000);
afterAll(async () => {
  await test?.host.stop();
});

describe('signalbox tenants', () => {
  it('creates a tenant, scopes commands to it with --tenant and SIGNALBOX_TENANT, lists, shows and deletes it', async () => {
    const created = await signalbox(['tenants', 'create', tenant], { env });
    expect(created).toMatchObject({ exitCode: 0 });
    expect(created.stdout).toContain(`${tenant}: created, ready`);
    expect((await signalbox(['tenants', 'create', tenant], { env })).stdout).toContain('exists already');

    expect((await signalbox(['--tenant', tenant, 'push', 'examples/counter.json'], { env })).exitCode).toBe(0);
    const inTenant = await signalbox(['--json', 'tenants', 'show', tenant], { env });
    expect(JSON.parse(inTenant.stdout)).toMatchObject({ id: tenant });
    // The workflow is in the tenant, not in the default tenant.
    expect((await test.api.request('GET', `/api/tenants/${tenant}/workflows/counter`)).status).toBe(200);
    expect((await test.api.request('GET', '/api/workflows/counter')).status).toBe(404);
    const started = await signalbox(['--json', 'start', 'counter', '--id', 'c1'], { env: { ...env, SIGNALBOX_TENANT: tenant } });
    expect(started.exitCode).toBe(0);
    expect((await test.api.request('GET', `/api/tenants/${tenant}/instances/c1`)).status).toBe(200);

    const listed = await signalbox(['--json', 'tenants', 'list'], { env });
    expect(JSON.parse(listed.stdout).map((each: { id: string }) => each.id)).toEqual(expect.arrayContaining(['default', tenant]));

    const deleted = await signalbox(['tenants', 'delete', tenant], { env });
    expect(deleted.exitCode).toBe(0);
    expect(deleted.stdout).toContain('deletion running');
    expect((await signalbox(['tenants', 'delete', 'default'], { env })).exitCode).toBe(3);
  }, 180_000);

  it('creates a tenant with quotas and an account of its own; refuses a setting that is not set, naming the field', async () => {
    const other = `cliq-${uniquePrefix('t').toLowerCase()}`;
    const refused = await signalbox(['tenants', 'create', other, '--connection-setting', 'SIGNALBOX_TENANT_STORAGE_NOT_SET'], { env });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('storage.connectionSetting');
    expect((await test.api.request('GET', `/api/tenants/${other}`)).status).toBe(404);
    expect((await signalbox(['tenants', 'create', other, '--quota', 'triggersPerSecond'], { env })).stderr).toContain('--quota takes name=number');
    const both = await signalbox(['tenants', 'create', other, '--connection-setting', 'SIGNALBOX_TENANT_STORAGE_X', '--table-service-uri', 'https://x.table.core.windows.net'], { env });
    expect(both.exitCode).not.toBe(0);
    expect(both.stderr).toContain('cannot be used with');

    const created = await signalbox(['--json', 'tenants', 'create', other, '--quota', 'triggersPerSecond=20', '--quota', 'instancesAlive=50'], { env });
    expect(created.exitCode).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ id: other, created: true, quotas: { triggersPerSecond: 20, instancesAlive: 50 } });
    expect((await test.api.request('GET', `/api/tenants/${other}`)).body.quotas).toEqual({ triggersPerSecond: 20, instancesAlive: 50 });
  }, 120_000);
});
