/**
 * A client cannot send an internal trigger to the Functions app either (issue 42): the HTTP functions
 * registered by functions/http.ts (captured from @azure/functions-core), over a HostCore on the Azurite jest
 * starts, refuse a trigger body carrying any field the engine keeps for itself, 400 naming the field, on
 * both trigger routes, before anything is recorded or dispatched (no operation, the instance not moved).
 * The local server's twin: test/host/internal-trigger-fields.test.ts.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { HttpRequest, type HttpHandler, type HttpResponseInit } from '@azure/functions';
import { setHostCore } from '../../functions/app-services';
import { createAzurePorts } from '../../src/host/azure-ports';
import { silentLogger } from '../../src/host/local/logger';
import { createHostCore } from '../../src/host/host-services';
import { prefixedStorageNames } from '../../src/storage/names';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { durableInvocationContext } from '../support/invocation-context';
import { internalTriggerFields, timedWorkflow } from '../support/internal-trigger-fields';

const registered = () => (jest.requireMock('@azure/functions-core') as { registerFunction: jest.Mock }).registerFunction.mock.calls as Array<[{ name: string }, HttpHandler]>;

/** Calls the function registered as `name`, with the route parameters the host would bind. */
async function call(
  name: string,
  method: string,
  path: string,
  options: { params?: Record<string, string>; json?: unknown } = {},
): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const handler = registered().find(([metadata]) => metadata.name === name)?.[1];
  if (!handler) throw new Error(`no function ${name}`);
  const request = new HttpRequest({
    method,
    url: `https://signalbox.example/api/${path}`,
    headers: options.json !== undefined ? { 'content-type': 'application/json' } : {},
    params: options.params ?? {},
    ...(options.json !== undefined ? { body: { string: JSON.stringify(options.json) } } : {}),
  });
  const response = (await handler(request, durableInvocationContext('inv-internal-fields'))) as HttpResponseInit;
  const headers = Object.fromEntries(Object.entries((response.headers ?? {}) as Record<string, string>).map(([key, value]) => [key.toLowerCase(), value]));
  return { status: response.status ?? 200, headers, body: typeof response.body === 'string' ? JSON.parse(response.body) : undefined };
}

beforeAll(async () => {
  require('../../functions/http');
  const env = { SIGNALBOX_STORAGE: testConnectionString() };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(uniquePrefix('fnforged')) });
  setHostCore(createHostCore({ ports, logger: silentLogger, env }));
  expect((await call('putWorkflow', 'PUT', 'workflows/timed', { params: { workflowId: 'timed' }, json: timedWorkflow('timed') })).status).toBe(201);
  expect((await call('createInstance', 'POST', 'instances', { json: { workflowId: 'timed', instanceId: 'i1' } })).status).toBe(201);
});

afterAll(() => setHostCore(undefined));

describe.each([
  ['sendTrigger', 'triggers', {}, { subjects: ['i1'] }],
  ['sendInstanceTrigger', 'instances/i1/triggers', { instanceId: 'i1' }, {}],
])('%s on the Functions app', (name, path, params, addressing) => {
  it.each(internalTriggerFields)('refuses a body with "%s", naming it, and records nothing', async (field, value) => {
    const id = `forged-${field}`;
    const response = await call(name, 'POST', path, { params, json: { id, name: 'timer', ...addressing, [field]: value } });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.body.errors).toContainEqual(expect.objectContaining({ path: field }));
    expect((await call('getOperation', 'GET', `operations/${id}`, { params: { operationId: id } })).status).toBe(404);
    // No forged timer chose the timer transition.
    expect((await call('getInstance', 'GET', 'instances/i1', { params: { instanceId: 'i1' } })).body).toMatchObject({ stateId: 'waiting', status: 'waiting' });
  });
});
