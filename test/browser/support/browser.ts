/**
 * Debian's chromium under playwright-core (the Playwright browser download does not work on these
 * machines), started headless with the flags that keep it off the network, and a folder for the
 * screenshots the tests take (test/browser/screenshots, not committed; one is copied to docs/ by hand).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.SIGNALBOX_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_FOLDER = path.join(__dirname, '..', 'screenshots');

/** `extraArgs`: more chromium switches (`--host-resolver-rules=...` to play a DNS-rebinding name). */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}

/** Fails the test on any uncaught page error or console error, which would otherwise pass unseen. */
export function watchForPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // 401s are expected while no key is entered; the page shows them as problems.
    if (message.type() === 'error' && !/status of 401/.test(message.text())) errors.push(`console: ${message.text()}`);
  });
  return errors;
}

/** A test's own page: a fresh context (no storage shared with other tests), watched for page errors. */
export interface TestPage {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly pageErrors: string[];
}

/** Opens a test's page (desktop size unless `viewport` says otherwise): each test's beforeEach. */
export async function openTestPage(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<TestPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  return { context, page, pageErrors: watchForPageErrors(page) };
}

/** Closes a test's page, then fails the test on any page error it saw but those it `provoked`: each test's afterEach. */
export async function closeTestPage(opened: Partial<TestPage> | undefined, provoked: (error: string) => boolean = () => false): Promise<void> {
  await opened?.context?.close();
  expect((opened?.pageErrors ?? []).filter((error) => !provoked(error))).toEqual([]);
}

/** Opens the console at `hash` with the API key already entered, as after the first visit in this tab. */
export async function openConsoleWithKey(page: Page, baseUrl: string, apiKey: string, hash: string): Promise<void> {
  await page.goto(`${baseUrl}/console/`);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.goto(`${baseUrl}/console/${hash}`);
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_FOLDER, { recursive: true });
  const file = path.join(SCREENSHOT_FOLDER, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** A screenshot of one part of the page (e.g. the trigger form with its dry run), for the documentation (docs/images). */
export async function screenshotOf(locator: Locator, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_FOLDER, { recursive: true });
  const file = path.join(SCREENSHOT_FOLDER, `${name}.png`);
  await locator.screenshot({ path: file });
  return file;
}

/** A violation of an accessibility rule as axe-core reports it, with the elements that break it. */
export interface AccessibilityViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

let axeSource: string | undefined;

/**
 * Runs axe-core's WCAG 2 A and AA rules (contrast, labels, names, landmarks, ...) on the page as it is
 * now. axe is evaluated through the DevTools protocol, so the console's content security policy (this
 * origin's scripts only) stays on.
 */
export async function accessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (context: Document, options: unknown) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> };
      }
    ).axe;
    const { violations } = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return violations.map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, nodes: violation.nodes.map((node) => node.target.join(' ')) }));
  });
}
