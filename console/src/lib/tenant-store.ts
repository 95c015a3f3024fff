/**
 * @module The tenant the console is for, kept where a reload finds it: the page's URL (`?tenant=contoso`,
 * before the hash, so a link can be shared) and local storage (so a new tab starts where the last one was).
 * The default tenant is written as nothing at all, so the default tenant's URLs stay as they always were.
 */
export const TENANT_STORAGE_KEY = 'signalbox.tenant';
const TENANT_PARAMETER = 'tenant';
/** As the API checks it (src/storage/names.ts); anything else in the URL or storage is ignored. */
const TENANT_ID_PATTERN = /^[a-z0-9-]{3,63}$/;

const valid = (tenantId: string | null | undefined): string | undefined => (tenantId && tenantId !== 'default' && TENANT_ID_PATTERN.test(tenantId) ? tenantId : undefined);

export function isTenantId(tenantId: string): boolean {
  return TENANT_ID_PATTERN.test(tenantId);
}

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined; // storage disabled by the browser
  }
}

/** The URL's tenant, else the stored one; undefined for the default tenant. */
export function readTenant(): string | undefined {
  const fromUrl = new URLSearchParams(window.location.search).get(TENANT_PARAMETER);
  if (fromUrl !== null && (fromUrl === 'default' || valid(fromUrl))) return valid(fromUrl);
  try {
    return valid(storage()?.getItem(TENANT_STORAGE_KEY));
  } catch {
    return undefined;
  }
}

/** Keeps the choice in the URL (replacing the entry: the back button still walks pages) and in storage. */
export function writeTenant(tenantId: string | undefined): void {
  const chosen = valid(tenantId);
  const url = new URL(window.location.href);
  if (chosen) url.searchParams.set(TENANT_PARAMETER, chosen);
  else url.searchParams.delete(TENANT_PARAMETER);
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  try {
    if (chosen) storage()?.setItem(TENANT_STORAGE_KEY, chosen);
    else storage()?.removeItem(TENANT_STORAGE_KEY);
  } catch {
    // storage disabled: the URL still holds the choice
  }
}
