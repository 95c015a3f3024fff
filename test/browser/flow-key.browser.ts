/**
 * The per-key flow view on the workflow page, in headless chromium against a real local server on
 * Azurite: one application of key customer:42 holds the only slot (its outbound call is held open by a
 * test server), a second trigger waits for it; the view shows what runs, what waits and the limit, an
 * admin raises the limit (the waiter is admitted) and removes the override, each change audited; the
 * waiting instance's page says it is queued for a slot.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startTestHost, type TestHost } from '../support/local-host';
import { accessibilityViolations, launchBrowser, screenshotOf, openTestPage, closeTestPage } from './support/browser';

/** Calls to the partner, answered only when the test releases them. */
const heldCalls: ServerResponse[] = [];
let partner: Server;
let test: TestHost;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Refreshes the key's view until its summary says what is expected (the applications end on their own time). */
async function refreshUntil(view: Locator, expected: (summary: string) => boolean, what: string): Promise<void> {
  await until(async () => {
    await view.getByRole('button', { name: 'Refresh' }).click();
    await new Promise((resolve) => setTimeout(resolve, 200));
    return expected((await view.getByTestId('flow-key-summary').textContent()) ?? '');
  }, what);
}

function releaseCalls(): void {
  for (const response of heldCalls.splice(0)) response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
}

beforeAll(async () => {
  partner = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => heldCalls.push(response));
  });
  await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));
  const partnerUrl = `http://127.0.0.1:${(partner.address() as AddressInfo).port}/work`;
  test = await startTestHost('flowview', { env: { SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' } });
  const orders = {
    id: 'orders',
    displayName: 'Orders',
    initialStateId: 'open',
    flow: { concurrency: { key: "'customer:' & context.customer", limit: 1, maxWait: 'PT2M' } },
    states: {
      open: {
        transitions: [
          {
            id: 'work',
            targetStateId: 'open',
            conditions: [{ type: 'triggerName', name: 'Work' }],
            actions: [{ type: 'invokeExternalService', id: 'call', url: partnerUrl, timeoutMs: 120_000 }],
          },
        ],
      },
    },
  };
  expect((await test.api.request('PUT', '/api/workflows/orders', { json: orders })).status).toBe(201);
  for (const instanceId of ['o-1', 'o-2']) expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'orders', instanceId, context: { customer: 42 } } })).status).toBe(201);
  expect((await test.api.request('POST', '/api/triggers', { json: { name: 'Work', subjects: ['o-1'] } })).status).toBe(202);
  await until(() => heldCalls.length === 1, "o-1's call holding the slot");
  expect((await test.api.request('POST', '/api/triggers', { json: { name: 'Work', subjects: ['o-2'], priority: 5 } })).status).toBe(202);
  await until(async () => (await test.api.request('GET', '/api/flow/orders/keys/customer%3A42')).body.queued?.length === 1, "o-2's trigger queued");
  // At most one pick per customer: p-1 is in `picking`, p-2's trigger waits for room.
  const picks = {
    id: 'picks',
    displayName: 'Picks',
    initialStateId: 'open',
    states: {
      open: { transitions: [{ id: 'pick', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Pick' }] }] },
      picking: {
        capacity: { key: 'customer:{{context.customer}}', limit: 1, timeout: 'PT2H' },
        transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }],
      },
      done: {},
    },
  };
  expect((await test.api.request('PUT', '/api/workflows/picks', { json: picks })).status).toBe(201);
  for (const instanceId of ['p-1', 'p-2']) {
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'picks', instanceId, context: { customer: 42 } } })).status).toBe(201);
    expect((await test.api.request('POST', `/api/instances/${instanceId}/triggers`, { json: { id: `pick-${instanceId}`, name: 'Pick' }, headers: { prefer: 'wait=30' } })).status).toBeLessThan(300);
  }
  browser = await launchBrowser();
});

beforeEach(async () => {
  ({ context, page, pageErrors } = await openTestPage(browser));
});

afterEach(async () => {
  await closeTestPage({ context, pageErrors });
});

afterAll(async () => {
  releaseCalls();
  await browser?.close();
  await test?.host.stop();
  partner.closeAllConnections();
  await new Promise((resolve) => partner.close(resolve));
});

it("the waiting instance's page says its trigger is queued for a slot of the key", async () => {
  await page.goto(`${test.host.url}/console/#/instances/o-2`);
  const why = page.getByTestId('why-panel');
  await why.getByTestId('why-class').waitFor();
  await expect(why.getByTestId('why-class').getAttribute('data-class')).resolves.toBe('queuedForSlot');
  const queued = why.locator('li[data-class="queuedForSlot"]');
  await expect(queued.textContent()).resolves.toMatch(/on key customer:42: 1 of 1 waiting, 1\/1 running \(priority 5\)/);
  await expect(queued.textContent()).resolves.toContain('signalbox flow orders customer:42');
});

