/**
 * @module What keeps web pages from using the API through a browser ("The local server is not
 * a door for web pages"). Without an API key (the default for local use) the browser of anyone running
 * the server is a way in: a page on another origin can send a form POST or a `no-cors` fetch (a "simple"
 * request, no preflight), and a DNS-rebinding page (its own name resolved to 127.0.0.1) can read and
 * write the whole API as same-origin. Three checks close that:
 *
 * 1. **Host** (local server only): the `Host` header must name the server: `localhost`, `127.0.0.1` or
 *    `[::1]` with the port it listens on, or one of `SIGNALBOX_SERVER_NAMES`. A rebinding page's requests
 *    carry its own name. On Azure the platform's front end routes by host name, so a foreign name never
 *    reaches the app (and the app does not know its custom domains): not checked there.
 * 2. **Origin**, on state-changing requests (every method but GET, HEAD, OPTIONS): when present it must be
 *    the request's own origin (its host is the `Host` header) or one of the CORS origins.
 * 3. **Not a simple request**, on state-changing requests: a JSON `Content-Type` (even without a body) or
 *    the `X-Signalbox-Client` header. A browser sends neither across origins without a preflight, which
 *    only the CORS origins pass; a form cannot send them at all.
 *
 * 2 and 3 run on both hosts (the same route manners everywhere); each answers a problem+json saying what
 * to send instead.
 */
import { problem } from '../problem';
import type { CorsPolicy } from './http-manners';
import type { ApiRequest, ApiResponse } from './types';

/** The custom header that marks a request as sent by a program, not by a form (any non-empty value). */
export const CLIENT_HEADER = 'x-signalbox-client';

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

function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(mediaType);
}

/** True for a request that can change something (and so is checked). */
export function isStateChanging(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/**
 * 403 for a state-changing request from a foreign Origin, 415 for one a form or a simple request could
 * have sent; undefined for every other request.
 */
export function crossSiteRefusal(request: Pick<ApiRequest, 'method' | 'headers'>, cors: CorsPolicy): ApiResponse | undefined {
  if (!isStateChanging(request.method)) return undefined;
  const origin = request.headers.get('origin');
  if (origin !== null && !isAllowedOrigin(origin, request.headers.get('host'), cors)) {
    return problem(403, 'Forbidden', `Requests from the origin ${JSON.stringify(origin)} may not change anything: only this server's own origin and SIGNALBOX_CORS_ALLOWED_ORIGINS may`);
  }
  if (!isJsonContentType(request.headers.get('content-type')) && !request.headers.get(CLIENT_HEADER)?.trim()) {
    return problem(
      415,
      'Unsupported media type',
      `A ${request.method.toUpperCase()} needs Content-Type: application/json (even without a body) or an X-Signalbox-Client header, so that no web page can send it with a form`,
    );
  }
  return undefined;
}

function isAllowedOrigin(origin: string, host: string | null, cors: CorsPolicy): boolean {
  if (cors.allowedOrigins.includes('*')) return true;
  const trimmed = origin.replace(/\/+$/, '');
  if (cors.allowedOrigins.includes(trimmed)) return true;
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
