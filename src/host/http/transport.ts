/**
 * @module The transport edge both hosts share: the request body's size cap and the encoding of an
 * ApiResponse as a status, headers and a body string. The local server (node:http) and the Functions app
 * (HttpResponseInit) only move bytes; what is refused and what is sent is decided here, once.
 */
import { TooLargeError } from '../../engine/model';
import { MAX_BODY_SIZE_IN_BYTES, type ApiResponse, type RouteDefinition } from './types';

/** Throws the 413 when a body (as declared, or as received so far) is over `limit`. */
export function checkBodySize(sizeInBytes: number, limit: number = MAX_BODY_SIZE_IN_BYTES): void {
  if (sizeInBytes > limit) throw new TooLargeError(`The request body is over ${limit} bytes`);
}

/**
 * The body limit of a route: MAX_BODY_SIZE_IN_BYTES, or for an instance creation the larger of that and
 * `creationLimit` (SIGNALBOX_MAX_CREATE_BODY_MB, maxCreateBodyBytes), so that a context can be created whole.
 */
export function bodyLimitOf(route: Pick<RouteDefinition, 'bodyLimit'>, creationLimit: number | undefined): number {
  return route.bodyLimit === 'instanceCreation' && creationLimit !== undefined ? Math.max(creationLimit, MAX_BODY_SIZE_IN_BYTES) : MAX_BODY_SIZE_IN_BYTES;
}

/** The body as text, or undefined when there is none. */
export function bodyText(body: Buffer): string | undefined {
  return body.length > 0 ? body.toString('utf8') : undefined;
}

export interface EncodedResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Absent for an empty body. */
  readonly body?: string;
}

/** JSON bodies serialised, text sent as is; each gets its content type unless the answer names one. */
export function encodeResponse(response: ApiResponse): EncodedResponse {
  const headers: Record<string, string> = { ...response.headers };
  const hasContentType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  if (response.text !== undefined) {
    if (!hasContentType) headers['content-type'] = 'text/plain; charset=utf-8';
    return { status: response.status, headers, body: response.text };
  }
  if (response.body === undefined) return { status: response.status, headers };
  if (!hasContentType) headers['content-type'] = 'application/json; charset=utf-8';
  return { status: response.status, headers, body: JSON.stringify(response.body) };
}