it('the workflow page shows one key: running, queued in order, next release, the limit; an admin overrides it, audited', async () => {
  await page.goto(`${test.host.url}/console/#/workflows/orders`);
  const view = page.getByTestId('flow-key-view');
  await view.getByLabel('Key', { exact: true }).fill('customer:42');
  await view.getByRole('button', { name: 'Show key' }).click();
  const summary = view.getByTestId('flow-key-summary');
  await summary.waitFor();
  await expect(summary.textContent()).resolves.toContain("1/1 running, 1 queued on key customer:42; limit 1 (the definition's)");
  await expect(view.getByTestId('flow-key-running').getByRole('link', { name: 'o-1' }).count()).resolves.toBe(1);
  await expect(view.getByTestId('flow-key-queued').getByRole('listitem').allTextContents()).resolves.toEqual([expect.stringMatching(/^o-2 trigger \S+, priority 5, since /)]);
  await expect(view.getByTestId('flow-key-next-release').textContent()).resolves.toContain('at the latest');
  await expect(view.textContent()).resolves.toContain('The limit of this key was never overridden.');
  await screenshotOf(view, 'workflow-flow-key');
  expect(await accessibilityViolations(page)).toEqual([]);

  // Not a whole number: said at once; out of range: the server's problem names the field; nothing changes.
  await view.getByLabel('New limit for this key').fill('two');
  await view.getByRole('button', { name: 'Set limit' }).click();
  await expect(view.getByRole('alert').textContent()).resolves.toContain('The limit is a whole number');
  await view.getByLabel('New limit for this key').fill('0');
  await view.getByRole('button', { name: 'Set limit' }).click();
  await expect(view.getByRole('alert').locator('.problem-errors code').textContent({ timeout: 60_000 })).resolves.toBe('limit');
  expect((await test.api.request('GET', '/api/flow/orders/keys/customer%3A42')).body).toMatchObject({ limit: 1, audit: [] });
  // The browser logs the refused request; that one is expected, nothing else.
  expect(pageErrors.splice(0)).toEqual(['console: Failed to load resource: the server responded with a status of 400 (Bad Request)']);

  // Raised to 2: the waiter takes the second slot.
  await view.getByLabel('New limit for this key').fill('2');
  await view.getByRole('button', { name: 'Set limit' }).click();
  await until(async () => ((await summary.textContent()) ?? '').includes('limit 2 (overridden; the definition says 1)'), 'the override shown');
  const audit = view.getByTestId('flow-key-audit');
  await expect(audit.getByRole('row').nth(1).getByRole('cell').allTextContents()).resolves.toEqual([expect.any(String), expect.any(String), '1', '2']);
  await until(() => heldCalls.length === 2, "o-2's call, admitted under the new limit");
  await refreshUntil(view, (text) => text.startsWith('2/2 running, 0 queued'), 'both running');

  // Removed: the definition's limit applies again, and the removal is audited first.
  await view.getByRole('button', { name: 'Remove override' }).click();
  await until(async () => ((await summary.textContent()) ?? '').includes("limit 1 (the definition's)"), 'the override removed');
  await expect(audit.getByRole('row').nth(1).getByRole('cell').allTextContents()).resolves.toEqual([expect.any(String), expect.any(String), '2', "removed (the definition's)"]);
  await expect(audit.getByRole('row').count()).resolves.toBe(3);

  releaseCalls();
  await refreshUntil(view, (text) => text.startsWith('0/1 running, 0 queued'), 'the slots released');
  await expect(view.getByTestId('flow-key-next-release').textContent()).resolves.toContain('nothing waits');
});

it('the workflow page shows one key per state with capacity: who is in it, who waits for room and until when; the waiter enters once room frees', async () => {
  await page.goto(`${test.host.url}/console/#/workflows/picks`);
  const view = page.getByTestId('flow-key-view');
  // The view renders once the workflow has loaded: wait for its key description before reading it.
  await until(async () => (await view.locator('p.muted code').count()) > 0, 'the key description');
  await expect(view.locator('p.muted code').allTextContents()).resolves.toEqual(['customer:{{context.customer}}']);
  await view.getByLabel('Key', { exact: true }).fill('customer:42');
  await view.getByRole('button', { name: 'Show key' }).click();
  const picking = view.locator('[data-testid="flow-key-capacity"][data-state="picking"]');
  await picking.waitFor();
  await expect(picking.getByRole('heading').textContent()).resolves.toBe('State picking: 1/1 in it, 1 waiting for room');
  await expect(picking.getByTestId('flow-key-capacity-members').getByRole('link', { name: 'p-1' }).count()).resolves.toBe(1);
  await expect(picking.getByTestId('flow-key-capacity-queued').getByRole('listitem').allTextContents()).resolves.toEqual([
    expect.stringMatching(/^p-2 trigger pick-p-2, priority 3, since .+, waits until /),
  ]);
  await expect(view.getByTestId('flow-key-summary').textContent()).resolves.toContain('no concurrency policy');
  await screenshotOf(view, 'workflow-flow-key-capacity');
  expect(await accessibilityViolations(page)).toEqual([]);

  // p-1 leaves: its save re-offers p-2's trigger, which enters.
  expect((await test.api.request('POST', '/api/instances/p-1/triggers', { json: { id: 'done-p-1', name: 'Done' }, headers: { prefer: 'wait=30' } })).status).toBeLessThan(300);
  await until(async () => {
    await view.getByRole('button', { name: 'Refresh' }).click();
    await new Promise((resolve) => setTimeout(resolve, 200));
    return ((await picking.getByRole('heading').textContent()) ?? '') === 'State picking: 1/1 in it, 0 waiting for room';
  }, 'p-2 admitted');
  await expect(picking.getByTestId('flow-key-capacity-members').getByRole('link', { name: 'p-2' }).count()).resolves.toBe(1);
  await expect(picking.textContent()).resolves.toContain('No trigger waits for room in this state.');
});
