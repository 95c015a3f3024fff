/**
 * "Why is it stuck?" in the console, in headless chromium against a real local server on Azurite: the
 * workflow page counts the instances that are not final per reason and state and links to the filtered
 * list; the instance page says why it is not moving, with the recover command for a fault.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestHost, type TestHost } from '../support/local-host';
import { accessibilityViolations, launchBrowser, screenshotOf, openTestPage, closeTestPage } from './support/browser';

const approval = {
  id: 'approval',
  displayName: 'Approval',
  initialStateId: 'pending',
  states: {
    pending: {
      displayName: 'Pending',
      transitions: [
        { id: 'approve', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Approve' }] },
        { id: 'pay', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Pay' }], actions: [{ type: 'setContext', expressions: { x: '$error("payment host refused")' } }] },
      ],
    },
    approved: { displayName: 'Approved' },
  },
};

let test: TestHost;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  test = await startTestHost('whyweb');
  expect((await test.api.request('PUT', '/api/workflows/approval', { json: approval })).status).toBe(201);
  for (const instanceId of ['ap-1', 'ap-2', 'ap-3']) expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'approval', instanceId } })).status).toBe(201);
  expect((await test.api.request('POST', '/api/instances/ap-3/triggers', { json: { name: 'Pay' }, headers: { prefer: 'wait=30' } })).status).toBe(200);
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

it('the workflow page counts why instances wait, per reason and state, and links to them', async () => {
  await page.goto(`${test.host.url}/console/#/workflows/approval`);
  const counts = page.getByTestId('waiting-counts');
  await counts.waitFor();
  const waiting = counts.getByRole('row', { name: /waiting for Approve or Pay/ });
  await expect(waiting.getByRole('link', { name: '2' }).getAttribute('href')).resolves.toBe('#/instances?workflowId=approval&stateId=pending&status=waiting');
  const faulted = counts.getByRole('row', { name: /Faulted/ });
  await expect(faulted.textContent()).resolves.toContain('payment host refused');
  await expect(faulted.getByRole('link', { name: 'ap-3' }).getAttribute('href')).resolves.toBe('#/instances/ap-3');
  await screenshotOf(counts, 'workflow-waiting-counts');
  expect(await accessibilityViolations(page)).toEqual([]);

  // The count opens the list filtered to those instances.
  // The workflow page links its oldest waiting instance (ap-1) too: look only inside the list it opens.
  await waiting.getByRole('link', { name: '2' }).click();
  const listed = page.getByTestId('instances');
  await listed.getByRole('link', { name: 'ap-1' }).waitFor();
  await expect(listed.getByRole('link', { name: 'ap-2' }).count()).resolves.toBe(1);
  await expect(listed.getByRole('link', { name: 'ap-3' }).count()).resolves.toBe(0);
});

it('the instance page says why it is not moving: the trigger it waits for, or the fault and how to recover', async () => {
  await page.goto(`${test.host.url}/console/#/instances/ap-1`);
  const why = page.getByTestId('why-panel');
  await why.getByTestId('why-class').waitFor();
  await expect(why.getByTestId('why-class').getAttribute('data-class')).resolves.toBe('waitingForTrigger');
  await expect(why.textContent()).resolves.toContain('Approve to approved');

  await page.goto(`${test.host.url}/console/#/instances/ap-3`);
  await page.waitForFunction(() => document.querySelector('[data-testid="why-class"]')?.getAttribute('data-class') === 'faulted');
  const text = (await why.textContent()) ?? '';
  expect(text).toContain('payment host refused');
  expect(text).toContain('signalbox recover ap-3 --state pending');
  expect(text).toContain('POST /api/instances/ap-3/recover {"stateId":"pending"}');
  await screenshotOf(why, 'instance-why');
  expect(await accessibilityViolations(page)).toEqual([]);
});

it('the instance page says which full state an automatic transition waits to enter, its place and the key to look at', async () => {
  const sorted = {
    id: 'sorted',
    displayName: 'Sorted orders',
    initialStateId: 'open',
    states: {
      open: { transitions: [{ id: 'sort', targetStateId: 'sorting', conditions: [{ type: 'triggerName', name: 'Sort' }] }] },
      sorting: { transitions: [{ id: 'toPicking', targetStateId: 'picking', automatic: true }] },
      picking: { capacity: { key: 'customer:{{context.customerId}}', limit: 1 }, transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }] },
      done: {},
    },
  };
  expect((await test.api.request('PUT', '/api/workflows/sorted', { json: sorted })).status).toBe(201);
  for (const instanceId of ['so-1', 'so-2']) {
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'sorted', instanceId, context: { customerId: '42' } } })).status).toBe(201);
    expect((await test.api.request('POST', `/api/instances/${instanceId}/triggers`, { json: { name: 'Sort' }, headers: { prefer: 'wait=30' } })).status).toBe(200);
  }
  await page.goto(`${test.host.url}/console/#/instances/so-2`);
  const why = page.getByTestId('why-panel');
  await page.waitForFunction(() => document.querySelector('[data-testid="why-class"]')?.getAttribute('data-class') === 'waitingForRoom');
  const text = (await why.textContent()) ?? '';
  expect(text).toContain('Waiting for room in a full state');
  expect(text).toMatch(/Into picking on key customer:42: 1 of 1 waiting, 1\/1 in the state/);
  expect(text).toContain('signalbox flow sorted');
  expect(await accessibilityViolations(page)).toEqual([]);
});
