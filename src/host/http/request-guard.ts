/**
 * @module What keeps web pages from using the API through a browser ("The local server is not a door for
 * web pages"; decision 0019). Without an API key (the default for local use) the browser of anyone running
 * the server is a way in: a page on another origin can send a form POST or a `no-cors` fetch (a "simple"
 * request, no preflight), and a DNS-rebinding page (its own name resolved to 127.0.0.1) can read and write
 * the whole API as same-origin. Two checks close that:
 *
 * 1. **Host** (local server only): the `Host` header must name the server: `localhost`, `127.0.0.1` or
 *    `[::1]` with the port it listens on, or one of `SIGNALBOX_SERVER_NAMES`. A rebinding page's requests
 *    carry its own name. On Azure the platform's front end routes by host name, so a foreign name never
 *    reaches the app (and the app does not know its custom domains): not checked there.
 * 2. **Cross-origin**, on state-changing requests (every method but GET, HEAD, OPTIONS), as Go 1.25's
 *    `net/http.CrossOriginProtection` and OWASP's CSRF cheat sheet do it. A browser says where a request
 *    comes from and a page cannot forge it: `Sec-Fetch-Site` (every current browser) and `Origin` (every
 *    cross-origin POST, and every browser's DELETE, PUT, PATCH). `Sec-Fetch-Site: same-origin` or `none`
 *    passes; `cross-site` or `same-site` is refused unless the `Origin` is a CORS origin. Without
 *    `Sec-Fetch-Site`, an `Origin` that is neither this host's nor a CORS origin is refused (`null`
 *    included). A request with neither header does not come from a browser (curl, PowerShell, Postman, an
 *    SDK) and passes: no page can make a browser send it.
 *
 * 2 runs on both hosts (the same route manners everywhere) and answers 403 problem+json saying why. A body
 * that is not JSON is refused with 415 where bodies are read (request-body.ts), so a form's body never
 * reaches a handler either.
 */
import { problem } from '../problem';
import type { CorsPolicy } from './http-manners';
import type { ApiRequest, ApiResponse } from './types';

/** Methods that change nothing; every other one is checked. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Loopback names the local server answers to, on its own port. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export interface HostPolicy {
  /** The port the request came in on. */
  readonly port: number;
  /** More names, as `name` (any port) or `name:port`, lower case (SIGNALBOX_SERVER_NAMES). */
  readonly serverNames: readonly string[];
}

/** `name` and `port` of a Host header; undefined when it is not one. Port '' when absent. */
function parseHost(host: string): { name: string; port: string } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]/@\s]+)(?::(\d{1,5}))?$/i.exec(host.trim());
  return match ? { name: match[1]!.toLowerCase(), port: match[2] ?? '' } : undefined;
}

/** 421 unless `Host` names this server (see the module comment); undefined when it does. */
export function hostRefusal(host: string | null, policy: HostPolicy): ApiResponse | undefined {
  const parsed = host ? parseHost(host) : undefined;
  if (parsed) {
    const port = parsed.port === '' ? '80' : parsed.port;
    if (LOOPBACK_NAMES.includes(parsed.name) && port === String(policy.port)) return undefined;
    for (const entry of policy.serverNames) {
      const allowed = parseHost(entry);
      if (allowed && allowed.name === parsed.name && (allowed.port === '' || allowed.port === port)) return undefined;
    }
  }
  return problem(
    421,
    'Misdirected request',
    `This server does not answer to the host ${JSON.stringify(host ?? '')}: use localhost, 127.0.0.1 or [::1] with port ${policy.port}, or list the name in SIGNALBOX_SERVER_NAMES`,
  );
}

/** True for a request that can change something (and so is checked). */
export function isStateChanging(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/** `Sec-Fetch-Site` values of a request from this origin, or one the user made (a bookmark, the address bar). */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

const WHO_MAY = "only pages on this server's own origin and on SIGNALBOX_CORS_ALLOWED_ORIGINS may change anything";

/**
 * 403 for a state-changing request a browser sent from another origin that the CORS setting does not list;
 * undefined for every other request (see the module comment).
 */
export function crossSiteRefusal(request: Pick<ApiRequest, 'method' | 'headers'>, cors: CorsPolicy): ApiResponse | undefined {
  if (!isStateChanging(request.method)) return undefined;
  const origin = request.headers.get('origin');
  const fetchSite = request.headers.get('sec-fetch-site')?.trim().toLowerCase();
  if (fetchSite) {
    // The browser's own word: it knows the page's origin, which no header of the page's making can change.
    if (OWN_FETCH_SITES.has(fetchSite)) return undefined;
    if (origin !== null && isListedOrigin(origin, cors)) return undefined;
    const from = origin !== null ? `, Origin: ${JSON.stringify(origin)}` : '';
    return problem(403, 'Forbidden', `A browser sent this request for a page of another origin (Sec-Fetch-Site: ${fetchSite}${from}): ${WHO_MAY}`);
  }
  // No fetch metadata: an older browser (it sends Origin on every cross-origin POST) or no browser at all.
  if (origin === null || isAllowedOrigin(origin, request.headers.get('host'), cors)) return undefined;
  return problem(403, 'Forbidden', `Requests from the origin ${JSON.stringify(origin)} may not change anything: ${WHO_MAY}`);
}

/** True when the CORS setting lists the origin (or is `*`). */
function isListedOrigin(origin: string, cors: CorsPolicy): boolean {
  return cors.allowedOrigins.includes('*') || cors.allowedOrigins.includes(origin.trim().replace(/\/+$/, ''));
}

function isAllowedOrigin(origin: string, host: string | null, cors: CorsPolicy): boolean {
  if (isListedOrigin(origin, cors)) return true;
  const trimmed = origin.trim().replace(/\/+$/, '');
  let originHost: string;
  try {
    originHost = new URL(trimmed).host;
  } catch {
    return false; // `null` (a sandboxed frame, a file) and anything else that is not an origin
  }
  // Same origin: the page was served by this host. URL drops a scheme's default port; so does Host.
  const requestHost = host
    ?.trim()
    .toLowerCase()
    .replace(/:(80|443)$/, '');
  return requestHost !== undefined && originHost.toLowerCase() === requestHost;
}
