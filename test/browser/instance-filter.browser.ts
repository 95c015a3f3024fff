/**
 * The instance list's filter bar and counts per state, in headless chromium against a real local server
 * on Azurite: field names completed from the workflow's indexes (built-in and declared), a refused filter
 * shown at its position, the list narrowed by a filter, and the count per state linking to its instances.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestHost, type TestHost } from '../support/local-host';
import { accessibilityViolations, launchBrowser, screenshotOf, openTestPage, closeTestPage } from './support/browser';

const claims = {
  id: 'claims',
  displayName: 'Claims',
  initialStateId: 'review',
  indexes: [
    { name: 'amount', type: 'number', expression: 'context.amount' },
    { name: 'region', type: 'keyword', expression: '$lowercase(context.region)' },
  ],
  states: {
    review: { transitions: [{ id: 'approve', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Approve' }] }] },
    approved: { transitions: [{ id: 'pay', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Pay' }] }] },
    paid: {},
  },
};

let test: TestHost;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];
/** Statuses a test provokes on purpose (the browser logs each failed request as a console error). */
let provoked: number[] = [];

beforeAll(async () => {
  test = await startTestHost('filterweb');
  expect((await test.api.request('PUT', '/api/workflows/claims', { json: claims })).status).toBe(201);
  for (let index = 1; index <= 6; index++) {
    const created = await test.api.request('POST', '/api/instances', {
      json: { workflowId: 'claims', instanceId: `cl-${index}`, context: { amount: index * 1000, region: index % 2 ? 'North' : 'South' } },
    });
    expect(created.status).toBe(201);
  }
  for (const instanceId of ['cl-5', 'cl-6']) {
    expect((await test.api.request('POST', `/api/instances/${instanceId}/triggers`, { json: { name: 'Approve' }, headers: { prefer: 'wait=30' } })).status).toBe(200);
  }
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
  await test?.host.stop();
});

const listed = async () => (await page.getByTestId('instances').getByRole('link', { name: /^cl-/ }).allTextContents()).sort();

/**
 * Waits until the list shows `expected`, then checks it: right after a click the page before it (which may list
 * the same instances) can still be shown, so one look could read it instead of the list the click opened.
 */
async function listedBecomes(expected: string[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && JSON.stringify(await listed()) !== JSON.stringify(expected)) await page.waitForTimeout(50);
  expect(await listed()).toEqual(expected);
}

it('completes field names from the workflow indexes, and narrows the list by the filter', async () => {
  await page.goto(`${test.host.url}/console/#/instances?workflowId=claims`);
  const input = page.getByRole('combobox', { name: 'Filter' });
  await input.waitFor();
  await input.fill('am');
  const options = page.getByRole('listbox', { name: 'Fields' }).getByRole('option');
  await page.getByRole('option', { name: /^amount/ }).waitFor();
  await expect(options.allTextContents()).resolves.toEqual([expect.stringMatching(/^amount number/)]);
  await input.press('Enter');
  await expect(input.inputValue()).resolves.toBe('amount ');
  await input.press('End');
  await input.pressSequentially('> 2500 and re');
  await page.getByRole('option', { name: /^region/ }).waitFor();
  await expect(options.allTextContents()).resolves.toEqual([expect.stringMatching(/^region keyword/)]);
  await page.getByRole('option', { name: /^region/ }).click();
  await input.pressSequentially("= 'north' and st");
  // Built-in fields complete too: stateId and status.
  await page.getByRole('option', { name: /^status/ }).waitFor();
  await expect(options.allTextContents()).resolves.toEqual([expect.stringMatching(/^stateId/), expect.stringMatching(/^status/)]);
  await screenshotOf(page.locator('.filter-bar'), 'instance-filter-completion');
  await input.press('ArrowDown');
  await input.press('Tab');
  await expect(input.inputValue()).resolves.toBe("amount > 2500 and region = 'north' and status ");
  await input.pressSequentially("= 'waiting'");
  await input.press('Enter');
  await page.waitForURL(/filter=/);
  await listedBecomes(['cl-3', 'cl-5']);
  expect(await accessibilityViolations(page)).toEqual([]);
});

it('shows a refused filter at its position, with the message, and puts the caret there', async () => {
  provoked = [400];
  await page.goto(`${test.host.url}/console/#/instances?workflowId=claims&filter=${encodeURIComponent("stateId = 'review' and amout > 5")}`);
  const error = page.getByTestId('filter-error');
  await error.waitFor();
  await expect(error.getByRole('alert').count()).resolves.toBe(0);
  await expect(error.textContent()).resolves.toContain('Position 24: unknown field "amout" (did you mean "amount"?)');
  await expect(page.locator('#filter-error pre').textContent()).resolves.toBe(`stateId = 'review' and amout > 5\n${' '.repeat(23)}^`);
  const input = page.getByRole('combobox', { name: 'Filter' });
  await expect(input.getAttribute('aria-invalid')).resolves.toBe('true');
  await expect(input.evaluate((element: HTMLInputElement) => element.selectionStart)).resolves.toBe(23);
  await screenshotOf(page.locator('.filter-bar'), 'instance-filter-error');
  expect(await accessibilityViolations(page)).toEqual([]);
});

it('counts the instances per state, each count a link to those instances', async () => {
  await page.goto(`${test.host.url}/console/#/instances?workflowId=claims`);
  const counts = page.getByTestId('state-counts');
  await counts.waitFor();
  await expect(counts.getByRole('link').allTextContents()).resolves.toEqual(['review 4', 'approved 2']);
  await screenshotOf(counts, 'instance-state-counts');
  await counts.getByRole('link', { name: 'approved 2' }).click();
  await page.waitForURL(/stateId=approved/);
  await listedBecomes(['cl-5', 'cl-6']);

  // With a filter, the counts are of its matches, and each link adds the state to the filter.
  await page.goto(`${test.host.url}/console/#/instances?workflowId=claims&filter=${encodeURIComponent("region = 'north'")}`);
  await page.getByTestId('state-counts').getByRole('link', { name: 'review 2' }).waitFor();
  await expect(page.getByTestId('state-counts').getByRole('link').allTextContents()).resolves.toEqual(['review 2', 'approved 1']);
  await page.getByTestId('state-counts').getByRole('link', { name: 'approved 1' }).click();
  await page.waitForURL(/approved/);
  await listedBecomes(['cl-5']);
  await expect(page.getByRole('combobox', { name: 'Filter' }).inputValue()).resolves.toBe("(region = 'north') and stateId = 'approved'");
});
