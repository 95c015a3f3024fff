/**
 * @module Table keys and blob names from arbitrary ids and subjects.
 *
 * Table keys may not contain `/ \ # ?` or control characters and are at most 512 characters (Azurite
 * refuses 513; Azure documents 1 KiB of UTF-16). Encoding: the characters of the id alphabet
 * (`A-Z a-z 0-9 . _ : -`) stay as they are, so ordinary ids are their own keys (readable in Storage
 * Explorer, and ordered like the ids); every other character becomes `~XX` per UTF-8 byte (uppercase
 * hex). The result is pure ASCII, which also keeps the SDK's continuation tokens (decoded byte-wise)
 * intact, and it is reversible: `~` only ever appears as the start of an escape.
 *
 * Ids must be reversible, so an id whose key would be too long is refused (ValidationError). Subjects
 * only need to be looked up, never decoded, so a long one is shortened to a prefix plus `~~` and a
 * SHA-256: `~~` cannot occur in an unshortened key, and a collision could only add candidates, which
 * the processor filters out under the lease (the index stays a superset of the truth).
 */
import { createHash } from 'node:crypto';
import { StorageError, ValidationError } from '../engine/model';

/** The longest PartitionKey or RowKey Azurite (and Azure, in UTF-16) accepts. */
export const MAX_TABLE_KEY_LENGTH = 512;
/** The longest blob name Azure accepts. */
export const MAX_BLOB_NAME_LENGTH = 1024;

const plain = /^[A-Za-z0-9._:-]$/;
const escape = /~([0-9A-F]{2})/y;

// String.prototype.isWellFormed/toWellFormed are Node 20+ but not in the ES2022 lib typings.
type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };
function isWellFormed(value: string): boolean {
  return (value as WellFormedString).isWellFormed();
}
function toWellFormed(value: string): string {
  return (value as WellFormedString).toWellFormed();
}

function escapeAll(value: string): string {
  let out = '';
  for (const char of value) {
    if (plain.test(char)) out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += `~${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Reversible key for an id; throws ValidationError if the id is empty, malformed Unicode, or too long. */
export function encodeKey(value: string, what = 'id'): string {
  if (value.length === 0) throw new ValidationError(`The ${what} is empty`, [{ path: what, message: 'must not be empty' }]);
  if (!isWellFormed(value)) {
    throw new ValidationError(`The ${what} is not well-formed Unicode (a lone surrogate)`, [{ path: what, message: 'must be well-formed Unicode' }]);
  }
  const key = escapeAll(value);
  if (key.length > MAX_TABLE_KEY_LENGTH) {
    throw new ValidationError(`The ${what} is too long to be a storage key (${key.length} characters encoded; at most ${MAX_TABLE_KEY_LENGTH})`, [
      { path: what, message: `encodes to ${key.length} characters; at most ${MAX_TABLE_KEY_LENGTH}` },
    ]);
  }
  return key;
}

/** The inverse of encodeKey. A malformed key can only come from a row written by something else. */
export function decodeKey(key: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < key.length;) {
    const char = key[i] as string;
    if (char === '~') {
      escape.lastIndex = i;
      const match = escape.exec(key);
      if (!match) throw new StorageError(`The storage key "${key}" is malformed`, undefined, false);
      bytes.push(Number.parseInt(match[1] as string, 16));
      i += 3;
    } else {
      if (!plain.test(char)) throw new StorageError(`The storage key "${key}" is malformed`, undefined, false);
      bytes.push(char.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function shorten(key: string, maxLength: number): string {
  if (key.length <= maxLength) return key;
  const digest = createHash('sha256').update(key).digest('base64url');
  let cut = maxLength - 2 - digest.length;
  // Never cut an escape in half: the prefix stays a valid run of characters and escapes.
  const lastTilde = key.lastIndexOf('~', cut - 1);
  if (lastTilde >= 0 && lastTilde > cut - 3) cut = lastTilde;
  return `${key.slice(0, cut)}~~${digest}`;
}

/** Key for a value that is looked up but never decoded (subjects): long ones are hashed. */
export function encodeLookupKey(value: string): string {
  // A lone surrogate becomes U+FFFD: at worst two subjects share a key, which only adds candidates.
  return shorten(escapeAll(toWellFormed(value)), MAX_TABLE_KEY_LENGTH);
}

/**
 * Blob name for a lease name: the key encoding, a trailing `.` escaped too (Azure trims trailing dots
 * and slashes from blob names), and hashed when longer than 1024 characters.
 */
export function encodeBlobName(value: string): string {
  if (value.length === 0) throw new ValidationError('The lease name is empty', [{ path: 'name', message: 'must not be empty' }]);
  let name = escapeAll(toWellFormed(value));
  if (name.endsWith('.')) name = `${name.slice(0, -1)}~2E`;
  return shorten(name, MAX_BLOB_NAME_LENGTH);
}

/** Zero-padded so that row keys sort like the numbers (10 digits: up to 9,999,999,999). */
export function padNumber(value: number, width = 10): string {
  if (!Number.isSafeInteger(value) || value < 0 || String(value).length > width) throw new RangeError(`${value} does not fit in ${width} digits`);
  return String(value).padStart(width, '0');
}
