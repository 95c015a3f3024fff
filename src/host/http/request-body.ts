/** @module Reading a request's JSON body: content type, size, syntax; each failure is a clear 4xx. */
import { SignalboxError, TooLargeError, ValidationError } from '../../engine/errors';
import { MAX_BODY_SIZE_IN_BYTES, type ApiRequest } from './types';

/** 415: the body is not JSON. */
export class UnsupportedMediaTypeError extends SignalboxError {
  constructor(contentType: string | null) {
    super('unsupportedMediaType', `Content-Type must be application/json, not ${contentType ?? 'absent'}`);
  }
}

function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(mediaType);
}

/** Parses the body as JSON; `optional` bodies may be empty (returns undefined). */
export function readJsonBody(request: ApiRequest, { optional = false }: { optional?: boolean } = {}): unknown {
  const text = request.bodyText;
  if (text === undefined || text.trim() === '') {
    if (optional) return undefined;
    throw new ValidationError('A JSON request body is required', [{ path: '$', message: 'the body is empty' }]);
  }
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_SIZE_IN_BYTES) {
    throw new TooLargeError(`The request body is over ${MAX_BODY_SIZE_IN_BYTES} bytes`);
  }
  if (!isJsonContentType(request.headers.get('content-type'))) throw new UnsupportedMediaTypeError(request.headers.get('content-type'));
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ValidationError('The request body is not valid JSON', [{ path: '$', message: (error as Error).message }]);
  }
}
