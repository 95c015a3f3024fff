/**
 * @module How the CLI's API client meets HTTP (api.ts): fetch with the body read in full and bounded, and
 * the CLI's errors for an error status (ApiError) or a server that cannot be reached (NetworkError).
 */
import { problemInAnswer } from '../client';
import { ApiError, NetworkError } from './errors';

export class ResponseTooLargeError extends Error {
  constructor(readonly limitInBytes: number) {
    super(`the response body is larger than ${limitInBytes} bytes`);
  }
}

export function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/** Statuses whose answers have no body (a Response with one cannot be made). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * fetch, with the body read here, in full, before the typed client sees it: at most `maxBodyBytes` (a
 * larger one is cancelled as soon as it is seen to be larger), and within the request's deadline (its
 * signal), which fetch itself applies to the headers only once a body has begun to stream.
 */
export function boundedFetch(maxBodyBytes: number): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await fetch(request);
    if (!response.body) return response;
    const declared = Number(response.headers.get('content-length'));
    if (declared > maxBodyBytes) {
      await response.body.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(maxBodyBytes);
    }
    const reader = response.body.getReader();
    const stopReading = () => void reader.cancel().catch(() => undefined);
    request.signal.addEventListener('abort', stopReading, { once: true });
    try {
      const chunks: Uint8Array[] = [];
      let size = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (request.signal.aborted) throw request.signal.reason;
        if (done) break;
        size += value.byteLength;
        if (size > maxBodyBytes) {
          await reader.cancel().catch(() => undefined);
          throw new ResponseTooLargeError(maxBodyBytes);
        }
        chunks.push(value);
      }
      const body = NULL_BODY_STATUSES.has(response.status) ? null : Buffer.concat(chunks);
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } finally {
      request.signal.removeEventListener('abort', stopReading);
    }
  };
}

export function apiError(response: Response, body: unknown): ApiError {
  return new ApiError(response.status, problemInAnswer(body, response), typeof body === 'string' ? body : '');
}

/** A message that says what could not be reached and why (fetch's own is only "fetch failed"). */
export function networkError(baseUrl: string, error: unknown, timeoutInMs: number): NetworkError {
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return new NetworkError(`${baseUrl} did not answer within ${timeoutInMs / 1000} s`, { cause: error });
  }
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const code = (cause as { code?: string } | undefined)?.code;
  const reason = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'host not found' : (cause?.message ?? (error instanceof Error ? error.message : String(error)));
  return new NetworkError(`cannot reach the Signalbox API at ${baseUrl} (${reason}); is the server running? Set --url or SIGNALBOX_URL`, { cause: error });
}
