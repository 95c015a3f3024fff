/**
 * Plain HTTP clients on the local server (decision 0019), over real loopback HTTP: what curl,
 * PowerShell's Invoke-RestMethod or Postman send (no Origin, no Sec-Fetch-*, no content type on a bodyless
 * request, no custom header) changes what it asks to, on the default tenant's routes and the deployment's
 * tenant routes. A browser page on a CORS origin may too; the same page elsewhere may not.
 * test/seams/isolation-and-secrets.test.ts crosses every state-changing route with the attacks.
 */
import { startTestHost, type TestHost } from '../support/local-host';
import { curlHeaders, rawRequest } from '../support/raw-http';
import { uniquePrefix } from '../support/storage';
import { pollUntil } from '../support/tenant-storage';

const corsOrigin = 'https://console.example.com';
const door = {
  id: 'door',
  displayName: 'Door',
  initialStateId: 'open',
  states: { open: { transitions: [{ id: 'shut', targetStateId: 'shut', conditions: [{ type: 'triggerName', name: 'Shut' }] }] }, shut: {} },
};
let test: TestHost;
let curl: Record<string, string>;
const send = (method: string, path: string, headers: Record<string, string> = {}, body?: string) => rawRequest(test.host.url, method, path, { ...curl, ...headers }, body);
const statusOf = async (instanceId: string) => (await test.api.request('GET', `/api/instances/${instanceId}`)).body?.status;

beforeAll(async () => {
  test = await startTestHost('plainclients', {
    env: { SIGNALBOX_API_KEY_ROLES: 'Signalbox.Admin,Signalbox.TenantAdmin', SIGNALBOX_API_KEY_TENANTS: '*', SIGNALBOX_CORS_ALLOWED_ORIGINS: corsOrigin },
  });
  curl = curlHeaders(test.host.url);
  expect((await test.api.request('PUT', '/api/workflows/door', { json: door })).status).toBe(201);
  for (const instanceId of ['plain-1', 'plain-2', 'plain-3']) expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'door', instanceId } })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await test?.host.stop();
});

describe('a plain HTTP client on the local server', () => {
  it('suspends, resumes and cancels with a bodyless POST (curl -X POST)', async () => {
    const suspended = await send('POST', '/api/instances/plain-1/suspend');
    expect([suspended.status, JSON.parse(suspended.text).status]).toEqual([200, 'suspended']);
    const resumed = await send('POST', '/api/instances/plain-1/resume');
    expect([resumed.status, JSON.parse(resumed.text).status]).toEqual([200, 'waiting']);
    const cancelled = await send('POST', '/api/instances/plain-1/cancel');
    expect([cancelled.status, JSON.parse(cancelled.text).status]).toEqual([200, 'cancelled']);
    expect(await statusOf('plain-1')).toBe('cancelled');
  });

  it('deletes an instance with a bodyless DELETE (curl -X DELETE)', async () => {
    const deleted = await send('DELETE', '/api/instances/plain-2?force=true');
    expect(deleted.status).toBe(204);
    expect((await test.api.request('GET', '/api/instances/plain-2')).status).toBe(404);
  });

  it("sends a JSON body with only curl's -H 'content-type: application/json'", async () => {
    const sent = await send('POST', '/api/instances/plain-3/triggers', { 'content-type': 'application/json', prefer: 'wait=10' }, JSON.stringify({ name: 'Shut' }));
    expect(sent.status).toBe(200);
    const instance = (await test.api.request('GET', '/api/instances/plain-3')).body;
    expect([instance.stateId, instance.status]).toEqual(['shut', 'complete']);
  });

  it('creates and deletes a tenant with a bodyless DELETE', async () => {
    const tenantId = `p-${uniquePrefix('t').toLowerCase()}`;
    expect((await send('PUT', `/api/tenants/${tenantId}`, { 'content-type': 'application/json' }, '{}')).status).toBe(201);
    const deleting = await send('DELETE', `/api/tenants/${tenantId}`);
    expect([deleting.status, JSON.parse(deleting.text)]).toEqual([202, expect.objectContaining({ kind: 'tenantDeletion', tenantId })]);
    expect((await pollUntil(test.api, `/api/tenants/${tenantId}`, (result) => result.status === 404)).status).toBe(404);
  });

  it('refuses a bodyless request with a body that is not JSON (415), and changes nothing', async () => {
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'door', instanceId: 'plain-4' } })).status).toBe(201);
    const form = await send('POST', '/api/instances/plain-4/cancel', { 'content-type': 'application/x-www-form-urlencoded' }, 'confirm=yes');
    expect([form.status, JSON.parse(form.text).detail]).toEqual([415, expect.stringContaining('application/x-www-form-urlencoded')]);
    expect(await statusOf('plain-4')).toBe('waiting');
  });
});

describe('a browser page, by what its browser says', () => {
  it('may change things from a CORS origin (the browser says cross-site), and not from another origin', async () => {
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'door', instanceId: 'page-1' } })).status).toBe(201);
    const refused = await send('POST', '/api/instances/page-1/suspend', { origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' });
    expect([refused.status, JSON.parse(refused.text).detail]).toEqual([403, expect.stringContaining('Sec-Fetch-Site: cross-site')]);
    expect(await statusOf('page-1')).toBe('waiting');
    const allowed = await send('POST', '/api/instances/page-1/suspend', { origin: corsOrigin, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' });
    expect([allowed.status, JSON.parse(allowed.text).status]).toEqual([200, 'suspended']);
  });
});
