/**
 * Issue 24 in a real browser: the Operations page (newest first, filters, through to an operation), an
 * operation's results a page at a time, an instance's history linking to operations with the triggers
 * that changed nothing, and recovery with a context patch. A local server with a function key on
 * Azurite, the built console in headless chromium; axe checks each page. Screenshots go to
 * test/browser/screenshots.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestHost, type TestHost } from '../support/local-host';
import { httpClient } from '../host/http-client';
import { accessibilityViolations, launchBrowser, screenshot, openTestPage, closeTestPage, openConsoleWithKey } from './support/browser';

const API_KEY = 'operations-browser-key';
const RESULTS = 60;

/** Faults on creation when `amount` is not positive (bad data), until a recovery repairs it. */
const invoice = {
  id: 'invoice',
  displayName: 'Invoice',
  initialStateId: 'checked',
  states: {
    checked: {
      displayName: 'Checked',
      entryConditions: [{ type: 'expression', expression: '$exists(context.amount) and context.amount > 0' }],
      transitions: [{ id: 'pay', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Pay' }] }],
    },
    paid: { displayName: 'Paid' },
  },
};

let test: TestHost;
let api: ReturnType<typeof httpClient>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

async function finished(path: string, json: unknown): Promise<string> {
  const accepted = await api.request('POST', path, { json });
  expect(accepted.status).toBe(202);
  expect((await api.waitForOperation(accepted.body.operationId)).status).toBe(200);
  return accepted.body.operationId as string;
}

beforeAll(async () => {
  test = await startTestHost('webops', { env: { SIGNALBOX_API_KEY: API_KEY } });
  api = httpClient(test.host.url, { 'x-functions-key': API_KEY });
  expect((await api.request('PUT', '/api/workflows/invoice', { json: invoice })).status).toBe(201);
  for (let index = 0; index < RESULTS; index += 1) {
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'invoice', instanceId: `inv-${String(index).padStart(2, '0')}`, context: { amount: 10 } } })).status).toBe(201);
  }
  expect((await api.request('POST', '/api/instances', { json: { workflowId: 'invoice', instanceId: 'inv-bad', context: { amount: -3 } } })).body.status).toBe('faulted');
  // A trigger inv-00 takes no transition for (it answers Pay only): an offer that changed nothing.
  await finished('/api/triggers', { id: 'probe-00', name: 'Probe', subjects: ['inv-00'] });
  await finished('/api/triggers', { id: 'pay-all', name: 'Pay', subjects: Array.from({ length: RESULTS }, (_, index) => `inv-${String(index).padStart(2, '0')}`), parameters: { batch: 7 } });
  await finished('/api/instances/bulk', { action: 'cancel', filter: { workflowId: 'invoice', status: 'complete' } });
  browser = await launchBrowser();
});

beforeEach(async () => {
  ({ context, page, pageErrors } = await openTestPage(browser));
});

afterEach(async () => {
  await closeTestPage({ context, pageErrors });
});

afterAll(async () => {
  await browser?.close();
  await test?.host.stop();
});

/** Opens the console with the key already entered, as after the first visit in this tab. */
const openWithKey = (hash: string) => openConsoleWithKey(page, test.host.url, API_KEY, hash);

