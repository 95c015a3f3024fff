/**
 * @module What both hosts do around every handler, so handlers need not: HEAD (a GET without its body),
 * `If-None-Match` → 304 for answers with an ETag, and CORS for the origins the CORS setting allows
 * (none by default). On Azure the platform's CORS, configured from the same Bicep parameter, answers
 * first; this keeps Core Tools and the local server the same.
 */
import type { ApiRequest, ApiResponse } from './types';

/** Headers a browser may send and read across origins. */
const ALLOWED_REQUEST_HEADERS = 'content-type, if-match, if-none-match, prefer, x-functions-key, x-signalbox-client';
const EXPOSED_RESPONSE_HEADERS = 'etag, location, operation-location, preference-applied, retry-after';
const PREFLIGHT_MAX_AGE_IN_SECONDS = 600;

export interface CorsPolicy {
  /** Origins allowed to call the API (`https://app.example.com`), or `*` for any; empty: CORS off. */
  readonly allowedOrigins: readonly string[];
}

export const corsOff: CorsPolicy = { allowedOrigins: [] };

/** The method a route is matched with: HEAD is answered as GET. */
export function routingMethod(method: string): string {
  return method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
}

/** The origin to allow for this request's Origin, if any. */
function allowedOrigin(origin: string | null, policy: CorsPolicy): string | undefined {
  if (!origin || policy.allowedOrigins.length === 0) return undefined;
  if (policy.allowedOrigins.includes('*')) return '*';
  return policy.allowedOrigins.includes(origin.replace(/\/+$/, '')) ? origin : undefined;
}

function corsHeaders(origin: string | null, policy: CorsPolicy): Record<string, string> {
  const allowed = allowedOrigin(origin, policy);
  if (!allowed) return {};
  return { 'access-control-allow-origin': allowed, 'access-control-expose-headers': EXPOSED_RESPONSE_HEADERS, ...(allowed === '*' ? {} : { vary: 'Origin' }) };
}

/** The answer to a CORS preflight from an allowed origin; undefined when it is not one (or CORS is off). */
export function preflightResponse(method: string, headers: ApiRequest['headers'], allowedMethods: readonly string[], policy: CorsPolicy): ApiResponse | undefined {
  if (method.toUpperCase() !== 'OPTIONS' || !headers.get('access-control-request-method')) return undefined;
  const cors = corsHeaders(headers.get('origin'), policy);
  if (!cors['access-control-allow-origin']) return undefined;
  return {
    status: 204,
    headers: {
      ...cors,
      'access-control-allow-methods': [...new Set([...allowedMethods, ...(allowedMethods.includes('GET') ? ['HEAD'] : [])])].join(', '),
      'access-control-allow-headers': ALLOWED_REQUEST_HEADERS,
      'access-control-max-age': String(PREFLIGHT_MAX_AGE_IN_SECONDS),
    },
  };
}

/** True when an `If-None-Match` list names this ETag (weak comparison, as RFC 9110 asks for it). */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  if (ifNoneMatch.trim() === '*') return true;
  // ETags are quoted strings; commas separate them only outside quotes.
  const tags = ifNoneMatch.match(/(?:W\/)?"[^"]*"|[^,\s]+/g) ?? [];
  return tags.some((tag) => opaque(tag) === opaque(etag));
}

/** The response as sent: 304 when If-None-Match names its ETag, no body for HEAD, CORS headers. */
export function finishResponse(request: Pick<ApiRequest, 'method' | 'headers'>, response: ApiResponse, policy: CorsPolicy = corsOff): ApiResponse {
  const method = request.method.toUpperCase();
  let finished = response;
  const etag = response.headers?.etag;
  const ifNoneMatch = request.headers.get('if-none-match');
  if ((method === 'GET' || method === 'HEAD') && response.status === 200 && etag && ifNoneMatch && etagMatches(ifNoneMatch, etag)) {
    finished = { status: 304, headers: { etag } };
  }
  const cors = corsHeaders(request.headers.get('origin'), policy);
  if (Object.keys(cors).length) finished = { ...finished, headers: { ...finished.headers, ...cors } };
  if (method === 'HEAD' && finished.body !== undefined) {
    const { body: _body, ...withoutBody } = finished;
    // HEAD reports the GET's content type; the length is left to the transport.
    finished = { ...withoutBody, headers: { 'content-type': 'application/json; charset=utf-8', ...withoutBody.headers } };
  }
  return finished;
}
