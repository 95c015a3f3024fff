/**
 * The console's work beyond reading, end to end in Debian's headless chromium against a real local
 * server on Azurite: going to an instance by id, a sorted and counted list, starting an instance and
 * sending a trigger with invalid fields named beside them, the definition as JSON per version, a bulk
 * action confirmed with its dry-run count, a diagram whose labels do not overlap, and every page on a
 * 390 px phone without sideways scrolling. Each page is checked with axe-core and photographed
 * (test/browser/screenshots).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { prefixedStorageNames } from '../../src/storage/names';
import { httpClient } from '../host/http-client';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { accessibilityViolations, launchBrowser, screenshot, openTestPage, closeTestPage, openConsoleWithKey } from './support/browser';

const API_KEY = 'browser-tasks-key';
const expenseClaim = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'examples', 'expense-claim.json'), 'utf8')) as Record<string, unknown>;

/** A workflow for bulk actions: three waiting instances and one cancelled. */
const parcel = {
  id: 'parcel',
  displayName: 'Parcel',
  initialStateId: 'at-depot',
  states: {
    'at-depot': { displayName: 'At the depot', transitions: [{ id: 'load', targetStateId: 'on-van', conditions: [{ type: 'triggerName', name: 'Load' }] }] },
    'on-van': { displayName: 'On the van' },
  },
};

let host: LocalHost;
let api: ReturnType<typeof httpClient>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];
/** Statuses a test provokes on purpose (a missing instance's 404, a refused request's 400 or 409): the browser logs each. */
let provoked: number[] = [];

beforeAll(async () => {
  host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_API_KEY: API_KEY },
    port: 0,
    storageNames: prefixedStorageNames(uniquePrefix('webtasks')),
    logger: silentLogger,
  });
  api = httpClient(host.url, { 'x-functions-key': API_KEY });
  expect((await api.request('PUT', '/api/workflows/expense-claim', { json: expenseClaim })).status).toBe(201);
  expect((await api.request('PUT', '/api/workflows/parcel', { json: parcel })).status).toBe(201);
  // A second version of parcel with another display name, so the definition shown changes with the version.
  expect((await api.request('PUT', '/api/workflows/parcel', { json: { ...parcel, displayName: 'Parcel (v2)' }, headers: { 'if-match': '*' } })).status).toBe(200);
  // Created in an order that is neither by id nor the reverse, so each sort shows.
  for (const id of ['claim-b', 'claim-c', 'claim-a']) {
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'expense-claim', instanceId: id, context: { claimantId: 'ann' } } })).status).toBe(201);
  }
  for (const id of ['parcel-1', 'parcel-2', 'parcel-3', 'parcel-4']) expect((await api.request('POST', '/api/instances', { json: { workflowId: 'parcel', instanceId: id } })).status).toBe(201);
  expect((await api.request('POST', '/api/instances/parcel-4/cancel', { json: {} })).status).toBe(200);
  browser = await launchBrowser();
});

beforeEach(async () => {
  ({ context, page, pageErrors } = await openTestPage(browser));
});

afterEach(async () => {
  await closeTestPage({ context, pageErrors }, (error) => provoked.some((status) => error.includes(`status of ${status} `)));
  provoked = [];
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
});

/** Opens the console with the key already entered, as after the first visit in this tab. */
const openWithKey = (hash: string) => openConsoleWithKey(page, host.url, API_KEY, hash);

async function expectNoViolations(): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

const shownIds = () => page.getByTestId('instances').locator('tbody tr td:first-child').allTextContents();

it('goes straight to an instance from the header box, and says plainly when no instance has the id', async () => {
  await openWithKey('#/workflows');
  await page.getByLabel('Instance id').fill('claim-b');
  await page.getByLabel('Instance id').press('Enter');
  await page.getByRole('heading', { name: 'Instance claim-b' }).waitFor();
  await page.getByTestId('instance-state').waitFor();

  provoked = [404];
  await page.getByLabel('Instance id').fill('claim-zz');
  await page.getByRole('button', { name: 'Go', exact: true }).click();
  await page.getByText('No instance has the id claim-zz').waitFor();
  expect(page.url()).toContain('#/instances/claim-zz');
  await expectNoViolations();
  await screenshot(page, 'instance-not-found');
});