it('lists operations newest first with what each was, filters by kind, and opens one', async () => {
  await openWithKey('#/workflows');
  await page.getByRole('link', { name: 'Operations' }).click();
  const table = page.getByTestId('operations');
  await table.waitFor();
  const firstCells = await table.locator('tbody tr td:first-child').allTextContents();
  // The bulk action came last, so it is first; the probe came first, so it is last.
  expect(firstCells.indexOf('probe-00')).toBe(firstCells.length - 1);
  expect(firstCells.indexOf('pay-all')).toBe(firstCells.length - 2);
  await expect(table.getByRole('row', { name: /pay-all/ }).textContent()).resolves.toContain(`Trigger Pay to inv-00, inv-01, inv-02, inv-03, inv-04 and ${RESULTS - 5} more with {"batch":7}`);
  await expect(table.getByRole('row', { name: /pay-all/ }).textContent()).resolves.toContain(`transitioned ${RESULTS}`);
  await screenshot(page, 'operations');

  await page.getByLabel('Kind').selectOption('bulk');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.waitForFunction(() => window.location.hash === '#/operations?kind=bulk');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="operations"] tbody tr').length === 1);
  await expect(table.textContent()).resolves.toContain('Bulk cancel of invoice instances (status complete)');
  await table.getByRole('link').first().click();
  await page.getByTestId('operation-kind').waitFor();
  await expect(page.getByTestId('operation-kind').textContent()).resolves.toBe('Bulk cancel of invoice instances (status complete)');
});

it("shows an operation's results 50 at a time", async () => {
  await openWithKey('#/operations/pay-all');
  const outcomes = page.getByTestId('outcomes');
  await outcomes.waitFor();
  await expect(outcomes.locator('tbody tr').count()).resolves.toBe(50);
  await expect(page.getByTestId('results-range').textContent()).resolves.toBe(`1–50 of ${RESULTS}`);
  await page.getByRole('button', { name: 'Next results' }).click();
  await expect(page.getByTestId('results-range').textContent()).resolves.toBe(`51–${RESULTS} of ${RESULTS}`);
  await expect(outcomes.locator('tbody tr').count()).resolves.toBe(RESULTS - 50);
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(height).toBeLessThan(5000);
  await screenshot(page, 'operation-results-paged');
});

it('links history entries to their operations and lists the triggers that changed nothing', async () => {
  await openWithKey('#/instances/inv-00');
  const history = page.getByTestId('history');
  await history.waitFor();
  await expect(history.getByRole('link', { name: 'pay-all' }).getAttribute('href')).resolves.toBe('#/operations/pay-all');
  const offers = page.getByTestId('offers');
  await offers.waitFor();
  await expect(offers.textContent()).resolves.toContain('Probe');
  await expect(offers.textContent()).resolves.toContain('noTransition');
  await offers.getByRole('link', { name: 'probe-00' }).click();
  await page.waitForFunction(() => window.location.hash === '#/operations/probe-00');
});

it('recovers a faulted instance with a context patch, kept in the history with who made it', async () => {
  await openWithKey('#/instances/inv-bad');
  await expect(page.getByTestId('instance-status').textContent()).resolves.toBe('faulted');
  await page.getByLabel('Repair the context first (optional)').fill('{"amount": 120}');
  await screenshot(page, 'recover-with-patch');
  await page.getByRole('button', { name: 'Recover' }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="instance-status"]')?.textContent === 'waiting');
  expect((await api.request('GET', '/api/instances/inv-bad')).body).toMatchObject({ status: 'waiting', context: { amount: 120 } });
  const history = page.getByTestId('history');
  await expect(history.textContent()).resolves.toContain('by API key'); // the actor's name (its id, api-key, in the title)
  // Shown open under its own summary, as the context is.
  await history.getByText('Context patch', { exact: true }).waitFor();
  await expect(history.textContent()).resolves.toContain('120');
});

it('meets WCAG 2 AA on the operations pages, as axe-core checks it', async () => {
  const pages: Array<[string, () => Promise<void>]> = [
    ['#/operations', () => page.getByTestId('operations').waitFor()],
    ['#/operations/pay-all', () => page.getByTestId('outcomes').waitFor()],
    ['#/instances/inv-00', () => page.getByTestId('offers').waitFor()],
    ['#/instances/inv-bad', () => page.getByTestId('history').waitFor()],
  ];
  const found: Record<string, unknown> = {};
  await openWithKey('#/workflows');
  for (const [hash, ready] of pages) {
    await page.goto(`${test.host.url}/console/${hash}`);
    await ready();
    const violations = await accessibilityViolations(page);
    if (violations.length) found[hash] = violations;
  }
  expect(found).toEqual({});
});
