/**
 * @module Ids of raised triggers: unforgeable and collision-free. Every raised id starts with the
 * reserved prefix `raised:`, which client trigger ids may not use (trigger.ts refuses it with a 400 at
 * `id`), so no client trigger can take a raised trigger's place. The rest is unambiguous: the instance
 * id is length-prefixed and the cause is tagged (`t.<trigger id>`, `c` for creation, `r<sequence>` for a
 * recovery), so two different (instance, cause, index) triples never give the same text. Past 128
 * characters the text is replaced by a 128-bit hash of it (`raised:h.<32 hex>`, which no readable id can
 * look like). The same inputs always give the same id, so a repeated delivery of an outbox row is
 * recognised downstream as the same trigger.
 *
 * An instance's incarnation (instance.ts) is part of every id derived from it, as an `i.<incarnation>`
 * segment right after the instance id: no cause tag, state entry or hash starts with `i.`, so an id with
 * one can never equal an id without one. Instances without an incarnation (created before it existed)
 * keep the ids they always had.
 */
const MAX_ID_LENGTH = 128;

/** Client trigger ids may not start with this. */
export const RAISED_TRIGGER_ID_PREFIX = 'raised:';
/** Nor with this: timers' triggers (timerTriggerId). */
export const TIMER_TRIGGER_ID_PREFIX = 'timer:';

/** A 64-bit string hash (cyrb53 variant) as 16 hex digits; `seed` gives independent hashes. */
export function hashString(value: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < value.length; i++) {
    const ch = value.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

/** 128 bits: two independent 64-bit hashes. */
function hash128(value: string): string {
  return hashString(value, 0) + hashString(value, 0x9e3779b9);
}

/** Maps any string to a valid id (`[A-Za-z0-9._:-]`, at most 128 characters), deterministically. */
export function toTriggerId(raw: string): string {
  const safe = raw.replace(/[^A-Za-z0-9._:-]/g, '_');
  if (safe.length <= MAX_ID_LENGTH && safe === raw) return safe;
  // Replacing characters could make two raw ids collide, so any change adds a hash of the original.
  const hash = hashString(raw);
  return `${safe.slice(0, MAX_ID_LENGTH - hash.length - 1)}.${hash}`;
}

/**
 * The id of the `index`-th trigger raised by the change `causeKey` (see decision.ts) of `instanceId`.
 * Instance and trigger ids use the id charset already, so the readable form needs no escaping.
 */
export function raisedTriggerId(instanceId: string, causeKey: string, index: number, incarnation?: string): string {
  const readable = `${RAISED_TRIGGER_ID_PREFIX}${instanceId.length}:${instanceId}:${incarnationSegment(incarnation)}${causeKey}:${index}`;
  if (readable.length <= MAX_ID_LENGTH && /^[A-Za-z0-9._:-]+$/.test(readable)) return readable;
  return `${RAISED_TRIGGER_ID_PREFIX}h.${hash128(readable)}`;
}

/**
 * The id of the timer of `transitionId` armed for entry `stateEntry` of `instanceId`:
 * `timer:<instanceId>:<stateEntry>:<transitionId>`, readable while that is unambiguous (the instance id
 * holds no ':', the transition id only id characters, 128 characters at most), else
 * `timer:h.<128-bit hash>` of it (one ':' only, so it cannot look like a readable one). Deterministic:
 * arming twice gives one id, so a timer applies at most once (it is its operation's id too).
 */
export function timerTriggerId(instanceId: string, stateEntry: number, transitionId: string, incarnation?: string): string {
  const readable = `${TIMER_TRIGGER_ID_PREFIX}${instanceId}:${incarnationSegment(incarnation)}${stateEntry}:${transitionId}`;
  if (!instanceId.includes(':') && readable.length <= MAX_ID_LENGTH && /^[A-Za-z0-9._:-]+$/.test(readable)) return readable;
  return `${TIMER_TRIGGER_ID_PREFIX}h.${hash128(`${instanceId.length}:${instanceId}:${incarnationSegment(incarnation)}${stateEntry}:${transitionId}`)}`;
}

/** Nor with this: pending retries' triggers (retryTriggerId). */
export const RETRY_TRIGGER_ID_PREFIX = 'retry:';

/**
 * The id of the trigger that makes attempt `attempt` of trigger `triggerId` on `instanceId`, due at
 * `nextAttemptAt`: `retry:<length>:<instanceId>:i.<incarnation>:<attempt>.<due ms>:<triggerId>`, readable
 * while it fits in 128 characters, else `retry:h.<128-bit hash>` of it. Deterministic, so scheduling it
 * twice gives one operation; the incarnation keeps an instance id used again from reaching the old
 * instance's retries, and the due time makes a retry rescheduled by a resume a new operation (the old one
 * may have run, answered `notActive`, while the instance was suspended).
 */
export function retryTriggerId(instanceId: string, triggerId: string, attempt: number, nextAttemptAt: string, incarnation?: string): string {
  const readable = `${RETRY_TRIGGER_ID_PREFIX}${instanceId.length}:${instanceId}:${incarnationSegment(incarnation)}${attempt}.${Date.parse(nextAttemptAt)}:${triggerId}`;
  if (readable.length <= MAX_ID_LENGTH && /^[A-Za-z0-9._:-]+$/.test(readable)) return readable;
  return `${RETRY_TRIGGER_ID_PREFIX}h.${hash128(readable)}`;
}

/** Nor with this: the triggers that apply a debounced burst (debounceTriggerId). */
export const DEBOUNCE_TRIGGER_ID_PREFIX = 'debounce:';

/**
 * The id of the trigger that applies the burst of `triggerName` triggers on `instanceId` whose latest is
 * `lastTriggerId`, due at `dueAt`: `debounce:h.<128-bit hash>` (trigger names may hold any character).
 * Deterministic, so scheduling it twice gives one operation; a later trigger of the burst (or a resume
 * that moves the due time) gives a new id, and the old one finds itself stale.
 */
export function debounceTriggerId(instanceId: string, triggerName: string, lastTriggerId: string, dueAt: string, incarnation?: string): string {
  const raw = `${instanceId.length}:${instanceId}:${incarnationSegment(incarnation)}${Date.parse(dueAt)}:${lastTriggerId.length}:${lastTriggerId}:${triggerName}`;
  return `${DEBOUNCE_TRIGGER_ID_PREFIX}h.${hash128(raw)}`;
}

/** `i.<incarnation>:`, or nothing for an instance without one (its ids stay as they were). */
export function incarnationSegment(incarnation: string | undefined): string {
  return incarnation === undefined ? '' : `i.${incarnation}:`;
}

/**
 * A new incarnation tag: 12 random hex digits (48 bits; it only has to differ from the other incarnations
 * of the same instance id). Not taken from `EngineOptions.newId`, whose ids callers may count on.
 */
export function newIncarnation(): string {
  return globalThis.crypto.randomUUID().replace(/-/g, '').slice(0, 12);
}
