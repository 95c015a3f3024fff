/**
 * Debian's chromium under playwright-core (the Playwright browser download does not work on these
 * machines), started headless with the flags that keep it off the network, and a folder for the
 * screenshots the tests take (test/browser/screenshots, not committed; one is copied to docs/ by hand).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.SIGNALBOX_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_FOLDER = path.join(__dirname, '..', 'screenshots');

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
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

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_FOLDER, { recursive: true });
  const file = path.join(SCREENSHOT_FOLDER, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
