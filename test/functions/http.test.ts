/**
 * The HTTP functions as the host would call them (HttpRequest and InvocationContext have public
 * constructors for tests), and the durable launcher's idempotency against a stand-in durable client.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { HttpRequest, InvocationContext, type HttpHandler, type HttpResponseInit } from '@azure/functions';
import { NotFoundError } from '../../src/engine/model';
import type { ApiRequest, ApiServices, RouteContract, RouteDefinition } from '../../src/host/http/types';
import type { HostCore } from '../../src/host/host-services';
import { NOT_FOUND_FUNCTION, handleRoute, handleUnmatched } from '../../functions/http';
import { durableLauncher, setHostCore } from '../../functions/app-services';
import { durableInvocationContext } from '../support/invocation-context';

const registered = (jest.requireMock('@azure/functions-core') as { registerFunction: jest.Mock }).registerFunction.mock.calls as Array<[{ name: string }, HttpHandler]>;
const handlerOf = (name: string): HttpHandler => registered.find(([metadata]) => metadata.name === name)![1];

const invocationContext = () => durableInvocationContext('inv-1', 'http://127.0.0.1:7071/runtime/webhooks/durabletask');

let health = true;
// Read once, at the first request (functions/http.ts): instance creations may take 3 MiB here.
const createBodySetting = process.env.SIGNALBOX_MAX_CREATE_BODY_MB;
beforeAll(() => (process.env.SIGNALBOX_MAX_CREATE_BODY_MB = '3'));
afterAll(() => (createBodySetting === undefined ? delete process.env.SIGNALBOX_MAX_CREATE_BODY_MB : (process.env.SIGNALBOX_MAX_CREATE_BODY_MB = createBodySetting)));
beforeAll(() => {
  const services = { checkHealth: async () => health } as unknown as ApiServices;
  setHostCore({ servicesFor: () => services } as unknown as HostCore);
});
afterAll(() => setHostCore(undefined));

/** Probe routes are not in the route table, so their contract is never documented. */
const contract: RouteContract = { summary: 'A probe', tags: [], responses: { 200: { description: 'OK' } } };

function bodyOf(response: HttpResponseInit): unknown {
  return JSON.parse(response.body as string);
}

