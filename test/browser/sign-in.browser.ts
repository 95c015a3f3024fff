/**
 * Signing in to the console end to end: a real OpenID Provider (oidc-provider, on loopback) issues JWT
 * access tokens for the API with a `roles` claim; the local server accepts them (SIGNALBOX_AUTH_ISSUERS)
 * and names the provider to the console (SIGNALBOX_CONSOLE_*). In headless chromium a person signs in
 * (authorization code + PKCE), sees their name and roles, sees only the triggers they may send, sends
 * one, and finds themselves in the instance's history; no token is ever in localStorage.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { prefixedStorageNames } from '../../src/storage/names';
import { httpClient } from '../host/http-client';
import { startOpenIdProvider, type OpenIdProvider } from '../support/openid-provider';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { launchBrowser, screenshot, openTestPage, closeTestPage } from './support/browser';

const API_KEY = 'sign-in-test-key';
const AUDIENCE = 'api://signalbox';
const SCOPE = 'api://signalbox/access';
const CLIENT_ID = 'signalbox-console';

/** Anyone may comment; only Finance may approve. */
const review = {
  id: 'review',
  displayName: 'Review',
  initialStateId: 'open',
  states: {
    open: {
      displayName: 'Open',
      transitions: [
        { id: 'approve', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Approve' }], actors: { roles: ['Finance'] } },
        { id: 'comment', targetStateId: 'commented', conditions: [{ type: 'triggerName', name: 'Comment' }] },
      ],
    },
    approved: { displayName: 'Approved' },
    commented: { displayName: 'Commented' },
  },
};

let provider: OpenIdProvider;
let host: LocalHost;
let api: ReturnType<typeof httpClient>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  provider = await startOpenIdProvider({ audience: AUDIENCE, scope: SCOPE, users: { alice: { name: 'Alice Example', roles: ['Signalbox.Sender'] } } });
  host = await startLocalHost({
    env: {
      SIGNALBOX_STORAGE: testConnectionString(),
      SIGNALBOX_API_KEY: API_KEY,
      SIGNALBOX_AUTH_ISSUERS: provider.issuer,
      SIGNALBOX_AUTH_AUDIENCE: AUDIENCE,
      SIGNALBOX_CONSOLE_AUTHORITY: provider.issuer,
      SIGNALBOX_CONSOLE_CLIENT_ID: CLIENT_ID,
      SIGNALBOX_CONSOLE_SCOPE: SCOPE,
    },
    port: 0,
    storageNames: prefixedStorageNames(uniquePrefix('signin')),
    logger: silentLogger,
  });
  await provider.registerClient(CLIENT_ID, `${host.url}/console/`);
  api = httpClient(host.url, { 'x-functions-key': API_KEY });
  expect((await api.request('PUT', '/api/workflows/review', { json: review })).status).toBe(201);
  expect((await api.request('POST', '/api/instances', { json: { workflowId: 'review', instanceId: 'review-1' } })).status).toBe(201);
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
  await host?.stop();
  await provider?.close();
});

it('signs in at the provider, shows the name and roles, offers only what the user may send, and records them as the sender', async () => {
  await page.goto(`${host.url}/console/#/instances/review-1`);
  // Signed out, with keys on: both ways in are offered.
  await page.getByLabel('API key').waitFor();
  await page.getByRole('button', { name: 'Sign in' }).click();

  // The provider's login form, on its own origin.
  await page.waitForURL((url) => url.origin === provider.issuer);
  await page.locator('input[name="login"]').fill('alice');
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();

  // Back at the page the sign-in started from, the code and state gone from the address bar.
  const account = page.getByTestId('account');
  await account.getByText('Signalbox.Sender').waitFor();
  await expect(account.textContent()).resolves.toContain('Signed in as Alice Example');
  expect(new URL(page.url()).search).toBe('');
  expect(new URL(page.url()).hash).toBe('#/instances/review-1');
  await expect(page.getByLabel('API key').count()).resolves.toBe(0);

  // Only Comment is hers to send; Approve is named as someone else's.
  const available = page.getByTestId('available-triggers');
  await available.waitFor();
  await expect(available.textContent()).resolves.toContain('Comment');
  await expect(available.textContent()).resolves.not.toContain('Approve');
  await expect(page.getByTestId('refused-triggers').textContent()).resolves.toContain('approve');
  await screenshot(page, 'signed-in');

  await page.getByLabel('Trigger name').fill('Comment');
  await page.getByRole('button', { name: 'Dry run' }).click();
  await page.getByTestId('dry-run').waitFor();
  await page.getByRole('button', { name: 'Send for real' }).click();
  await page.getByTestId('outcomes').getByText('transitioned').waitFor();

  // The history names her: in the console, and in the API's record.
  const history = page.getByTestId('history');
  await history.getByText('by Alice Example').waitFor();
  const entries = (await api.request('GET', '/api/instances/review-1/history')).body.items as Array<{ transitionId?: string; actor?: Record<string, unknown> }>;
  expect(entries.find((entry) => entry.transitionId === 'comment')?.actor).toMatchObject({ id: 'alice', name: 'Alice Example', roles: ['Signalbox.Sender'], via: 'token' });

  // Tokens are kept for the tab only: sessionStorage, never localStorage.
  const stored = await page.evaluate(() => ({ local: JSON.stringify({ ...window.localStorage }), session: JSON.stringify({ ...window.sessionStorage }) }));
  expect(stored.local).not.toMatch(/access_token|eyJ/);
  expect(stored.session).toContain('access_token');

  // A reload keeps her signed in; signing out forgets her in this tab and offers the key again.
  await page.reload();
  await account.getByText('Signalbox.Sender').waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API key').waitFor();
  await expect(page.evaluate(() => JSON.stringify({ ...window.sessionStorage }))).resolves.not.toContain('access_token');
});
