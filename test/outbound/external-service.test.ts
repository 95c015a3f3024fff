import { createDefaultHttpClient, createPipelineRequest, type PipelineRequest } from '@azure/core-rest-pipeline';
import { createServer } from 'node:net';
import { refusingExternalServiceClient, validateDefinition, type ExternalServiceClient, type WorkflowDefinitionInput } from '../../src/engine';
import { createOutboundClient, isHostAllowed, managedIdentityPolicy, retryAfterInMs, type OutboundRetry } from '../../src/outbound';
import { instanceIn, json, processTrigger, startServer, testEffects, testEngine, trigger } from '../engine/support';
import { fakeCredential, localHttp, testCertificate } from './support';

type Server = Awaited<ReturnType<typeof startServer>>;
let server: Server;
/** The same handler behind https, for managed-identity tokens (sent over https only). */
let tlsServer: Server;
let respond: (request: Server['requests'][number], response: import('node:http').ServerResponse) => void;

beforeAll(async () => {
  server = await startServer((request, response) => respond(request, response));
  tlsServer = await startServer((request, response) => respond(request, response), { tls: await testCertificate() });
});
afterAll(async () => {
  await server.close();
  await tlsServer.close();
});
beforeEach(() => {
  server.requests.length = 0;
  tlsServer.requests.length = 0;
});

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as import('node:net').AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function workflowWith(url: string, extra: { condition?: object; action?: object } = {}): WorkflowDefinitionInput {
  return {
    id: 'svc',
    displayName: 'svc',
    initialStateId: 'a',
    states: {
      a: {
        transitions: [
          {
            id: 'check',
            targetStateId: 'b',
            conditions: [
              { type: 'triggerName', name: 'Go' },
              { id: 'gate', type: 'invokeExternalService', url: `${url}/condition`, interests: ['svc'], contextItemsToInclude: ['amount', 'absent'], ...extra.condition },
            ],
            actions: [{ id: 'enrich', type: 'invokeExternalService', url: `${url}/action`, contextItemsToInclude: ['amount'], ...extra.action }],
          },
        ],
      },
      b: { transitions: [{ id: 'back', targetStateId: 'a' }] },
    },
  };
}

async function run(http: ExternalServiceClient, extra: { condition?: object; action?: object } = {}, baseUrl = server.url) {
  const def = validateDefinition(workflowWith(baseUrl, extra));
  const t = trigger('Go', { parameters: { p: 1 }, contentType: 'application/json' });
  const result = await processTrigger(def, instanceIn(def, 'a', { context: { amount: 12, secret: 's' } }), t, testEffects({ http }));
  return { result, trigger: t };
}

