/**
 * The console's API client against a real HTTP server on loopback: the key header, the query strings it
 * builds, and every failure turned into an ApiError holding the problem+json.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, asProblem } from '../../console/src/api/api-error';
import { createHttpConsoleApi } from '../../console/src/api/console-api';

interface Seen {
  contentType: string | undefined;
  method: string;
  url: string;
  key: string | undefined;
  authorization: string | undefined;
  body: string;
}

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
let answer: (request: IncomingMessage) => { status: number; type?: string; body: string };

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        contentType: request.headers['content-type'],
        method: request.method!,
        url: request.url!,
        key: request.headers['x-functions-key'] as string | undefined,
        authorization: request.headers.authorization,
        body: Buffer.concat(chunks).toString(),
      });
      const { status, type, body } = answer(request);
      response.writeHead(status, { 'content-type': type ?? 'application/json' });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  seen.length = 0;
  answer = () => ({ status: 200, body: '{"items":[]}' });
});

it('sends the key as x-functions-key once one is set, read on every call', async () => {
  let key: string | undefined;
  const api = createHttpConsoleApi({ baseUrl, apiKey: () => key });
  await api.listWorkflows();
  key = 'k-1';
  await api.listWorkflows();
  expect(seen.map((request) => request.key)).toEqual([undefined, 'k-1']);
});

it("sends the signed-in user's access token as Authorization: Bearer, read on every call, instead of the key", async () => {
  let token: string | undefined;
  const api = createHttpConsoleApi({ baseUrl, apiKey: () => 'k-1', accessToken: () => token });
  await api.listWorkflows();
  token = 'eyJ.token.sig';
  await api.listWorkflows();
  expect(seen.map(({ key, authorization }) => ({ key, authorization }))).toEqual([
    { key: 'k-1', authorization: undefined },
    { key: undefined, authorization: 'Bearer eyJ.token.sig' },
  ]);
});

it('reads the sign-in settings anonymously and refuses an answer that is not a console configuration', async () => {
  answer = () => ({ status: 200, body: JSON.stringify({ signIn: { authority: 'https://login.example/t/v2.0', clientId: 'c', scope: 'openid profile api://s/access' }, keys: false }) });
  const api = createHttpConsoleApi({ baseUrl, apiKey: () => 'k-1', accessToken: () => 'eyJ.token.sig' });
  expect(await api.getConsoleConfig()).toEqual({ signIn: { authority: 'https://login.example/t/v2.0', clientId: 'c', scope: 'openid profile api://s/access' }, keys: false });
  expect(seen.at(-1)).toMatchObject({ url: '/api/console-config', key: undefined, authorization: undefined });
  answer = () => ({ status: 200, body: JSON.stringify({ signIn: { authority: 'javascript:alert(1)', clientId: 'c', scope: 's' }, keys: false }) });
  await expect(api.getConsoleConfig()).rejects.toThrow(/signIn.authority/);
  answer = () => ({ status: 200, body: JSON.stringify({ keys: 'yes' }) });
  await expect(api.getConsoleConfig()).rejects.toThrow(/keys/);
});

it('asks who the server takes the caller for', async () => {
  answer = () => ({ status: 200, body: JSON.stringify({ id: 'alice', name: 'Alice', roles: ['Signalbox.Sender'], via: 'token' }) });
  const api = createHttpConsoleApi({ baseUrl, apiKey: () => undefined, accessToken: () => 't' });
  expect(await api.whoAmI()).toEqual({ id: 'alice', name: 'Alice', roles: ['Signalbox.Sender'], via: 'token' });
  expect(seen.at(-1)?.url).toBe('/api/me');
});

it('builds query strings from the filter, leaving out what is empty, and encodes ids in paths', async () => {
  const api = createHttpConsoleApi({ baseUrl, apiKey: () => undefined });
  await api.listInstances({ workflowId: 'w', stateId: '', status: 'faulted', subject: 'claimant:ann' }, 'tok/1', 50);
  await api.getWorkflow('a b', 2);
  answer = () => ({ status: 200, type: 'text/plain', body: 'stateDiagram-v2\n' });
  expect(await api.getDiagram('w', { version: 3, instanceId: 'i/1' })).toBe('stateDiagram-v2\n');
  expect(seen.map((request) => request.url)).toEqual([
    '/api/instances?workflowId=w&status=faulted&subject=claimant%3Aann&continuationToken=tok%2F1&maxPageSize=50',
    '/api/workflows/a%20b?version=2',
    '/api/workflows/w/diagram?version=3&instanceId=i%2F1',
  ]);
  answer = () => ({ status: 200, body: '{"items":[]}' });
  await api.getEvents('i/1');
  expect(seen.at(-1)?.url).toBe('/api/instances/i%2F1/events');
  answer = () => ({ status: 202, body: '{"eventId":"i/1:2:created"}' });
  expect(await api.redeliverEvent('i/1', 'i/1:2:created')).toEqual({ eventId: 'i/1:2:created' });
  expect(`${seen.at(-1)?.method} ${seen.at(-1)?.url}`).toBe('POST /api/instances/i%2F1/events/i%2F1%3A2%3Acreated/redeliver');
});

it('posts triggers, dry runs, recover, cancel, suspend and resume with JSON bodies', async () => {
  const api = createHttpConsoleApi({ baseUrl, apiKey: () => undefined });
  answer = () => ({ status: 202, body: '{"operationId":"op-1","status":"notStarted","statusUrl":"/api/operations/op-1"}' });
  expect(await api.sendInstanceTrigger('c1', { name: 'Update', parameters: { amount: 1 } })).toMatchObject({ operationId: 'op-1' });
  answer = () => ({ status: 200, body: '{"instances":[]}' });
  await api.dryRunInstanceTrigger('c1', { name: 'Update' });
  await api.recoverInstance('c1', 'open');
  await api.cancelInstance('c1');
  await api.suspendInstance('c 1');
  await api.resumeInstance('c 1');
  expect(seen.map(({ method, url, body }) => `${method} ${url} ${body}`)).toEqual([
    'POST /api/instances/c1/triggers {"name":"Update","parameters":{"amount":1}}',
    'POST /api/instances/c1/triggers?dryRun=true {"name":"Update"}',
    'POST /api/instances/c1/recover {"stateId":"open"}',
    'POST /api/instances/c1/cancel ',
    'POST /api/instances/c%201/suspend ',
    'POST /api/instances/c%201/resume ',
  ]);
});

it('starts an instance and a bulk action with JSON bodies, typed as content-type: application/json', async () => {
  const api = createHttpConsoleApi({ baseUrl, apiKey: () => undefined });
  answer = () => ({ status: 201, body: '{"id":"c9"}' });
  expect(await api.createInstance({ workflowId: 'w', instanceId: 'c9', context: { a: 1 } })).toMatchObject({ id: 'c9' });
  answer = () => ({ status: 202, body: '{"operationId":"op-2","status":"notStarted","statusUrl":"/api/operations/op-2"}' });
  expect(await api.bulkInstances({ action: 'cancel', filter: { workflowId: 'w', status: 'faulted' } })).toMatchObject({ operationId: 'op-2' });
  expect(seen.map(({ method, url, body, contentType }) => `${method} ${url} ${contentType} ${body}`)).toEqual([
    'POST /api/instances application/json {"workflowId":"w","instanceId":"c9","context":{"a":1}}',
    'POST /api/instances/bulk application/json {"action":"cancel","filter":{"workflowId":"w","status":"faulted"}}',
  ]);
});

it('throws the problem+json the server answered with, errors included', async () => {
  const problem = { type: 'https://signalbox.dev/problems/invalid-request', title: 'Invalid request', status: 400, detail: 'The body is invalid', errors: [{ path: 'stateId', message: 'Required' }] };
  answer = () => ({ status: 400, type: 'application/problem+json', body: JSON.stringify(problem) });
  const api = createHttpConsoleApi({ baseUrl, apiKey: () => undefined });
  const error = await api.recoverInstance('c1', '').catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).problem).toEqual(problem);
  expect(asProblem(error)).toEqual(problem);
});

it('makes a problem of an answer that is not problem+json', async () => {
  answer = () => ({ status: 502, type: 'text/html', body: '<h1>Bad gateway</h1>' });
  const api = createHttpConsoleApi({ baseUrl, apiKey: () => undefined });
  const error = (await api.getInstance('c1').catch((thrown: unknown) => thrown)) as ApiError;
  expect(error.problem).toMatchObject({ status: 502, detail: '<h1>Bad gateway</h1>' });
});

it('reports a network failure as a problem with status 0', async () => {
  const api = createHttpConsoleApi({ baseUrl: 'http://127.0.0.1:1/api', apiKey: () => undefined });
  const problem = asProblem(await api.getInstance('c1').catch((thrown: unknown) => thrown));
  expect(problem).toMatchObject({ status: 0, title: 'The request did not complete' });
});

describe('tenants', () => {
  it("puts a tenant's calls below /api/tenants/{tenantId}/, and the default tenant's and the deployment's (who am I, the tenants) at /api/", async () => {
    const contoso = createHttpConsoleApi({ baseUrl, apiKey: () => 'k-1', tenant: 'contoso' });
    await contoso.listInstances({ workflowId: 'expense-claim' });
    await contoso.getInstance('claim-1');
    answer = () => ({ status: 200, body: JSON.stringify({ id: 'api-key', name: 'API key', roles: ['Signalbox.Admin'], via: 'key', tenants: ['default', 'contoso'] }) });
    expect((await contoso.whoAmI()).tenants).toEqual(['default', 'contoso']);
    answer = () => ({ status: 200, body: '{"items":[]}' });
    await contoso.listTenants();
    await createHttpConsoleApi({ baseUrl, apiKey: () => 'k-1', tenant: 'default' }).listWorkflows();
    expect(seen.map(({ method, url, key }) => `${method} ${url} ${key}`)).toEqual([
      'GET /api/tenants/contoso/instances?workflowId=expense-claim k-1',
      'GET /api/tenants/contoso/instances/claim-1 k-1',
      'GET /api/me k-1',
      'GET /api/tenants k-1',
      'GET /api/workflows k-1',
    ]);
  });

  it('creates and deletes a tenant through the admin API', async () => {
    const api = createHttpConsoleApi({ baseUrl, apiKey: () => 'k-1', tenant: 'contoso' });
    answer = () => ({ status: 201, body: JSON.stringify({ id: 'fabrikam', createdAt: '2026-11-26T15:00:00.000Z' }) });
    expect((await api.createTenant('fabrikam')).id).toBe('fabrikam');
    answer = () => ({
      status: 202,
      body: JSON.stringify({ id: 'tenant-deletion:fabrikam', kind: 'tenantDeletion', tenantId: 'fabrikam', status: 'running', requestedAt: '2026-11-26T15:01:00.000Z' }),
    });
    expect((await api.deleteTenant('fabrikam')).status).toBe('running');
    expect(seen.map(({ method, url, body }) => `${method} ${url} ${body}`)).toEqual(['PUT /api/tenants/fabrikam {}', 'DELETE /api/tenants/fabrikam ']);
  });
});
