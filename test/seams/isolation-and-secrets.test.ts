/**
 * Seams: isolation and secrets, on the local server (Azurite, real loopback HTTP), because both are the
 * host's business.
 *
 * - Redaction × faults, traces, operations, events, logs, dry runs: a workflow calls a loopback service
 *   through a URL with `user:password@` and query keys; the service answers 500 (retried, then a fault).
 *   None of the secrets may appear anywhere the call is described afterwards.
 * - Host and origin × every state-changing route of the route table (so a new route gets its row): a
 *   foreign Host (DNS rebinding), and what a browser sends for a page on another origin (a form, a
 *   `no-cors` fetch, a same-site page, `Origin: null`; Sec-Fetch-Site, or a foreign Origin without it) are
 *   refused, so is a form's body from anywhere (415), and the instance is unchanged (decision 0019).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConsoleLogger } from '../../src/host/local/logger';
import { routes } from '../../src/host/http/routes';
import { startTestHost, type TestHost } from '../support/local-host';
import { curlHeaders, rawRequest } from '../support/raw-http';

const SECRETS = ['alice', 'hunter2pass', 'functionKeyS3cret', 'sigS3cret', 'fragmentS3cret', 'subscriberKeyS3cret'];

/** The outside service: `/yes` answers `true`, `/fail` 500 every time. */
let service: Server;
let serviceBase = '';
const serviceCalls: string[] = [];
/** The subscriber: records every CloudEvent body. */
let subscriber: Server;
let subscriberBase = '';
const received: Array<{ url: string; body: string }> = [];
const logLines: string[] = [];
let test: TestHost;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function close(server: Server | undefined): Promise<void> {
  return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

function expectNoSecret(what: string, text: string): void {
  for (const secret of SECRETS) if (text.includes(secret)) throw new Error(`${what} holds the secret "${secret}": ${text.slice(Math.max(0, text.indexOf(secret) - 200), text.indexOf(secret) + 100)}`);
}

/** Polls until `read` returns something, within a generous deadline. */
async function eventually<T>(read: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let poll = 0; poll < 800; poll++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${what} did not happen`);
}

beforeAll(async () => {
  service = createServer((request, response) => {
    serviceCalls.push(request.url ?? '');
    request.resume();
    if (request.url?.startsWith('/yes')) response.writeHead(200, { 'content-type': 'application/json' }).end('true');
    else if (request.url?.startsWith('/no')) response.writeHead(200, { 'content-type': 'application/json' }).end('false');
    else response.writeHead(500).end('broken');
  });
  subscriber = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ url: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200).end();
    });
  });
  serviceBase = await listen(service);
  subscriberBase = await listen(subscriber);
  test = await startTestHost('seamsSecrets', {
    env: { SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' },
    logger: createConsoleLogger({ write: (line) => void logLines.push(line) }),
    engineOptions: { events: { policy: { maxAttempts: 3, firstRetryDelayInMs: 20, maxRetryDelayInMs: 100 } } },
  });
});

afterAll(async () => {
  await test?.host.stop();
  await close(service);
  await close(subscriber);
});

describe('redaction', () => {
  const secretUrl = (path: string) => `http://alice:hunter2pass@${serviceBase}${path}?code=functionKeyS3cret&sig=sigS3cret#fragmentS3cret`;
  const workflow = () => ({
    id: 'leaky',
    displayName: 'Leaky',
    initialStateId: 'open',
    subscriptions: [{ id: 'audit', url: `http://${subscriberBase}/events?code=subscriberKeyS3cret` }],
    states: {
      open: {
        transitions: [
          // Answered false: the offer changes nothing, and is kept with its trace (GET .../offers).
          {
            id: 'probe',
            targetStateId: 'called',
            conditions: [
              { type: 'triggerName', name: 'Probe' },
              { type: 'invokeExternalService', method: 'GET', url: secretUrl('/no') },
            ],
          },
          {
            id: 'check',
            targetStateId: 'checked',
            conditions: [
              { type: 'triggerName', name: 'Check' },
              { type: 'invokeExternalService', method: 'GET', url: secretUrl('/yes') },
            ],
          },
        ],
      },
      checked: {
        transitions: [{ id: 'call', targetStateId: 'called', conditions: [{ type: 'triggerName', name: 'Call' }], actions: [{ type: 'invokeExternalService', url: secretUrl('/fail') }] }],
      },
      called: {},
    },
  });
  let checkOperation: { body: unknown; text: string };
  let callOperation: { body: unknown; text: string };

  beforeAll(async () => {
    const { api } = test;
    expect((await api.request('PUT', '/api/workflows/leaky', { json: workflow() })).status).toBe(201);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'leaky', instanceId: 'leak-1' } })).status).toBe(201);
    const check = await api.request('POST', '/api/instances/leak-1/triggers', { json: { name: 'Check' } });
    checkOperation = await api.waitForOperation(check.body.operationId);
    const call = await api.request('POST', '/api/instances/leak-1/triggers', { json: { name: 'Call' } });
    callOperation = await api.waitForOperation(call.body.operationId);
  });

  it('redaction × faults: the instance fault and its history name the service without userinfo, query values or fragment', async () => {
    // The secrets did reach the service (so the test is not vacuous): the call was made, three times.
    expect(serviceCalls.filter((url) => url.startsWith('/fail?code=functionKeyS3cret'))).toHaveLength(3);
    const instance = await test.api.request('GET', '/api/instances/leak-1');
    expect(instance.body.status).toBe('faulted');
    expect(instance.body.fault.message).toContain(`http://***@${serviceBase}/fail?code=***&sig=***#***`);
    expectNoSecret('the instance', instance.text);
    const history = await test.api.request('GET', '/api/instances/leak-1/history');
    expect(history.text).toContain('faulted');
    expectNoSecret('the history', history.text);
  });

  it('redaction × why is it stuck: the fault cause of the instance answer and of the workflow counts names the service redacted', async () => {
    const why = await test.api.request('GET', '/api/instances/leak-1/waiting');
    expect(why.body.class).toBe('faulted');
    expect(why.body.reasons[0].cause).toContain(`http://***@${serviceBase}/fail?code=***&sig=***#***`);
    expectNoSecret('the instance answer', why.text);
    const counts = await test.api.request('GET', '/api/workflows/leaky/waiting');
    expect(counts.text).toContain(`http://***@${serviceBase}/fail`);
    expectNoSecret('the workflow counts', counts.text);
  });

  it('redaction × traces: the trace of a condition that called the service names it redacted', () => {
    expect(checkOperation.text).toContain(`GET http://***@${serviceBase}/yes?code=***&sig=***#*** answered true`);
    expectNoSecret('the check operation', checkOperation.text);
  });

  it('redaction × operations: the operation record of the faulting trigger holds no secret', () => {
    expect(callOperation.text).toContain('faulted');
    expectNoSecret('the call operation', callOperation.text);
  });

  it('redaction × events: the faulted CloudEvent a subscriber receives, and the delivery records, hold no secret', async () => {
    const faulted = await eventually(() => received.find((item) => item.body.includes('io.signalbox.instance.faulted')), 'the faulted event');
    expect(faulted.body).toContain(`http://***@${serviceBase}/fail`);
    for (const item of received) expectNoSecret('a CloudEvent', item.body);
    expectNoSecret('the delivery records', (await test.api.request('GET', '/api/instances/leak-1/events')).text);
  });

  it("redaction × logs: the retry lines, the fault's own line and every other log line hold no secret", () => {
    const retries = logLines.filter((line) => line.includes('Retrying an outbound call'));
    expect(retries).toHaveLength(2);
    expect(retries[0]).toContain(`http://***@${serviceBase}/fail`);
    // The line that says an instance faulted (at error, with its reason) names the service redacted.
    const faulted = logLines.filter((line) => line.includes('An instance faulted') && line.includes('leak-1'));
    expect(faulted).toHaveLength(1);
    expect(faulted[0]).toContain(`http://***@${serviceBase}/fail?code=***`);
    for (const line of logLines) expectNoSecret('a log line', line);
  });

  it('redaction × offers: a trigger that changed nothing is kept with its trace (GET /api/instances/{id}/offers), the service named redacted', async () => {
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'leaky', instanceId: 'leak-3' } })).status).toBe(201);
    const probe = await test.api.request('POST', '/api/instances/leak-3/triggers', { json: { name: 'Probe' } });
    expect((await test.api.waitForOperation(probe.body.operationId)).text).toContain('noTransition');
    const offers = await test.api.request('GET', '/api/instances/leak-3/offers');
    expect(offers.status).toBe(200);
    expect(offers.text).toContain(`GET http://***@${serviceBase}/no?code=***&sig=***#*** answered false`);
    expectNoSecret('the offers', offers.text);
  });

  it('redaction × dry runs (the console shows them): the simulated request names the service redacted', async () => {
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'leaky', instanceId: 'leak-2' } })).status).toBe(201);
    const dryRun = await test.api.request('POST', '/api/instances/leak-2/triggers?dryRun=true', { json: { name: 'Check' } });
    expect(dryRun.status).toBe(200);
    expect(dryRun.text).toContain(`http://***@${serviceBase}/yes?code=***`);
    expectNoSecret('the dry run', dryRun.text);
  });
});

