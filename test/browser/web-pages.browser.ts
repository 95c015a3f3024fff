/**
 * The local server is not a door for web pages (issue 22), in Chromium: with no API key (the default for
 * local use), a page served from another loopback origin submits a plain `<form method=POST>` to cancel
 * an instance and sends a `no-cors` fetch to suspend it, as the attack did; and a DNS-rebinding name (mapped
 * to 127.0.0.1 by the browser's resolver rules) asks for the API as if it were its own origin; a page on
 * another port of localhost (the same site, decision 0019) tries the form and the fetch too. The server
 * sees each request (its access log says so) and refuses it; the instance is unchanged.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { prefixedStorageNames } from '../../src/storage/names';
import { httpClient } from '../host/http-client';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { launchBrowser } from './support/browser';

const REBOUND_NAME = 'rebound.signalbox.test';

interface AccessLine {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}
const accessLog: AccessLine[] = [];
let host: LocalHost;
let api: ReturnType<typeof httpClient>;
let attacker: Server;
let attackerUrl = '';
let browser: Browser;

/** The attacker's page: a form that posts itself, and a no-cors fetch, both at the Signalbox server. */
function attackerPage(target: string, instanceId: string): string {
  return `<!doctype html><html><body>
<form id="cancel" method="POST" action="${target}/api/instances/${instanceId}/cancel"></form>
<script>
  window.fetchDone = fetch(${JSON.stringify(`${target}/api/instances/${instanceId}/suspend`)}, { method: 'POST', mode: 'no-cors' })
    .then(() => 'sent', (error) => 'failed: ' + error);
</script>
</body></html>`;
}

async function until<T>(read: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let poll = 0; poll < 800; poll++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${what} did not happen`);
}

beforeAll(async () => {
  host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: testConnectionString() },
    port: 0,
    storageNames: prefixedStorageNames(uniquePrefix('door')),
    logger: {
      info: (message, properties) => void (message === 'request' && accessLog.push(properties as unknown as AccessLine)),
      warn: () => {},
      error: () => {},
    },
  });
  api = httpClient(host.url);
  const door = {
    id: 'door',
    displayName: 'Door',
    initialStateId: 'open',
    states: { open: { transitions: [{ id: 'shut', targetStateId: 'shut', conditions: [{ type: 'triggerName', name: 'Shut' }] }] }, shut: {} },
  };
  expect((await api.request('PUT', '/api/workflows/door', { json: door })).status).toBe(201);
  for (const instanceId of ['victim', 'neighbour']) expect((await api.request('POST', '/api/instances', { json: { workflowId: 'door', instanceId } })).status).toBe(201);
  attacker = createServer((request, response) => {
    request.resume();
    // `/same-site` aims at the server by the attacker's own host name (localhost, another port: the same site).
    const page = request.url === '/same-site' ? attackerPage(`http://localhost:${new URL(host.url).port}`, 'neighbour') : attackerPage(host.url, 'victim');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  // Another loopback origin: localhost rather than 127.0.0.1, and another port.
  attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`;
  browser = await launchBrowser([`--host-resolver-rules=MAP ${REBOUND_NAME} 127.0.0.1`]);
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await new Promise((resolve) => (attacker ? attacker.close(resolve) : resolve(undefined)));
});

it('a page on another origin cannot cancel an instance with a form nor suspend it with a no-cors fetch', async () => {
  const before = (await api.request('GET', '/api/instances/victim')).body;
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(attackerUrl);
  await expect(page.evaluate('window.fetchDone')).resolves.toBe('sent');
  await page.evaluate('document.getElementById("cancel").submit()');
  const cancelled = await until(() => accessLog.find((line) => line.path === '/api/instances/victim/cancel'), 'the form POST');
  const suspended = await until(() => accessLog.find((line) => line.path === '/api/instances/victim/suspend'), 'the no-cors fetch');
  // Both reached the server, from a foreign Origin, and were refused.
  expect([cancelled.method, cancelled.status]).toEqual(['POST', 403]);
  expect([suspended.method, suspended.status]).toEqual(['POST', 403]);
  const after = (await api.request('GET', '/api/instances/victim')).body;
  expect(after).toEqual(before);
  expect(after.status).toBe('waiting');
  await context.close();
});

it('a page on another port of the same host name (the same site) cannot either', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  // What the browser says of each (the headers it sent, as it reports them): the check reads that.
  const sent: Array<Promise<Record<string, string>>> = [];
  page.on('request', (request) => void (request.url().includes('/api/instances/neighbour/') && sent.push(request.allHeaders())));
  await page.goto(`${attackerUrl}same-site`);
  await expect(page.evaluate('window.fetchDone')).resolves.toBe('sent');
  await page.evaluate('document.getElementById("cancel").submit()');
  const cancelled = await until(() => accessLog.find((line) => line.path === '/api/instances/neighbour/cancel'), 'the form POST');
  const suspended = await until(() => accessLog.find((line) => line.path === '/api/instances/neighbour/suspend'), 'the no-cors fetch');
  expect([cancelled.method, cancelled.status]).toEqual(['POST', 403]);
  expect([suspended.method, suspended.status]).toEqual(['POST', 403]);
  expect((await api.request('GET', '/api/instances/neighbour')).body.status).toBe('waiting');
  // Chromium reports the form's navigation headers (a no-cors fetch's it may leave out): Sec-Fetch-Site said same-site.
  const reported = (await Promise.all(sent)).filter((header) => header['sec-fetch-site'] !== undefined);
  expect(reported.map((header) => [header['sec-fetch-site'], header['sec-fetch-mode']])).toContainEqual(['same-site', 'navigate']);
  expect(reported.every((header) => header['sec-fetch-site'] === 'same-site')).toBe(true);
  await context.close();
});

it('a DNS-rebinding name cannot read the API nor load the console, though it reaches the server', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const port = new URL(host.url).port;
  const api = await page.goto(`http://${REBOUND_NAME}:${port}/api/instances/victim`);
  expect(api?.status()).toBe(421);
  await expect(page.content()).resolves.not.toContain('"workflowId"');
  expect((await page.goto(`http://${REBOUND_NAME}:${port}/console/`))?.status()).toBe(421);
  // The same server by its own name answers, so the refusal is the Host check's.
  expect((await page.goto(`${host.url}/api/instances/victim`))?.status()).toBe(200);
  await context.close();
});
