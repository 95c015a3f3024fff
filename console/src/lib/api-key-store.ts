/**
 * @module The API key, entered once per browser tab and kept in sessionStorage (gone when the tab
 * closes; never in localStorage or a cookie, never in a URL).
 */
const STORAGE_KEY = 'signalbox.apiKey';

export function readApiKey(storage: Storage | undefined = globalThis.sessionStorage): string | undefined {
  try {
    return storage?.getItem(STORAGE_KEY) || undefined;
  } catch {
    return undefined; // storage disabled by the browser
  }
}

export function writeApiKey(key: string | undefined, storage: Storage | undefined = globalThis.sessionStorage): void {
  try {
    if (key) storage?.setItem(STORAGE_KEY, key);
    else storage?.removeItem(STORAGE_KEY);
  } catch {
    // storage disabled: the key lasts until the page reloads
  }
}
