/**
 * @module Index values as sortable key segments: every segment is ASCII from `0-9 a-z` (never `!`,
 * the separator of `field!value!instance`), and compares as its value does, so a range of values is a
 * range of row keys (one partition range scan).
 *
 * - string and keyword: `s` + the UTF-8 bytes in hex (byte order is code point order), the first
 *   MAX_ENCODED_STRING_BYTES bytes only: a longer value shares its segment with others of the same
 *   prefix, which only adds candidates (every result is checked against the instance as read).
 * - number: `n` + 16 hex digits of the IEEE 754 bits, sign-flipped so that they sort as the numbers do.
 * - datetime: `d` + the instant's milliseconds since 1970, encoded as a number.
 * - boolean: `b0`, `b1`.
 * - sensitive: `h` + 32 hex digits of HMAC-SHA256 over the type and the value: equality only.
 */
import type { IndexType } from '../definition/search-indexes';

/** Bytes of a string value kept in its key segment (the rest only narrows results when they are checked). */
export const MAX_ENCODED_STRING_BYTES = 160;

export type IndexValue = string | number | boolean;

/** The character that separates `field`, `value` and instance in a row key: below every character of a segment. */
export const SEPARATOR = '!';
/** Just above SEPARATOR: `prefix + AFTER_SEPARATOR` bounds every key that starts with `prefix + SEPARATOR`. */
export const AFTER_SEPARATOR = '"';
/** Above every character of a segment. */
export const AFTER_SEGMENT = '~';

export function encodeNumber(value: number): string {
  const buffer = Buffer.alloc(8);
  buffer.writeDoubleBE(value === 0 ? 0 : value); // -0 and 0 are one value
  if ((buffer[0]! & 0x80) !== 0) for (let i = 0; i < 8; i++) buffer[i] = ~buffer[i]! & 0xff;
  else buffer[0] = buffer[0]! | 0x80;
  return buffer.toString('hex');
}

export function encodeString(value: string): string {
  return Buffer.from(value, 'utf8').subarray(0, MAX_ENCODED_STRING_BYTES).toString('hex');
}

/** A datetime value's instant, or undefined if it is not an ISO 8601 date or date-time. */
export function parseDatetime(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) return undefined;
  const millis = Date.parse(value);
  return Number.isFinite(millis) ? millis : undefined;
}

/** The segment of a plain (not sensitive) value, which must already have the field's type. */
export function encodeValue(type: IndexType, value: IndexValue): string {
  switch (type) {
    case 'string':
    case 'keyword':
      return `s${encodeString(String(value))}`;
    case 'number':
      return `n${encodeNumber(Number(value))}`;
    case 'datetime':
      return `d${encodeNumber(typeof value === 'number' ? value : (parseDatetime(String(value)) ?? Number.NaN))}`;
    case 'boolean':
      return value ? 'b1' : 'b0';
  }
}

/** HMAC keys imported once per key (WebCrypto: the engine does no Node I/O). */
const importedKeys = new Map<string, ReturnType<typeof globalThis.crypto.subtle.importKey>>();

function hmacKey(key: string): ReturnType<typeof globalThis.crypto.subtle.importKey> {
  let imported = importedKeys.get(key);
  if (!imported) {
    imported = globalThis.crypto.subtle.importKey('raw', new TextEncoder().encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    importedKeys.set(key, imported);
  }
  return imported;
}

/** The segment of a sensitive value: a keyed hash, so only equality can be asked of it. */
export async function encodeSensitive(type: IndexType, value: IndexValue, key: string): Promise<string> {
  const canonical = type === 'datetime' ? String(typeof value === 'number' ? value : parseDatetime(String(value))) : String(value);
  const mac = await globalThis.crypto.subtle.sign('HMAC', await hmacKey(key), new TextEncoder().encode(`${type}:${canonical}`));
  return `h${Buffer.from(mac).toString('hex').slice(0, 32)}`;
}

/** `field!segment`: the part of a row key an instance's save decides (the store appends the instance). */
export function entryKey(field: string, segment: string): string {
  return `${field}${SEPARATOR}${segment}`;
}

/**
 * The value a plain segment holds, as a search compares it (counts read values from the rows), or
 * undefined when the segment does not say it exactly: a sensitive hash, or a string cut at
 * MAX_ENCODED_STRING_BYTES (it may have been longer).
 */
export function decodeSegment(type: IndexType, segment: string): IndexValue | undefined {
  const body = segment.slice(1);
  switch (segment[0]) {
    case 's': {
      if (type !== 'string' && type !== 'keyword') return undefined;
      const bytes = Buffer.from(body, 'hex');
      return bytes.length < MAX_ENCODED_STRING_BYTES ? bytes.toString('utf8') : undefined;
    }
    case 'n':
      return type === 'number' && body.length === 16 ? decodeNumber(body) : undefined;
    case 'd':
      return type === 'datetime' && body.length === 16 ? new Date(decodeNumber(body)).toISOString() : undefined;
    case 'b':
      return type === 'boolean' && (body === '0' || body === '1') ? body === '1' : undefined;
    default:
      return undefined;
  }
}

/** The inverse of encodeNumber. */
export function decodeNumber(hex: string): number {
  const buffer = Buffer.from(hex, 'hex');
  if ((buffer[0]! & 0x80) !== 0) buffer[0] = buffer[0]! & 0x7f;
  else for (let i = 0; i < 8; i++) buffer[i] = ~buffer[i]! & 0xff;
  return buffer.readDoubleBE(0);
}