describe('HTTP functions', () => {
  it('serves a route of the shared table through the durable-client services', async () => {
    health = true;
    const response = await handlerOf('health')(new HttpRequest({ method: 'GET', url: 'https://signalbox.example/api/health' }), invocationContext());
    expect(response).toMatchObject({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(bodyOf(response)).toEqual({ status: 'ok' });

    health = false;
    const unhealthy = await handlerOf('health')(new HttpRequest({ method: 'GET', url: 'https://signalbox.example/api/health' }), invocationContext());
    expect(unhealthy).toMatchObject({ status: 503, headers: { 'content-type': 'application/problem+json' } });
  });

  it('refuses a body over 1 MiB with a 413 problem before any handler runs', async () => {
    const handle = jest.fn();
    const route: RouteDefinition = { name: 'probe', methods: ['POST'], route: 'probe', authLevel: 'function', role: 'Signalbox.Admin', contract, handle };
    const request = new HttpRequest({ method: 'POST', url: 'https://signalbox.example/api/probe', headers: { 'content-type': 'application/json' }, body: { string: 'x'.repeat(1024 * 1024 + 1) } });

    const response = await handleRoute(route, request, invocationContext());

    expect(response.status).toBe(413);
    expect(response.headers).toMatchObject({ 'content-type': 'application/problem+json' });
    expect(bodyOf(response)).toMatchObject({ status: 413, title: 'Too large' });
    expect(handle).not.toHaveBeenCalled();
  });

  it('lets an instance creation route take a body up to SIGNALBOX_MAX_CREATE_BODY_MB, and no more', async () => {
    let seen: ApiRequest | undefined;
    const route: RouteDefinition = {
      name: 'creationProbe',
      methods: ['POST'],
      route: 'probe',
      authLevel: 'function',
      role: 'Signalbox.Admin',
      bodyLimit: 'instanceCreation',
      contract,
      handle: async (request) => ((seen = request), { status: 204 }),
    };
    const body = (size: number) => new HttpRequest({ method: 'POST', url: 'https://signalbox.example/api/probe', headers: { 'content-type': 'application/json' }, body: { string: 'x'.repeat(size) } });

    expect((await handleRoute(route, body(2 * 1024 * 1024), invocationContext())).status).toBe(204);
    expect(seen?.bodyText).toHaveLength(2 * 1024 * 1024);
    expect(seen?.maxBodyBytes).toBe(3 * 1024 * 1024);
    expect((await handleRoute(route, body(3 * 1024 * 1024 + 1), invocationContext())).status).toBe(413);
  });

  it('accepts a body of exactly 1 MiB', async () => {
    let seen: ApiRequest | undefined;
    const route: RouteDefinition = {
      name: 'probe',
      methods: ['POST'],
      route: 'probe',
      authLevel: 'function',
      role: 'Signalbox.Admin',
      contract,
      handle: async (request) => ((seen = request), { status: 204 }),
    };
    const response = await handleRoute(
      route,
      new HttpRequest({ method: 'POST', url: 'https://signalbox.example/api/probe', headers: { 'content-type': 'application/json' }, body: { string: 'x'.repeat(1024 * 1024) } }),
      invocationContext(),
    );
    expect(response.status).toBe(204);
    expect(seen?.bodyText).toHaveLength(1024 * 1024);
  });

  it('translates the request and the response both ways', async () => {
    let seen: ApiRequest | undefined;
    const route: RouteDefinition = {
      name: 'probe',
      methods: ['PUT'],
      route: 'things/{thingId}',
      authLevel: 'function',
      role: 'Signalbox.Admin',
      contract,
      handle: async (request) => {
        seen = request;
        return { status: 201, headers: { etag: '"1"', location: '/api/things/a b' }, body: { ok: true } };
      },
    };
    const request = new HttpRequest({
      method: 'put',
      url: 'https://signalbox.example/api/things/a%20b?version=2',
      params: { thingId: 'a b' },
      headers: { 'if-match': '*', 'content-type': 'application/json' },
      body: { string: '{"x":1}' },
    });

    const response = await handleRoute(route, request, invocationContext());

    expect(seen).toMatchObject({ method: 'PUT', params: { thingId: 'a b' }, bodyText: '{"x":1}' });
    expect(seen!.url.searchParams.get('version')).toBe('2');
    expect(seen!.headers.get('If-Match')).toBe('*');
    expect(seen!.headers.get('x-missing')).toBeNull();
    expect(response).toEqual({ status: 201, headers: { etag: '"1"', location: '/api/things/a b', 'content-type': 'application/json; charset=utf-8' }, body: '{"ok":true}' });
  });

  it('sends a text body as is, text/plain unless the handler names its type (a Mermaid diagram)', async () => {
    const route: RouteDefinition = {
      name: 'probe',
      methods: ['GET'],
      route: 'probe',
      authLevel: 'function',
      role: 'Signalbox.Admin',
      contract,
      handle: async () => ({ status: 200, text: 'stateDiagram-v2\n    [*] --> s0\n' }),
    };
    const response = await handleRoute(route, new HttpRequest({ method: 'GET', url: 'https://signalbox.example/api/probe' }), invocationContext());
    expect(response).toEqual({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'stateDiagram-v2\n    [*] --> s0\n' });
  });

  it('gives a handler no body when the request has none', async () => {
    let seen: ApiRequest | undefined;
    const route: RouteDefinition = {
      name: 'probe',
      methods: ['POST'],
      route: 'probe',
      authLevel: 'function',
      role: 'Signalbox.Admin',
      contract,
      handle: async (request) => ((seen = request), { status: 202 }),
    };
    const response = await handleRoute(route, new HttpRequest({ method: 'POST', url: 'https://signalbox.example/api/probe' }), invocationContext());
    expect(response).toEqual({ status: 202, headers: {} });
    expect(seen!.bodyText).toBeUndefined();
  });

  it('refuses, as the local server does, what a web page on another origin could send: a form, a no-cors fetch, a same-site page, a foreign Origin', async () => {
    const handle = jest.fn();
    const route: RouteDefinition = { name: 'probe', methods: ['POST'], route: 'probe', authLevel: 'function', role: 'Signalbox.Admin', contract, handle };
    const policy = { allowedOrigins: ['https://console.example.com'] };
    const post = (headers: Record<string, string>, body?: string) =>
      handleRoute(
        route,
        new HttpRequest({ method: 'POST', url: 'https://signalbox.example/api/probe', headers: { host: 'signalbox.example', ...headers }, ...(body !== undefined ? { body: { string: body } } : {}) }),
        invocationContext(),
        policy,
      );
    expect((await post({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', origin: 'https://attacker.example', 'content-type': 'application/x-www-form-urlencoded' }, 'a=b')).status).toBe(
      403,
    );
    expect((await post({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', origin: 'https://attacker.example' })).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'same-site', origin: 'https://evil.signalbox.example' })).status).toBe(403);
    expect((await post({ 'content-type': 'application/json', origin: 'https://attacker.example' }, '{}')).status).toBe(403);
    expect((await post({ origin: 'null' })).status).toBe(403);
    expect(handle).not.toHaveBeenCalled();
    handle.mockResolvedValue({ status: 204 });
    // A plain client (curl: no Origin, no fetch metadata, no content type), this origin's pages, a CORS origin's.
    expect((await post({})).status).toBe(204);
    expect((await post({ 'sec-fetch-site': 'same-origin', origin: 'https://signalbox.example' })).status).toBe(204);
    expect((await post({ 'sec-fetch-site': 'cross-site', 'content-type': 'application/json', origin: 'https://console.example.com' }, '{}')).status).toBe(204);
    expect((await post({ origin: 'https://signalbox.example' })).status).toBe(204);
    expect(handle).toHaveBeenCalledTimes(4);
  });

  it('answers 500 and logs the settings hint when no storage is configured (a server fault, not a bad request)', async () => {
    const storageSettings = Object.keys(process.env).filter((name) => name === 'SIGNALBOX_STORAGE' || name.startsWith('AzureWebJobsStorage'));
    const saved = storageSettings.map((name) => [name, process.env[name]] as const);
    storageSettings.forEach((name) => delete process.env[name]);
    setHostCore(undefined);
    const logged: string[] = [];
    const context = new InvocationContext({ functionName: 'test', invocationId: 'inv-2', logHandler: (_level, ...args) => logged.push(args.map(String).join(' ')) });
    try {
      const route: RouteDefinition = { name: 'probe', methods: ['GET'], route: 'probe', authLevel: 'function', role: 'Signalbox.Admin', contract, handle: async () => ({ status: 200 }) };
      const response = await handleRoute(route, new HttpRequest({ method: 'GET', url: 'https://signalbox.example/api/probe' }), context);
      expect(response).toMatchObject({ status: 500, headers: { 'content-type': 'application/problem+json' } });
      expect(bodyOf(response)).not.toMatchObject({ detail: expect.stringContaining('AzureWebJobsStorage') });
      expect(logged.join('\n')).toContain('No storage is configured: set SIGNALBOX_STORAGE or AzureWebJobsStorage');
    } finally {
      saved.forEach(([name, value]) => (process.env[name] = value));
      const services = { checkHealth: async () => health } as unknown as ApiServices;
      setHostCore({ servicesFor: () => services } as unknown as HostCore);
    }
  });

  it('maps a thrown error to problem+json', async () => {
    const route: RouteDefinition = {
      name: 'probe',
      methods: ['GET'],
      route: 'probe',
      authLevel: 'function',
      role: 'Signalbox.Admin',
      contract,
      handle: async () => Promise.reject(new NotFoundError('No instance x')),
    };
    const response = await handleRoute(route, new HttpRequest({ method: 'GET', url: 'https://signalbox.example/api/probe' }), invocationContext());
    expect(response).toMatchObject({ status: 404, headers: { 'content-type': 'application/problem+json' } });
    expect(bodyOf(response)).toMatchObject({ status: 404, detail: 'No instance x' });
  });

  it('answers unknown paths 404 and known paths with another method 405, as problem+json', async () => {
    const notFound = handlerOf(NOT_FOUND_FUNCTION);
    const unknown = await notFound(new HttpRequest({ method: 'GET', url: 'https://signalbox.example/api/nothing/here', params: { path: 'nothing/here' } }), invocationContext());
    expect(unknown).toMatchObject({ status: 404, headers: { 'content-type': 'application/problem+json' } });

    // (DELETE is a route of workflows/{workflowId} since issue 15; PATCH is not.)
    const wrongMethod = await notFound(new HttpRequest({ method: 'PATCH', url: 'https://signalbox.example/api/workflows/w1', params: { path: 'workflows/w1' } }), invocationContext());
    expect(wrongMethod).toMatchObject({ status: 405, headers: { 'content-type': 'application/problem+json' } });
  });
});

describe('HTTP manners on Azure', () => {
  const etagged: RouteDefinition = {
    name: 'probe',
    methods: ['GET'],
    route: 'things/{thingId}',
    authLevel: 'function',
    role: 'Signalbox.Admin',
    contract,
    handle: async () => ({ status: 200, headers: { etag: 'W/"7"' }, body: { id: 'a' } }),
  };
  const request = (method: string, headers: Record<string, string> = {}) => new HttpRequest({ method, url: 'https://signalbox.example/api/things/a', headers, params: { thingId: 'a' } });
  const policy = { allowedOrigins: ['https://console.example.com'] };

  // registration.test.ts checks that every GET route is registered for HEAD too.
  it('answers HEAD as GET without the body', async () => {
    const head = await handleRoute(etagged, request('HEAD'), invocationContext());
    expect(head).toEqual({ status: 200, headers: { etag: 'W/"7"', 'content-type': 'application/json; charset=utf-8' } });
  });

  it('answers 304 when If-None-Match names the ETag', async () => {
    expect(await handleRoute(etagged, request('GET', { 'if-none-match': 'W/"7"' }), invocationContext())).toEqual({ status: 304, headers: { etag: 'W/"7"' } });
    expect((await handleRoute(etagged, request('GET', { 'if-none-match': '"8"' }), invocationContext())).status).toBe(200);
  });

  it('adds CORS headers for allowed origins only, and answers their preflights', async () => {
    const allowed = await handleRoute(etagged, request('GET', { origin: 'https://console.example.com' }), invocationContext(), policy);
    expect(allowed.headers).toMatchObject({ 'access-control-allow-origin': 'https://console.example.com' });
    const other = await handleRoute(etagged, request('GET', { origin: 'https://evil.example.com' }), invocationContext(), policy);
    expect(other.headers).not.toHaveProperty('access-control-allow-origin');
    const preflight = await handleUnmatched(
      new HttpRequest({
        method: 'OPTIONS',
        url: 'https://signalbox.example/api/workflows/w1',
        headers: { origin: 'https://console.example.com', 'access-control-request-method': 'PUT' },
        params: { path: 'workflows/w1' },
      }),
      invocationContext(),
      policy,
    );
    expect(preflight).toMatchObject({ status: 204, headers: { 'access-control-allow-origin': 'https://console.example.com' } });
    const off = await handleUnmatched(
      new HttpRequest({
        method: 'OPTIONS',
        url: 'https://signalbox.example/api/workflows/w1',
        headers: { origin: 'https://console.example.com', 'access-control-request-method': 'PUT' },
        params: { path: 'workflows/w1' },
      }),
      invocationContext(),
    );
    expect(off.status).toBe(405);
  });
});

describe('durableLauncher', () => {
  function client(status: { runtimeStatus: string } | Error) {
    return {
      getStatus: jest.fn(async () => {
        if (status instanceof Error) throw status;
        return status;
      }),
      startNew: jest.fn(async (_name: string, options?: { instanceId?: string }) => options?.instanceId ?? ''),
    };
  }
  const missing = () => new Error('DurableClient error: Durable Functions extension replied with HTTP 404 response. This usually means we could not find any data');

  it('starts the trigger orchestration under the operation id', async () => {
    const stub = client(missing());
    await durableLauncher(stub as never).start('op-7');
    expect(stub.startNew).toHaveBeenCalledWith('triggerOrchestrator', { instanceId: 'op-7', input: { operationId: 'op-7', applyOneInstanceDirectly: true } });
  });

  it("hands the orchestration its tenant and the tenant's fan-out quota", async () => {
    const stub = client(missing());
    await durableLauncher(stub as never, 'acme', 2).start('op-9');
    expect(stub.startNew).toHaveBeenCalledWith('triggerOrchestrator', {
      instanceId: 'acme|op-9',
      input: { operationId: 'op-9', tenantId: 'acme', batchesInFlight: 2, applyOneInstanceDirectly: true },
    });
  });

  it('starts an operation recorded by this very request without asking for a status first', async () => {
    const stub = client({ runtimeStatus: 'Running' });
    await durableLauncher(stub as never).start('op-8', { isNew: true });
    expect(stub.getStatus).not.toHaveBeenCalled();
    expect(stub.startNew).toHaveBeenCalledWith('triggerOrchestrator', { instanceId: 'op-8', input: { operationId: 'op-8', applyOneInstanceDirectly: true } });
  });

  it.each(['Running', 'Pending', 'Completed'])('leaves an existing %s orchestration alone', async (runtimeStatus) => {
    const stub = client({ runtimeStatus });
    await durableLauncher(stub as never).start('op-7');
    expect(stub.startNew).not.toHaveBeenCalled();
  });

  it.each(['Failed', 'Terminated'])('starts a %s orchestration again (its operation is unfinished)', async (runtimeStatus) => {
    const stub = client({ runtimeStatus });
    await durableLauncher(stub as never).start('op-7');
    expect(stub.startNew).toHaveBeenCalledTimes(1);
  });

  it('lets other durable client failures through', async () => {
    const stub = client(new Error('DurableClient error: HTTP 500'));
    await expect(durableLauncher(stub as never).start('op-7')).rejects.toThrow('HTTP 500');
    expect(stub.startNew).not.toHaveBeenCalled();
  });
});