const raw = (method: string, path: string, headers: Record<string, string>, body?: string) => rawRequest(test.host.url, method, path, headers, body);

describe('host and origin', () => {
  const door = {
    id: 'door',
    displayName: 'Door',
    initialStateId: 'open',
    states: { open: { transitions: [{ id: 'shut', targetStateId: 'shut', conditions: [{ type: 'triggerName', name: 'Shut' }] }] }, shut: {} },
  };
  const stateChanging = routes.flatMap((route) => route.methods.filter((method) => method !== 'GET').map((method) => ({ method, route })));
  const pathOf = (route: string) =>
    `/api/${route.replace('{workflowId}', 'door').replace('{instanceId}', 'victim').replace('{eventId}', encodeURIComponent('victim:0:created')).replace('{operationId}', 'none').replace('{tenantId}', 'nobody')}`;
  const doorV2 = { ...door, displayName: 'Door, version 2' };
  const validBodies: Record<string, unknown> = {
    'PUT workflows/{workflowId}': doorV2,
    'POST workflows': { ...doorV2, id: 'door-2' },
    'POST instances': { workflowId: 'door', instanceId: 'victim-2' },
    'POST instances/{instanceId}/triggers': { name: 'Shut' },
    'POST instances/{instanceId}/recover': { stateId: 'open' },
    'POST workflows/{workflowId}/migrations': { fromVersion: 1, toVersion: 1 },
    'POST instances/bulk': { action: 'cancel', filter: { workflowId: 'door' } },
    'POST triggers': { name: 'Shut', subjects: ['victim'] },
    'POST workflows/validate': door,
  };
  let port = '';
  let before = '';
  const snapshot = async () => {
    const [instance, workflow, instances] = await Promise.all([
      test.api.request('GET', '/api/instances/victim'),
      test.api.request('GET', '/api/workflows/door'),
      test.api.request('GET', '/api/instances?workflowId=door'),
    ]);
    return JSON.stringify([instance.status, instance.body, workflow.status, workflow.body, instances.body?.items?.length]);
  };

  beforeAll(async () => {
    port = new URL(test.host.url).port;
    expect((await test.api.request('PUT', '/api/workflows/door', { json: door })).status).toBe(201);
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'door', instanceId: 'victim' } })).status).toBe(201);
    before = await snapshot();
  });

  it('has a state-changing route to cross', () => {
    expect(stateChanging.length).toBeGreaterThanOrEqual(15);
  });

  it.each(stateChanging.map(({ method, route }) => [`${method} /api/${route.route}`, method, route.route] as const))(
    'host and origin × %s: a foreign Host, a cross-site form, a no-cors fetch, a same-site page, Origin null and a foreign Origin are refused, and nothing changes',
    async (_name, method, route) => {
      const path = pathOf(route);
      // A body the route would take (so only the checks stand between the request and a change).
      const json = JSON.stringify(validBodies[`${method} ${route}`] ?? {});
      const own = `127.0.0.1:${port}`;
      // DNS rebinding: the page's own name, resolved to 127.0.0.1 (the browser calls it same-origin).
      const rebound = await raw(method, path, { host: `attacker.example:${port}`, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }, json);
      expect([rebound.status, rebound.text]).toEqual([421, expect.stringContaining('attacker.example')]);
      // What Chromium sends for a page on another origin: a form's POST, a no-cors fetch, a fetch with what
      // only a preflight would allow, a sandboxed frame (Origin null), a page on another port of localhost (same site).
      const attacks: Array<{ headers: Record<string, string>; body: string; names: string }> = [
        {
          headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', origin: 'http://attacker.example', 'content-type': 'application/x-www-form-urlencoded' },
          body: 'name=Shut',
          names: 'cross-site',
        },
        { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', origin: 'http://attacker.example', 'content-type': 'text/plain;charset=UTF-8' }, body: json, names: 'cross-site' },
        { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: 'http://attacker.example', 'content-type': 'application/json' }, body: json, names: 'cross-site' },
        { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', origin: 'null' }, body: '', names: 'null' },
        { headers: { host: `localhost:${port}`, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', origin: 'http://localhost:1' }, body: '', names: 'same-site' },
      ];
      for (const attack of attacks) {
        const refused = await raw(method, path, { host: own, ...attack.headers }, attack.body);
        expect([attack.headers, refused.status, JSON.parse(refused.text).detail]).toEqual([attack.headers, 403, expect.stringContaining(attack.names)]);
      }
      // Without fetch metadata (an older browser): a foreign Origin, and Origin null, are refused alike.
      for (const origin of ['http://127.0.0.1:1', 'null']) {
        const foreign = await raw(method, path, { host: own, origin, 'content-type': 'application/json', 'x-signalbox-client': 'test' }, json);
        expect([foreign.status, JSON.parse(foreign.text).detail]).toEqual([403, expect.stringContaining(JSON.stringify(origin))]);
      }
      // A form's body or text, even from no browser at all, never reaches the handler: 415 for the body.
      for (const [type, body] of [
        ['application/x-www-form-urlencoded', 'name=Shut'],
        ['text/plain', json],
      ] as const) {
        const unsupported = await raw(method, path, { host: own, 'content-type': type }, body);
        expect([type, unsupported.status]).toEqual([type, 415]);
      }
      expect(await snapshot()).toBe(before);
    },
  );

  it("host and origin × reads: a foreign Host cannot read either; the loopback names on the server's port can", async () => {
    expect((await raw('GET', '/api/instances/victim', { host: `attacker.example:${port}` })).status).toBe(421);
    expect((await raw('GET', '/console/', { host: `attacker.example:${port}` })).status).toBe(421);
    expect((await raw('GET', '/api/instances/victim', { host: `127.0.0.1:${Number(port) + 1}` })).status).toBe(421);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) expect((await raw('GET', '/api/instances/victim', { host })).status).toBe(200);
  });

  it('host and origin × each accepted form: a plain client (no Origin, no fetch metadata, no content type, no custom header) and a same-origin page change the instance', async () => {
    const curl = { ...curlHeaders(test.host.url), host: `localhost:${port}` };
    const plain = await raw('POST', '/api/instances/victim/suspend', curl);
    expect([plain.status, JSON.parse(plain.text).status]).toEqual([200, 'suspended']);
    const sameOrigin = await raw('POST', '/api/instances/victim/resume', { host: `localhost:${port}`, origin: `http://localhost:${port}`, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' });
    expect([sameOrigin.status, JSON.parse(sameOrigin.text).status]).toEqual([200, 'waiting']);
  });
});