it('counts the filtered list and sorts it by any column, the most recently updated first until asked', async () => {
  await openWithKey('#/instances?workflowId=expense-claim');
  await expect(page.getByTestId('instance-count').textContent()).resolves.toBe('3 instances match');
  // Newest change first: claim-a was created last.
  await expect(shownIds()).resolves.toEqual(['claim-a', 'claim-c', 'claim-b']);
  await page.getByRole('button', { name: 'Sort by Instance' }).click();
  await page.waitForFunction(() => window.location.hash.endsWith('sort=id'));
  await page
    .getByRole('columnheader', { name: /Instance/ })
    .and(page.locator('[aria-sort="ascending"]'))
    .waitFor();
  await expect(shownIds()).resolves.toEqual(['claim-a', 'claim-b', 'claim-c']);
  await page.getByRole('button', { name: 'Sort by Instance' }).click();
  await page.waitForFunction(() => window.location.hash.endsWith('sort=-id'));
  await page
    .getByRole('columnheader', { name: /Instance/ })
    .and(page.locator('[aria-sort="descending"]'))
    .waitFor();
  await expect(shownIds()).resolves.toEqual(['claim-c', 'claim-b', 'claim-a']);
  // The order survives a filter change.
  await page.getByLabel('Status').selectOption('waiting');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.waitForFunction(() => window.location.hash.includes('status=waiting') && window.location.hash.includes('sort=-id'));
  await expectNoViolations();
});

it('starts an instance from the workflow page, naming a bad context and a taken id beside their fields', async () => {
  provoked = [409];
  await openWithKey('#/workflows/expense-claim');
  const form = page.getByRole('form', { name: 'Start an instance' });
  await form.getByLabel('Instance id (optional)').fill('claim-a');
  await form.getByLabel('Context (JSON object, optional)').fill('{"claimantId": ');
  await form.getByRole('button', { name: 'Start instance' }).click();
  const contextField = form.getByLabel('Context (JSON object, optional)');
  await page.waitForFunction(() => document.getElementById('start-context')?.getAttribute('aria-invalid') === 'true');
  await expect(page.locator(`#${await contextField.getAttribute('aria-describedby')}`).textContent()).resolves.toMatch(/^Not valid JSON/);

  // The server refuses the taken id (409): said beside the id field.
  await contextField.fill('{"claimantId": "bea"}');
  await form.getByRole('button', { name: 'Start instance' }).click();
  await page.waitForFunction(() => document.getElementById('start-instance-id')?.getAttribute('aria-invalid') === 'true');
  await expect(page.locator('#start-instance-id-error').textContent()).resolves.toContain('claim-a');
  await expect(page.locator('#start-context').getAttribute('aria-invalid')).resolves.toBeNull();
  await expectNoViolations();
  await screenshot(page, 'start-instance-errors');

  await form.getByLabel('Instance id (optional)').fill('claim-new');
  await form.getByRole('button', { name: 'Start instance' }).click();
  await page.getByRole('heading', { name: 'Instance claim-new' }).waitFor();
  expect((await api.request('GET', '/api/instances/claim-new')).body).toMatchObject({ workflowId: 'expense-claim', context: { claimantId: 'bea' } });
});

it('names an invalid trigger field beside it, from the problem+json of the dry run', async () => {
  provoked = [400];
  await openWithKey('#/instances/claim-b');
  const form = page.getByRole('form', { name: 'Send a trigger' });
  await form.getByLabel('Trigger name').fill('x'.repeat(300));
  await form.getByRole('button', { name: 'Dry run' }).click();
  await page.waitForFunction(() => document.getElementById('trigger-name')?.getAttribute('aria-invalid') === 'true');
  await expect(page.locator('#trigger-name-error').textContent()).resolves.toMatch(/256/);
  await expectNoViolations();

  await form.getByLabel('Trigger name').fill('Update');
  await form.getByLabel('Parameters (JSON object, optional)').fill('{"amount": 5, "description": "Bus"}');
  await form.getByRole('button', { name: 'Dry run' }).click();
  await page.getByTestId('dry-run').waitFor();
  await expect(page.locator('#trigger-name').getAttribute('aria-invalid')).resolves.toBeNull();
  await form.getByRole('button', { name: 'Send for real' }).click();
  await page.getByTestId('outcomes').getByText('transitioned').waitFor();
});

