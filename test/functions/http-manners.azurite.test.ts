/**
 * HTTP manners of the Functions app on its real routes, as the host would call them: the HTTP functions
 * registered by functions/http.ts (captured from @azure/functions-core), over a HostCore on the Azurite
 * jest starts. If-None-Match → 304 and HEAD on a real instance and workflow, maxPageSize and continuation
 * tokens on the lists, and CORS from the SIGNALBOX_CORS_ALLOWED_ORIGINS app setting (the one the Bicep
 * parameter `corsAllowedOrigins` sets). test/host/http-manners.test.ts holds the local server to the same.
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

const allowedOrigin = 'https://console.example.com';
const definition = (id: string) => ({
  id,
  displayName: id,
  initialStateId: 'a',
  states: { a: { transitions: [{ id: 'go', targetStateId: 'a', conditions: [{ type: 'triggerName', name: 'Go' }] }] } },
});

const registered = () => (jest.requireMock('@azure/functions-core') as { registerFunction: jest.Mock }).registerFunction.mock.calls as Array<[{ name: string }, HttpHandler]>;

const invocationContext = () => durableInvocationContext('inv-manners');

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
  readonly raw: HttpResponseInit['body'];
}

/** Calls the function registered as `name`, with the route parameters the host would bind. */
async function call(name: string, method: string, path: string, options: { params?: Record<string, string>; headers?: Record<string, string>; json?: unknown } = {}): Promise<Answer> {
  const handler = registered().find(([metadata]) => metadata.name === name)?.[1];
  if (!handler) throw new Error(`no function ${name}`);
  const request = new HttpRequest({
    method,
    url: `https://signalbox.example/api/${path}`,
    headers: { ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
    params: options.params ?? {},
    ...(options.json !== undefined ? { body: { string: JSON.stringify(options.json) } } : {}),
  });
  const response = (await handler(request, invocationContext())) as HttpResponseInit;
  const headers = Object.fromEntries(Object.entries((response.headers ?? {}) as Record<string, string>).map(([key, value]) => [key.toLowerCase(), value]));
  return { status: response.status ?? 200, headers, body: typeof response.body === 'string' ? JSON.parse(response.body) : undefined, raw: response.body };
}

beforeAll(async () => {
  // Read by functions/http.ts when it loads, as the worker reads its app settings once.
  process.env.SIGNALBOX_CORS_ALLOWED_ORIGINS = `${allowedOrigin}, https://other.example.com`;
  require('../../functions/http');
  const env = { SIGNALBOX_STORAGE: testConnectionString() };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(uniquePrefix('fnmanners')) });
  setHostCore(createHostCore({ ports, logger: silentLogger, env }));
  for (const workflowId of ['manners-1', 'manners-2']) {
    expect((await call('putWorkflow', 'PUT', `workflows/${workflowId}`, { params: { workflowId }, json: definition(workflowId) })).status).toBe(201);
  }
  for (const instanceId of ['f-1', 'f-2', 'f-3']) {
    expect((await call('createInstance', 'POST', 'instances', { json: { workflowId: 'manners-1', instanceId } })).status).toBe(201);
  }
});

afterAll(() => {
  setHostCore(undefined);
  delete process.env.SIGNALBOX_CORS_ALLOWED_ORIGINS;
});

describe('conditional GET and HEAD on the Functions app', () => {
  it.each([
    ['getInstance', 'instances/f-1', { instanceId: 'f-1' }],
    ['getWorkflow', 'workflows/manners-1', { workflowId: 'manners-1' }],
  ])('%s answers 304 while If-None-Match names the ETag, 200 otherwise, and HEAD without the body', async (name, path, params) => {
    const first = await call(name, 'GET', path, { params });
    expect(first.status).toBe(200);
    const etag = first.headers.etag!;
    expect(etag).toBeTruthy();
    expect(first.body.etag).toBe(etag);

    const notModified = await call(name, 'GET', path, { params, headers: { 'if-none-match': etag } });
    expect(notModified).toMatchObject({ status: 304, headers: { etag } });
    expect(notModified.raw).toBeUndefined();
    expect((await call(name, 'GET', path, { params, headers: { 'if-none-match': '"something-else"' } })).status).toBe(200);

    const head = await call(name, 'HEAD', path, { params });
    expect(head).toMatchObject({ status: 200, headers: { etag } });
    expect(head.headers['content-type']).toContain('application/json');
    expect(head.raw).toBeUndefined();
  });
});

describe('maxPageSize on the Functions app', () => {
  it.each([
    ['listInstances', 'instances?workflowId=manners-1', {}, 3],
    ['listWorkflows', 'workflows', {}, 2],
  ])('%s pages with maxPageSize and continuation tokens', async (name, path, params, total) => {
    const separator = path.includes('?') ? '&' : '?';
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const query = `maxPageSize=1${token ? `&continuationToken=${encodeURIComponent(token)}` : ''}`;
      const page = await call(name, 'GET', `${path}${separator}${query}`, { params });
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(1);
      seen.push(...page.body.items.map((item: { id: string }) => item.id));
      token = page.body.continuationToken;
      pages += 1;
    } while (token && pages <= total + 1);
    expect(new Set(seen).size).toBe(total);
    expect(seen).toHaveLength(total);
    expect(pages).toBeGreaterThanOrEqual(total);
    expect((await call(name, 'GET', `${path}${separator}maxPageSize=0`, { params })).status).toBe(400);
    expect((await call(name, 'GET', `${path}${separator}maxPageSize=1001`, { params })).status).toBe(400);
  });
});

describe('CORS on the Functions app, from the app setting', () => {
  it('adds CORS headers for the allowed origins only, problems included', async () => {
    const allowed = await call('getInstance', 'GET', 'instances/f-1', { params: { instanceId: 'f-1' }, headers: { origin: allowedOrigin } });
    expect(allowed.headers).toMatchObject({ 'access-control-allow-origin': allowedOrigin, vary: 'Origin' });
    expect(allowed.headers['access-control-expose-headers']).toContain('etag');
    const other = await call('getInstance', 'GET', 'instances/f-1', { params: { instanceId: 'f-1' }, headers: { origin: 'https://other.example.com' } });
    expect(other.headers['access-control-allow-origin']).toBe('https://other.example.com');
    const refused = await call('getInstance', 'GET', 'instances/f-1', { params: { instanceId: 'f-1' }, headers: { origin: 'https://evil.example.com' } });
    expect(refused.headers).not.toHaveProperty('access-control-allow-origin');
    const missing = await call('getInstance', 'GET', 'instances/nobody', { params: { instanceId: 'nobody' }, headers: { origin: allowedOrigin } });
    expect(missing).toMatchObject({ status: 404, headers: { 'access-control-allow-origin': allowedOrigin } });
  });

  it('answers preflights from allowed origins through the catch-all, with the methods of the path', async () => {
    const preflight = await call('zzzNotFound', 'OPTIONS', 'workflows/manners-1', {
      params: { path: 'workflows/manners-1' },
      headers: { origin: allowedOrigin, 'access-control-request-method': 'PUT' },
    });
    expect(preflight).toMatchObject({ status: 204, headers: { 'access-control-allow-origin': allowedOrigin } });
    expect(preflight.headers['access-control-allow-methods']!.split(', ')).toEqual(expect.arrayContaining(['GET', 'PUT', 'HEAD']));
    const refused = await call('zzzNotFound', 'OPTIONS', 'workflows/manners-1', {
      params: { path: 'workflows/manners-1' },
      headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'PUT' },
    });
    expect(refused.status).toBe(405);
  });
});
