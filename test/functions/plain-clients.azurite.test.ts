/**
 * Plain HTTP clients on the Functions app (decision 0019), through the host's routing rules: the HTTP
 * functions functions/http.ts registers (captured from @azure/functions-core), chosen as the host chooses
 * them (test/support/functions-host-router.ts), over a HostCore on the Azurite jest starts. A bodyless
 * POST or DELETE sent as curl sends it (no Origin, no Sec-Fetch-*, no content type, no custom header)
 * changes what it asks to, the tenants' DELETE included; what a page on another origin sends does not.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import type { HttpHandler } from '@azure/functions';
import { setHostCore, tenantAdministration } from '../../functions/app-services';
import { createAzurePorts } from '../../src/host/azure-ports';
import { createHostCore } from '../../src/host/host-services';
import { silentLogger } from '../../src/host/local/logger';
import { createTableClient, prefixedStorageNames, TableTenantRegistry, tenantRegistryTable } from '../../src/storage';
import { resolveStorageConnection } from '../../src/host/storage-connection';
import { callAsHost, type RegisteredFunction } from '../support/functions-host-router';
import { durableInvocationContext } from '../support/invocation-context';
import { testConnectionString, uniquePrefix } from '../support/storage';

const prefix = uniquePrefix('fnplain');
const curl = { 'user-agent': 'curl/8.5.0', accept: '*/*' };
const door = {
  id: 'door',
  displayName: 'Door',
  initialStateId: 'open',
  states: { open: { transitions: [{ id: 'shut', targetStateId: 'shut', conditions: [{ type: 'triggerName', name: 'Shut' }] }] }, shut: {} },
};
const savedEnv = { storage: process.env.SIGNALBOX_STORAGE, prefix: process.env.SIGNALBOX_STORAGE_PREFIX };

const registrations = () => (jest.requireMock('@azure/functions-core') as { registerFunction: jest.Mock }).registerFunction.mock.calls as Array<[RegisteredFunction, HttpHandler]>;
const send = (method: string, path: string, headers: Record<string, string> = curl, body?: string) =>
  callAsHost(registrations(), () => durableInvocationContext('inv-plain'), { method, path, headers, ...(body !== undefined ? { body } : {}) });
const json = (answer: { body: string | undefined }) => JSON.parse(answer.body ?? 'null');

beforeAll(async () => {
  // Read by functions/http.ts and the tenants' services (app settings), before it loads.
  process.env.SIGNALBOX_STORAGE = testConnectionString();
  process.env.SIGNALBOX_STORAGE_PREFIX = prefix;
  process.env.SIGNALBOX_API_KEY_ROLES = 'Signalbox.Admin,Signalbox.TenantAdmin';
  process.env.SIGNALBOX_API_KEY_TENANTS = '*';
  require('../../functions/http');
  const env = { SIGNALBOX_STORAGE: testConnectionString() };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(prefix) });
  setHostCore(createHostCore({ ports, logger: silentLogger, env }));
  await new TableTenantRegistry(createTableClient(resolveStorageConnection(env), tenantRegistryTable(prefixedStorageNames(prefix)))).ensureTable();
  expect((await send('PUT', 'workflows/door', { ...curl, 'content-type': 'application/json' }, JSON.stringify(door))).status).toBe(201);
  for (const instanceId of ['fn-plain-1', 'fn-plain-2', 'fn-page-1']) {
    expect((await send('POST', 'instances', { ...curl, 'content-type': 'application/json' }, JSON.stringify({ workflowId: 'door', instanceId }))).status).toBe(201);
  }
});

afterAll(() => {
  setHostCore(undefined);
  for (const name of ['SIGNALBOX_API_KEY_ROLES', 'SIGNALBOX_API_KEY_TENANTS'] as const) delete process.env[name];
  if (savedEnv.storage === undefined) delete process.env.SIGNALBOX_STORAGE;
  else process.env.SIGNALBOX_STORAGE = savedEnv.storage;
  if (savedEnv.prefix === undefined) delete process.env.SIGNALBOX_STORAGE_PREFIX;
  else process.env.SIGNALBOX_STORAGE_PREFIX = savedEnv.prefix;
});

describe('a plain HTTP client on the Functions app', () => {
  it('suspends, resumes and cancels with a bodyless POST', async () => {
    for (const [action, status, functionName] of [
      ['suspend', 'suspended', 'suspendInstance'],
      ['resume', 'waiting', 'resumeInstance'],
      ['cancel', 'cancelled', 'cancelInstance'],
    ] as const) {
      const answer = await send('POST', `instances/fn-plain-1/${action}`);
      expect([answer.functionName, answer.status, json(answer).status]).toEqual([functionName, 200, status]);
    }
    expect(json(await send('GET', 'instances/fn-plain-1')).status).toBe('cancelled');
  });

  it('deletes an instance with a bodyless DELETE', async () => {
    const deleted = await send('DELETE', 'instances/fn-plain-2?force=true');
    expect([deleted.functionName, deleted.status]).toEqual(['deleteInstance', 204]);
    expect((await send('GET', 'instances/fn-plain-2')).status).toBe(404);
  });

  it('deletes a tenant with a bodyless DELETE', async () => {
    const tenantId = `p-${uniquePrefix('t').toLowerCase()}`;
    await tenantAdministration().create(tenantId, {});
    const deleting = await send('DELETE', `tenants/${tenantId}`);
    expect([deleting.functionName, deleting.status, json(deleting)]).toEqual(['deleteTenant', 202, expect.objectContaining({ kind: 'tenantDeletion', tenantId })]);
  });

  it('refuses what a page on another origin sends, and a form body from anywhere, and changes nothing', async () => {
    const attacks: Array<[Record<string, string>, string | undefined, number]> = [
      [{ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', origin: 'https://attacker.example', 'content-type': 'application/x-www-form-urlencoded' }, 'a=b', 403],
      [{ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', origin: 'https://attacker.example' }, undefined, 403],
      [{ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', origin: 'https://evil.signalbox.example' }, undefined, 403],
      [{ origin: 'null' }, undefined, 403],
      [{ origin: 'https://attacker.example', 'content-type': 'application/json' }, '{}', 403],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, 'a=b', 415],
    ];
    for (const [headers, body, status] of attacks) expect([headers, (await send('POST', 'instances/fn-page-1/suspend', { ...curl, ...headers }, body)).status]).toEqual([headers, status]);
    expect(json(await send('GET', 'instances/fn-page-1')).status).toBe('waiting');
    const sameOrigin = await send('POST', 'instances/fn-page-1/suspend', { ...curl, 'sec-fetch-site': 'same-origin', origin: 'https://signalbox.example' });
    expect([sameOrigin.status, json(sameOrigin).status]).toEqual([200, 'suspended']);
  });
});
