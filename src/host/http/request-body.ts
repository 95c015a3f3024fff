/**
 * @module Reading a request's JSON body: content type, size, nesting depth, syntax, `__proto__` keys;
 * each failure is a clear 4xx.
 */
import { SignalboxError, ValidationError } from '../../engine/model';
import { formatPath } from '../../engine/model';
import { checkBodySize } from './transport';
import type { ApiRequest } from './types';

/**
 * Nesting of objects and arrays a body may have. Deeper JSON parses, but every recursive walk after it
 * (validation, size checks, storage) could overflow the stack and answer 500; no workflow needs it.
 */
export const MAX_JSON_DEPTH = 64;

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
  // Hosts cap what they read; a request built by other code (tests, an embedding) is capped here.
  checkBodySize(Buffer.byteLength(text, 'utf8'), request.maxBodyBytes);
  if (!isJsonContentType(request.headers.get('content-type'))) throw new UnsupportedMediaTypeError(request.headers.get('content-type'));
  const depth = nestingDepth(text);
  if (depth > MAX_JSON_DEPTH) {
    throw new ValidationError(`The request body nests deeper than ${MAX_JSON_DEPTH} levels`, [{ path: '$', message: `nested at least ${depth} levels deep; at most ${MAX_JSON_DEPTH} are allowed` }]);
  }
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (error) {
    throw new ValidationError('The request body is not valid JSON', [{ path: '$', message: (error as Error).message }]);
  }
  const protoPath = findProtoKey(body, []);
  if (protoPath) {
    // JSON.parse keeps it as an own property, but every object spread or schema after it drops it silently.
    throw new ValidationError('The request body has a "__proto__" key', [{ path: formatPath(protoPath), message: '"__proto__" is not allowed as a key' }]);
  }
  return body;
}

/** The deepest nesting of `{`/`[` outside strings (a linear scan, before parsing: parsing is recursive). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index++; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > MAX_JSON_DEPTH) return deepest;
    } else if (char === 0x7d || char === 0x5d) {
      depth--;
    }
  }
  return deepest;
}

function findProtoKey(value: unknown, path: (string | number)[]): (string | number)[] | undefined {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = findProtoKey(value[index], [...path, index]);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (key === '__proto__') return [...path, key];
      const found = findProtoKey((value as Record<string, unknown>)[key], [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}
