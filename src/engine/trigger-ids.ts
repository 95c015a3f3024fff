/**
 * @module Deterministic ids for raised triggers, so dispatching the same outbox twice is idempotent:
 * `<trigger id>.<instance id>.<n>` and the like, squeezed into the id charset of trigger.ts (hashed when
 * too long).
 */
const MAX_ID_LENGTH = 128;

/** A 64-bit string hash (cyrb53 variant) as 16 hex digits: short, stable, no dependencies. */
export function hashString(value: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < value.length; i++) {
    const ch = value.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

/** Maps any string to a valid id (`[A-Za-z0-9._:-]`, at most 128 characters), deterministically. */
export function toTriggerId(raw: string): string {
  const safe = raw.replace(/[^A-Za-z0-9._:-]/g, '_');
  if (safe.length <= MAX_ID_LENGTH && safe === raw) return safe;
  // Replacing characters could make two raw ids collide, so any change adds a hash of the original.
  const hash = hashString(raw);
  return `${safe.slice(0, MAX_ID_LENGTH - hash.length - 1)}.${hash}`;
}
