/**
 * @module JSON bodies of entities, split across string properties.
 *
 * A string property holds at most 64 KiB of UTF-16, i.e. 32,768 characters (Azurite refuses 32,769),
 * and an entity at most 1 MiB, which Azurite does NOT enforce: we check it ourselves so that tests on
 * Azurite refuse what Azure would. The common small case is one property, `body`; a larger JSON goes to
 * `body`, `body1`, `body2`, ... with `bodyParts` saying how many (always written with Replace, so no
 * stale parts survive).
 */
import { StorageError, TooLargeError } from '../engine/model';

/** Characters per property: under the 32,768 limit, leaving room for a surrogate pair at the cut. */
export const MAX_PROPERTY_CHARS = 32_000;
/** Azure's entity limit. */
export const MAX_ENTITY_BYTES = 1024 * 1024;

export type EntityProperties = Record<string, string | number | boolean>;

/** `json` as properties named `name`, `name1`, ...; `nameParts` only when there is more than one. */
export function splitBody(json: string, name = 'body'): EntityProperties {
  if (json.length <= MAX_PROPERTY_CHARS) return { [name]: json };
  const properties: EntityProperties = {};
  let part = 0;
  for (let start = 0; start < json.length; part += 1) {
    let end = Math.min(start + MAX_PROPERTY_CHARS, json.length);
    // Keep surrogate pairs whole, so that each part is well-formed UTF-16 on the wire.
    const last = json.charCodeAt(end - 1);
    if (end < json.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    properties[part === 0 ? name : `${name}${part}`] = json.slice(start, end);
    start = end;
  }
  properties[`${name}Parts`] = part;
  return properties;
}

/**
 * JSON for a body. U+2028 and U+2029 are escaped (`\u2028`, same value once parsed): JSON.stringify
 * leaves them raw, and Azurite's parser of transaction (multipart) bodies fails on them with a 500.
 */
export function stringifyBody(value: unknown): string {
  return JSON.stringify(value).replace(/[\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16)}`);
}

/** `value` as JSON properties (see splitBody). */
export function toBody(value: unknown, name = 'body'): EntityProperties {
  return splitBody(stringifyBody(value), name);
}

/** The inverse of splitBody. */
export function joinBody(entity: Record<string, unknown>, name = 'body'): string {
  const parts = entity[`${name}Parts`];
  const count = typeof parts === 'number' ? parts : 1;
  let json = '';
  for (let part = 0; part < count; part += 1) {
    const value = entity[part === 0 ? name : `${name}${part}`];
    if (typeof value !== 'string') {
      throw new StorageError(`Stored entity ${String(entity.partitionKey)}/${String(entity.rowKey)} is missing part ${part} of "${name}"`, undefined, false);
    }
    json += value;
  }
  return json;
}

export function parseBody<T>(entity: Record<string, unknown>, name = 'body'): T {
  const json = joinBody(entity, name);
  try {
    return JSON.parse(json) as T;
  } catch (error) {
    throw new StorageError(`Stored entity ${String(entity.partitionKey)}/${String(entity.rowKey)} holds malformed JSON`, undefined, false, { cause: error });
  }
}

/**
 * Azure's size of an entity in bytes (its documented formula: 4 + 2 × key lengths + per property
 * 8 + 2 × name length + value size, strings 4 + 2 × length), plus the system Timestamp.
 */
export function entitySizeInBytes(entity: { partitionKey: string; rowKey: string } & Record<string, unknown>): number {
  let size = 4 + 2 * (entity.partitionKey.length + entity.rowKey.length) + 2 + (8 + 2 * 'Timestamp'.length + 8);
  for (const [name, value] of Object.entries(entity)) {
    if (name === 'partitionKey' || name === 'rowKey') continue;
    size += 8 + 2 * name.length;
    if (typeof value === 'string') size += 4 + 2 * value.length;
    else if (typeof value === 'boolean') size += 1;
    else size += 8;
  }
  return size;
}

/** Throws TooLargeError, naming the thing and its size, if the entity exceeds 1 MiB. */
export function assertEntityFits(entity: { partitionKey: string; rowKey: string } & Record<string, unknown>, what: string): void {
  const size = entitySizeInBytes(entity);
  if (size > MAX_ENTITY_BYTES) {
    throw new TooLargeError(
      `${what} is too large to store: ${size} bytes as Table Storage counts them (UTF-16), at most ${MAX_ENTITY_BYTES} (1 MiB); ` +
        'keep large data outside the instance context and store a reference instead',
    );
  }
}
