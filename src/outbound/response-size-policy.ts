/**
 * @module Bounds what one answer may cost: the body is streamed and counted after decompression, and
 * the connection is dropped as soon as it passes the limit, so a 100 MB body or a gzip bomb costs at
 * most the limit in memory (and the rest is never read). A body over the limit is a fault, not retried.
 */
import type { PipelinePolicy, PipelineRequest } from '@azure/core-rest-pipeline';
import { ExternalServiceError } from '../engine/steps';
import { redactSecrets } from '../engine/model';

export const responseSizePolicyName = 'signalboxResponseSize';

/** The documented limit of a response body, after decompression: 1 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

export class ResponseTooLargeError extends ExternalServiceError {}

/** Every status is streamed (POSITIVE_INFINITY means "any status" to the HTTP client). */
const STREAM_EVERY_STATUS = new Set([Number.POSITIVE_INFINITY]);

function tooLarge(request: PipelineRequest, status: number, maxBytes: number): ResponseTooLargeError {
  return new ResponseTooLargeError(`the response of ${request.method} ${redactSecrets(request.url)} is larger than ${maxBytes} bytes, the limit of a response body`, status);
}

async function readAtMost(body: NodeJS.ReadableStream, maxBytes: number, signal: AbortSignal, onTooLarge: () => Error): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  // A decompressing stream does not hear that the socket under it died: destroy it on abort.
  const stream = body as NodeJS.ReadableStream & { destroy(error?: Error): void };
  const onAbort = () => stream.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of stream) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      length += buffer.length;
      if (length > maxBytes) throw onTooLarge();
      chunks.push(buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** `statusOnly(request)`: the caller needs only the status, so the body is dropped unread (no size to exceed). */
export function responseSizePolicy(maxBytes: number = DEFAULT_MAX_RESPONSE_BYTES, statusOnly: (request: PipelineRequest) => boolean = () => false): PipelinePolicy {
  return {
    name: responseSizePolicyName,
    async sendRequest(request, next) {
      const outer = request.abortSignal;
      // Aborting the request makes the HTTP client destroy the socket, so the server stops sending.
      const drop = new AbortController();
      request.abortSignal = outer ? AbortSignal.any([outer as AbortSignal, drop.signal]) : drop.signal;
      request.streamResponseStatusCodes = STREAM_EVERY_STATUS;
      try {
        const response = await next(request);
        const stream = response.readableStreamBody;
        if (!stream) return response;
        if (statusOnly(request)) {
          // Destroying the body (and its socket) is the whole read: a large or endless answer costs nothing.
          (stream as NodeJS.ReadableStream & { destroy(): void }).destroy();
          drop.abort();
          return { ...response, readableStreamBody: undefined, bodyAsText: null };
        }
        // Content-Length counts the encoded bytes: it can refuse early only for an unencoded body.
        const announced = Number(response.headers.get('content-length'));
        if (!response.headers.get('content-encoding') && Number.isFinite(announced) && announced > maxBytes) {
          drop.abort();
          throw tooLarge(request, response.status, maxBytes);
        }
        const bodyAsText = await readAtMost(stream, maxBytes, request.abortSignal as AbortSignal, () => {
          const error = tooLarge(request, response.status, maxBytes);
          drop.abort(error);
          return error;
        });
        return { ...response, readableStreamBody: undefined, bodyAsText };
      } finally {
        request.abortSignal = outer;
      }
    },
  };
}