it('shows the definition itself as JSON, for the version chosen', async () => {
  await openWithKey('#/workflows/parcel');
  await page.getByText('The JSON of version 2').click();
  const json = page.getByTestId('definition-json');
  await expect(json.textContent().then((text) => JSON.parse(text!))).resolves.toMatchObject({ id: 'parcel', displayName: 'Parcel (v2)', version: 2 });
  await page.getByLabel('Version', { exact: true }).selectOption('1');
  await page.getByText('The JSON of version 1').click();
  await expect(
    page
      .getByTestId('definition-json')
      .textContent()
      .then((text) => JSON.parse(text!)),
  ).resolves.toMatchObject({ displayName: 'Parcel', version: 1 });
  await expectNoViolations();
});

it('suspends every instance a filter matches, after a dry-run count that the confirmation repeats', async () => {
  await openWithKey('#/instances?workflowId=parcel');
  await expect(page.getByTestId('instance-count').textContent()).resolves.toBe('4 instances match');
  const form = page.getByRole('form', { name: 'Act on every instance that matches' });
  await form.getByLabel('Action').selectOption('suspend');
  await form.getByRole('button', { name: 'Dry run: count them' }).click();
  await expect(form.getByTestId('bulk-count').textContent()).resolves.toBe('4 instances match: 3 waiting, 1 cancelled. Suspend would change 3; 1 would be reported as a conflict.');
  // The count changed nothing.
  expect((await api.request('GET', '/api/instances?workflowId=parcel&status=suspended')).body.items).toEqual([]);
  await form.getByRole('button', { name: 'Suspend 3 instances…' }).click();
  await expectNoViolations();
  await screenshot(page, 'bulk-dry-run');
  await form.getByRole('button', { name: 'Yes, suspend 3 instances' }).click();
  await page.waitForFunction(() => window.location.hash.startsWith('#/operations/'));
  await page.waitForFunction(() => document.querySelector('[data-testid="operation"] [role="status"]')?.textContent === 'succeeded', undefined, { timeout: 60_000 });
  const suspended = (await api.request('GET', '/api/instances?workflowId=parcel&status=suspended')).body.items as Array<{ id: string }>;
  expect(suspended.map((instance) => instance.id).sort()).toEqual(['parcel-1', 'parcel-2', 'parcel-3']);
});

/** Rectangles of the diagram's drawn labels (edge labels and state names), in page pixels. */
async function labelBoxes(): Promise<Array<{ text: string; left: number; top: number; right: number; bottom: number }>> {
  return page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="diagram"] svg .edgeLabel, [data-testid="diagram"] svg g.node .label')]
      // Each label once: Mermaid nests elements of the same class inside a label.
      .filter((element, _index, all) => !all.some((other) => other !== element && other.contains(element)))
      .map((element) => {
        // The text itself, not a background or foreignObject larger than it.
        const range = document.createRange();
        range.selectNodeContents(element);
        const box = range.getBoundingClientRect();
        return { text: (element.textContent ?? '').trim(), left: box.left, top: box.top, right: box.right, bottom: box.bottom };
      })
      .filter((box) => box.text !== '' && box.right > box.left),
  );
}

function overlapping(boxes: Awaited<ReturnType<typeof labelBoxes>>): string[] {
  const overlaps: string[] = [];
  for (const [index, a] of boxes.entries()) {
    for (const b of boxes.slice(index + 1)) {
      // One pixel of slack: neighbouring labels may touch.
      if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) overlaps.push(`${a.text} × ${b.text}`);
    }
  }
  return overlaps;
}