describe('invokeExternalService (against a real local HTTP server)', () => {
  it('POSTs the documented body (only the listed context items) and applies the response to the context', async () => {
    respond = (request, response) =>
      request.url === '/condition' ? json(response, 200, true) : json(response, 200, { contextValuesToSetOrAdd: { score: 5, amount: 13 }, contextValuesToRemove: ['secret'] });
    const { result, trigger: t } = await run(await localHttp());
    expect(result.outcome).toBe('transitioned');
    expect(result.instance.context).toEqual({ amount: 13, score: 5 });
    expect(server.requests.map((request) => [request.method, request.url])).toEqual([
      ['POST', '/condition'],
      ['POST', '/action'],
    ]);
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
    expect(server.requests[0]!.body).toEqual({
      workflowId: 'svc',
      workflowVersion: 1,
      instanceId: 'i1',
      stateId: 'a',
      status: 'waiting',
      invokedById: 'gate',
      trigger: { id: t.id, name: 'Go', subjects: ['i1'], parameters: { p: 1 }, contentType: 'application/json' },
      context: { amount: 12 },
    });
    expect(server.requests[1]!.body).toMatchObject({ invokedById: 'enrich', context: { amount: 12 } });
  });

  it('a condition answered false does not transition; GET sends no body', async () => {
    respond = (_request, response) => json(response, 200, false);
    const { result } = await run(await localHttp(), { condition: { method: 'GET' } });
    expect(result.outcome).toBe('noTransition');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'GET', body: undefined });
  });

  it('a condition answered with a non-boolean body is a fault', async () => {
    respond = (_request, response) => json(response, 200, { ok: true });
    const { result } = await run(await localHttp());
    expect(result.outcome).toBe('faulted');
    expect(result.instance.fault?.message).toContain('not true or false');
  });

  it('a non-2xx answer to the action faults the instance in the old state', async () => {
    respond = (request, response) => (request.url === '/condition' ? json(response, 200, true) : json(response, 400, { error: 'bad' }));
    const { result } = await run(await localHttp());
    expect(result).toMatchObject({ outcome: 'faulted', instance: { stateId: 'a', status: 'faulted' } });
    expect(result.instance.fault?.message).toContain('HTTP 400');
    expect(server.requests.filter((request) => request.url === '/action')).toHaveLength(1); // 400 is not retried
  });

  it('does not follow a redirect (it could lead off the allow-list): a 3xx faults the instance', async () => {
    respond = (request, response) => {
      if (request.url === '/condition') return json(response, 200, true);
      if (request.url === '/elsewhere') return json(response, 200, { contextValuesToSetOrAdd: { leaked: true } });
      response.writeHead(302, { location: `${server.url.replace('127.0.0.1', 'localhost')}/elsewhere` }).end();
    };
    const { result } = await run(await localHttp());
    expect(result).toMatchObject({ outcome: 'faulted', instance: { stateId: 'a', status: 'faulted' } });
    expect(result.instance.fault?.message).toContain('HTTP 302');
    expect(server.requests.filter((request) => request.url === '/elsewhere')).toHaveLength(0);
  });

  it('retries a 503 (and a 429) and then succeeds', async () => {
    let calls = 0;
    respond = (request, response) => {
      if (request.url === '/action') return json(response, 204);
      calls++;
      if (calls === 1) return json(response, 503);
      if (calls === 2) return json(response, 429);
      return json(response, 200, true);
    };
    const retries: OutboundRetry[] = [];
    const { result } = await run(await localHttp({ retries }));
    expect(result.outcome).toBe('transitioned');
    expect(server.requests.filter((request) => request.url === '/condition')).toHaveLength(3);
    expect(retries).toHaveLength(2);
  });

  it('gives up after the bounded retries and reports the last status', async () => {
    respond = (_request, response) => json(response, 500);
    const { result } = await run(await localHttp());
    expect(server.requests).toHaveLength(3); // first attempt + 2 retries
    expect(result.instance.fault?.message).toContain('HTTP 500');
  });

  it('times out a slow service (per attempt) and does not retry the timeout', async () => {
    respond = () => undefined; // never answers
    // 300 ms, not 30: on a loaded machine 30 ms can pass before the request reaches the server at all.
    const { result } = await run(await localHttp({ timeoutInMs: 10_000 }), { condition: { timeoutMs: 300 } });
    expect(result.outcome).toBe('faulted');
    expect(result.instance.fault?.message).toContain('timed out after 300 ms');
    expect(server.requests).toHaveLength(1);
  });

  it('the timeout covers the response body: a service that sends its headers and then stalls times out', async () => {
    respond = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('tr'); // and never the rest
    };
    const { result } = await run(await localHttp(), { condition: { timeoutMs: 300 } });
    expect(result.outcome).toBe('faulted');
    expect(result.instance.fault?.message).toContain('timed out after 300 ms');
    expect(server.requests).toHaveLength(1);
  });

  it('retries network errors (nothing listening)', async () => {
    // A real refused connection; the transport is wrapped only to count the attempts.
    const calls: string[] = [];
    const transport = createDefaultHttpClient();
    const http = createOutboundClient({
      allowedHosts: ['127.0.0.1'],
      retryDelayInMs: 1,
      httpClient: { sendRequest: (request: PipelineRequest) => (calls.push(request.url), transport.sendRequest(request)) },
    });
    const { result } = await run(http, {}, `http://127.0.0.1:${await closedPort()}`);
    expect(calls).toHaveLength(3);
    expect(result.instance.fault?.message).toContain('ECONNREFUSED');
  });

  it('refuses hosts off the allow-list before any request, and loopback unless listed exactly', async () => {
    respond = (_request, response) => json(response, 200, true);
    const refused = await run(createOutboundClient({ allowedHosts: ['*.example.com', 'localhost'] }));
    expect(refused.result.outcome).toBe('faulted');
    expect(refused.result.instance.fault?.message).toContain('"127.0.0.1" is not on the allow-list');
    expect(server.requests).toHaveLength(0);

    expect(isHostAllowed(new URL('https://api.example.com/x'), ['*.example.com'])).toBe(true);
    expect(isHostAllowed(new URL('https://example.com/x'), ['*.example.com'])).toBe(false);
    expect(isHostAllowed(new URL('https://evil-example.com/x'), ['*.example.com'])).toBe(false);
    expect(isHostAllowed(new URL('https://API.Example.com/x'), ['api.example.com'])).toBe(true);
    expect(isHostAllowed(new URL('http://127.0.0.2/'), ['127.0.0.1'])).toBe(false);
    expect(isHostAllowed(new URL('http://[::1]:8080/'), ['::1'])).toBe(true);
    expect(isHostAllowed(new URL('http://localhost.example.com/'), ['*.example.com'])).toBe(true);
    expect(isHostAllowed(new URL('http://a.localhost/'), ['*.localhost'])).toBe(false);
  });

  it('adds a managed-identity bearer token when the step asks for one', async () => {
    respond = (_request, response) => json(response, 200, true);
    await run(await localHttp(), { condition: { authentication: { managedIdentity: 'api://signalbox-test' } } }, tlsServer.url);
    expect(tlsServer.requests[0]!.headers.authorization).toBe('Bearer token-for-api://signalbox-test/.default');
    expect(tlsServer.requests[1]!.headers.authorization).toBeUndefined();
  });

  it('the bearer-token policy itself refuses http too (the second lock)', async () => {
    const next = jest.fn();
    const request = createPipelineRequest({ url: `${server.url}/condition`, allowInsecureConnection: true });
    await expect(managedIdentityPolicy(fakeCredential, 'api://signalbox-test').sendRequest(request, next)).rejects.toThrow('non-https');
    expect(next).not.toHaveBeenCalled();
  });

  it('never sends a managed-identity token over plain http: the call is refused before it leaves', async () => {
    respond = (_request, response) => json(response, 200, true);
    const { result } = await run(await localHttp(), { condition: { authentication: { managedIdentity: 'api://signalbox-test' } } });
    expect(result).toMatchObject({ outcome: 'faulted', instance: { stateId: 'a', status: 'faulted' } });
    expect(result.instance.fault?.message).toContain('a managed-identity token is only sent over https');
    expect(server.requests).toHaveLength(0);
  });

  it('waits as long as Retry-After asks (seconds, or retry-after-ms) before retrying a 429 or 503', async () => {
    let calls = 0;
    respond = (request, response) => {
      if (request.url === '/action') return json(response, 204);
      calls++;
      if (calls === 1) return void response.writeHead(503, { 'retry-after': '1' }).end();
      if (calls === 2) return void response.writeHead(429, { 'retry-after-ms': '25' }).end();
      return json(response, 200, true);
    };
    const retries: OutboundRetry[] = [];
    const { result } = await run(await localHttp({ retries }));
    expect(result.outcome).toBe('transitioned');
    expect(retries.map(({ status, delayInMs }) => ({ status, delayInMs }))).toEqual([
      { status: 503, delayInMs: 1000 },
      { status: 429, delayInMs: 25 },
    ]);
  });

  it('does not wait for a Retry-After longer than its bound: the call fails at once and says why', async () => {
    respond = (_request, response) => void response.writeHead(429, { 'retry-after': '3600' }).end();
    const { result } = await run(await localHttp({ maxRetryAfterInMs: 30_000 }));
    expect(result.outcome).toBe('faulted');
    expect(result.instance.fault?.message).toContain('asked to retry after 3600000 ms, longer than the 30000 ms');
    expect(server.requests).toHaveLength(1);
  });

  it('reads Retry-After as an HTTP date too', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const response = (status: number, headers: Record<string, string>) => ({ status, headers: new Map(Object.entries(headers)) }) as never;
    expect(retryAfterInMs(response(503, { 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), () => now)).toBe(7000);
    expect(retryAfterInMs(response(429, { 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), () => now)).toBe(0);
    expect(retryAfterInMs(response(500, { 'retry-after': '5' }), () => now)).toBeUndefined();
    expect(retryAfterInMs(response(429, { 'retry-after': 'soon' }), () => now)).toBeUndefined();
  });

  it('works through the Engine facade with allowedHosts and the instance lease signal', async () => {
    respond = (request, response) => (request.url === '/condition' ? json(response, 200, true) : json(response, 204));
    const { engine } = testEngine({ http: createOutboundClient({ allowedHosts: ['127.0.0.1'], credential: fakeCredential }) });
    await engine.createWorkflow(workflowWith(server.url));
    await engine.createInstance({ workflowId: 'svc', instanceId: 'i1', context: { amount: 1 } });
    expect((await engine.getInstance('i1')).interests).toEqual(['Go', 'i1', 'svc']);
    await expect(engine.applyTrigger('i1', { id: 'x', name: 'Go', subjects: ['svc'] })).resolves.toMatchObject({ outcome: 'transitioned' });
  });

  it('an Engine built without an http client refuses every call: the step faults its instance and nothing is sent', async () => {
    respond = (_request, response) => json(response, 200, true);
    const { engine } = testEngine();
    await engine.createWorkflow(workflowWith(server.url));
    await engine.createInstance({ workflowId: 'svc', instanceId: 'i1', context: { amount: 1 } });
    await expect(engine.applyTrigger('i1', { id: 'x', name: 'Go', subjects: ['svc'] })).resolves.toMatchObject({ outcome: 'faulted' });
    expect((await engine.getInstance('i1')).fault?.message).toContain('no outbound HTTP client is configured');
    expect(server.requests).toHaveLength(0);
    await expect(refusingExternalServiceClient.send({ url: server.url, method: 'GET', headers: {} })).rejects.toThrow('EngineOptions.http');
  });
});
