/**
 * HTTP manners of the local server over real loopback HTTP: HEAD, If-None-Match → 304 on instances and
 * workflows, CORS only for the configured origins (off by default), 405 with Allow, a structured access
 * log line per request without the query string, and maxPageSize on every list.
 */
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { prefixedStorageNames } from '../../src/storage/names';
import type { Logger } from '../../src/host/operation-activity-service';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from './http-client';

const definition = {
  id: 'manners',
  displayName: 'Manners',
  initialStateId: 'a',
  states: { a: { transitions: [{ id: 'go', targetStateId: 'a', conditions: [{ type: 'triggerName', name: 'Go' }] }] } },
};
const console_ = 'https://console.example.com';

const accessLog: Record<string, unknown>[] = [];
const recordingLogger: Logger = { ...silentLogger, info: (message, properties) => void (message === 'request' && accessLog.push(properties ?? {})) };

let host: LocalHost;
let corsOffHost: LocalHost;
let api: ReturnType<typeof httpClient>;

beforeAll(async () => {
  const storageNames = prefixedStorageNames(uniquePrefix('manners'));
  host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_CORS_ALLOWED_ORIGINS: `${console_}, https://other.example.com/` },
    port: 0,
    storageNames,
    logger: recordingLogger,
  });
  corsOffHost = await startLocalHost({ env: { SIGNALBOX_STORAGE: testConnectionString() }, port: 0, storageNames, logger: silentLogger });
  api = httpClient(host.url);
  expect((await api.request('PUT', '/api/workflows/manners', { json: definition })).status).toBe(201);
  // A second workflow, so that the workflow list has more than one page of one.
  expect((await api.request('PUT', '/api/workflows/manners-2', { json: { ...definition, id: 'manners-2' } })).status).toBe(201);
  for (const instanceId of ['m-1', 'm-2', 'm-3']) expect((await api.request('POST', '/api/instances', { json: { workflowId: 'manners', instanceId } })).status).toBe(201);
});

afterAll(async () => {
  await host?.stop();
  await corsOffHost?.stop();
});

describe('conditional GET', () => {
  it.each([['/api/instances/m-1'], ['/api/workflows/manners']])('answers 304 on %s while If-None-Match names the ETag, 200 otherwise', async (path) => {
    const first = await api.request('GET', path);
    const etag = first.headers.get('etag')!;
    const notModified = await api.request('GET', path, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await api.request('GET', path, { headers: { 'if-none-match': `"other", ${etag}` } })).status).toBe(304);
    expect((await api.request('GET', path, { headers: { 'if-none-match': '*' } })).status).toBe(304);
    const changed = await api.request('GET', path, { headers: { 'if-none-match': '"something-else"' } });
    expect(changed.status).toBe(200);
    expect(changed.body.etag).toBe(etag);
  });

  it('answers 200 again once the instance changed', async () => {
    const before = await api.request('GET', '/api/instances/m-2');
    const accepted = await api.request('POST', '/api/instances/m-2/triggers', { json: { name: 'Go' } });
    await api.waitForOperation(accepted.body.operationId);
    const after = await api.request('GET', '/api/instances/m-2', { headers: { 'if-none-match': before.headers.get('etag')! } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });
});

describe('HEAD', () => {
  it('answers as GET would, headers only', async () => {
    const get = await api.request('GET', '/api/instances/m-1');
    const head = await api.request('HEAD', '/api/instances/m-1');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(head.headers.get('content-type')).toContain('application/json');
    expect((await api.request('HEAD', '/api/instances/nobody')).status).toBe(404);
    expect((await api.request('HEAD', '/api/workflows')).status).toBe(200);
  });
});

describe('CORS', () => {
  it('is off by default: no CORS headers, and a preflight is an ordinary 405', async () => {
    const off = httpClient(corsOffHost.url);
    const read = await off.request('GET', '/api/instances/m-1', { headers: { origin: console_ } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await off.request('OPTIONS', '/api/health', { headers: { origin: console_, 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get('allow')).toBe('GET, HEAD');
  });

  it('allows the configured origins, exposing the headers clients read', async () => {
    const read = await api.request('GET', '/api/instances/m-1', { headers: { origin: console_ } });
    expect(read.headers.get('access-control-allow-origin')).toBe(console_);
    expect(read.headers.get('access-control-expose-headers')).toContain('etag');
    expect(read.headers.get('vary')).toBe('Origin');
    expect((await api.request('GET', '/api/instances/m-1', { headers: { origin: 'https://other.example.com' } })).headers.get('access-control-allow-origin')).toBe('https://other.example.com');
    expect((await api.request('GET', '/api/instances/m-1', { headers: { origin: 'https://evil.example.com' } })).headers.get('access-control-allow-origin')).toBeNull();
    // Problems carry them too, so a browser can read why a request failed.
    expect((await api.request('GET', '/api/instances/nobody', { headers: { origin: console_ } })).headers.get('access-control-allow-origin')).toBe(console_);
  });

  it('answers preflights from allowed origins with the methods of the path', async () => {
    const preflight = await api.request('OPTIONS', '/api/workflows/manners', {
      headers: { origin: console_, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'if-match, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(console_);
    expect(preflight.headers.get('access-control-allow-methods')!.split(', ')).toEqual(expect.arrayContaining(['GET', 'PUT', 'HEAD']));
    expect(preflight.headers.get('access-control-allow-methods')).not.toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('if-match');
    const refused = await api.request('OPTIONS', '/api/workflows/manners', { headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'PUT' } });
    expect(refused.status).toBe(405);
  });
});

describe('paging and the access log', () => {
  it.each([['/api/instances?workflowId=manners'], ['/api/instances?subject=Go'], ['/api/instances/m-2/history'], ['/api/workflows']])('pages %s with maxPageSize', async (path) => {
    const separator = path.includes('?') ? '&' : '?';
    const page = await api.request('GET', `${path}${separator}maxPageSize=1`);
    expect(page.status).toBe(200);
    expect(page.body.items.length).toBeLessThanOrEqual(1);
    // Every list here holds at least two items, so pages of one follow each other until all are seen.
    const seen: unknown[] = [...page.body.items];
    let token: string | undefined = page.body.continuationToken;
    for (let pages = 1; token && pages < 10; pages += 1) {
      const next = await api.request('GET', `${path}${separator}maxPageSize=1&continuationToken=${encodeURIComponent(token)}`);
      expect(next.status).toBe(200);
      expect(next.body.items.length).toBeLessThanOrEqual(1);
      seen.push(...next.body.items);
      token = next.body.continuationToken;
    }
    const whole = await api.request('GET', path);
    expect(whole.body.items.length).toBeGreaterThanOrEqual(2);
    expect(seen).toEqual(whole.body.items);
    expect((await api.request('GET', `${path}${separator}maxPageSize=0`)).status).toBe(400);
    expect((await api.request('GET', `${path}${separator}maxPageSize=1001`)).status).toBe(400);
  });

  it('logs one structured line per request, path without the query string', async () => {
    accessLog.length = 0;
    await api.request('GET', '/api/instances/m-1?code=secret-key');
    await api.request('PATCH', '/api/health');
    expect(accessLog).toEqual([
      { method: 'GET', path: '/api/instances/m-1', status: 200, durationInMs: expect.any(Number) },
      { method: 'PATCH', path: '/api/health', status: 405, durationInMs: expect.any(Number) },
    ]);
    expect(JSON.stringify(accessLog)).not.toContain('secret-key');
  });
});