it('draws the diagram with no two labels overlapping, using the width it has', async () => {
  await openWithKey('#/workflows/expense-claim');
  const svg = page.getByTestId('diagram').locator('svg');
  await svg.waitFor();
  const boxes = await labelBoxes();
  expect(boxes.map((box) => box.text)).toEqual(expect.arrayContaining(['Approve', 'Reject', 'Submit', 'Abandon', 'timer: after PT16H (office calendar)']));
  expect(overlapping(boxes)).toEqual([]);
  // The diagram fills most of the width of its frame rather than a narrow column of it.
  const { drawn, frame } = await page.evaluate(() => ({
    drawn: document.querySelector('[data-testid="diagram"] svg')!.getBoundingClientRect().width,
    frame: document.querySelector('[data-testid="diagram"]')!.getBoundingClientRect().width,
  }));
  expect(drawn / frame).toBeGreaterThan(0.6);
  expect(drawn).toBeLessThanOrEqual(frame + 1);
  await screenshot(page, 'workflow-diagram-wide');
});

it('draws the data catalog example (self-transitions, two edges between the same states) with no two labels overlapping', async () => {
  const catalog = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'examples', 'data-catalog-item.json'), 'utf8')) as Record<string, unknown>;
  expect((await api.request('PUT', '/api/workflows/data-catalog-item', { json: catalog })).status).toBe(201);
  await openWithKey('#/workflows/data-catalog-item');
  await page.getByTestId('diagram').locator('svg').waitFor();
  const boxes = await labelBoxes();
  await screenshot(page, 'workflow-diagram-data-catalog');
  expect(boxes.length).toBeGreaterThanOrEqual(8);
  expect(overlapping(boxes)).toEqual([]);
});

it('fits a 390 px phone: no page scrolls sideways, each passes axe', async () => {
  await context.close();
  // Not `isMobile`: a mobile viewport zooms out to fit what overflows, which would hide the overflow measured here.
  ({ context, page, pageErrors } = await openTestPage(browser, { width: 390, height: 844 }));
  const { operationId } = (await api.request('POST', '/api/triggers', { json: { name: 'Probe', subjects: ['claim-c'] } })).body as { operationId: string };
  await api.waitForOperation(operationId);
  const pages: Array<[string, string, () => Promise<void>]> = [
    ['workflows', '#/workflows', () => page.getByRole('row', { name: /expense-claim/ }).waitFor()],
    [
      'workflow',
      '#/workflows/expense-claim',
      async () => {
        await page.getByTestId('diagram').locator('svg').waitFor();
        // Top to bottom on a phone, and still no label on another.
        expect(overlapping(await labelBoxes())).toEqual([]);
      },
    ],
    ['instances', '#/instances', () => page.getByTestId('instances').waitFor()],
    [
      'instance',
      '#/instances/claim-c',
      async () => {
        await page.getByTestId('diagram').locator('svg').waitFor();
        await page.getByTestId('history').waitFor();
      },
    ],
    ['instance-missing', '#/instances/claim-zz', () => page.getByText('No instance has the id claim-zz').waitFor()],
    ['operation', `#/operations/${operationId}`, () => page.getByTestId('outcomes').waitFor()],
    ['operations', '#/operations', () => page.getByTestId('operations').waitFor()],
  ];
  provoked = [404];
  await openWithKey('#/workflows');
  const wide: Record<string, number> = {};
  const violations: Record<string, unknown> = {};
  for (const [name, hash, ready] of pages) {
    await page.goto(`${host.url}/console/${hash}`);
    await ready();
    const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.scrollingElement!.scrollWidth, innerWidth: window.innerWidth }));
    expect(innerWidth).toBe(390);
    if (scrollWidth > innerWidth) wide[name] = scrollWidth;
    const found = await accessibilityViolations(page);
    if (found.length) violations[name] = found;
    await screenshot(page, `phone-${name}`);
  }
  expect(wide).toEqual({});
  expect(violations).toEqual({});
});
