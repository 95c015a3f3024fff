/**
 * @module Idempotency keys done as the IETF Idempotency-Key draft does them: the trigger id is the key,
 * and a fingerprint of the trigger's body is stored with its operation, so a repeat of the id with a
 * different body is refused (409, naming the first difference) instead of silently answered with the
 * first operation.
 */
import { createHash } from 'node:crypto';
import { ConflictError } from '../engine/model';
import type { JsonValue } from '../engine/model';
import type { Operation } from '../engine/operations';
import type { Trigger } from '../engine/model';
import { formatPath, upgradeTrigger } from '../engine/model';

/** The part of a trigger a client chose (the id is the key itself). */
function bodyOf(trigger: Trigger): JsonValue {
  // Who sent it is not part of what was sent: a retry with a fresh token (or by a colleague) is a repeat.
  // In the current form: a record written before internal kinds were a union (a timer's trigger, say)
  // compares equal to the same trigger made now.
  const { id: _id, actor: _actor, ...body } = upgradeTrigger(trigger);
  return JSON.parse(JSON.stringify(body)) as JsonValue;
}

function canonical(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical(value[key]!)}`)
    .join(',')}}`;
}

/** sha-256 of the trigger's body in canonical JSON (key order does not matter). */
export function triggerFingerprint(trigger: Trigger): string {
  return createHash('sha256')
    .update(canonical(bodyOf(trigger)))
    .digest('base64url');
}

function firstDifference(a: JsonValue | undefined, b: JsonValue | undefined, path: (string | number)[]): (string | number)[] | undefined {
  if (a === b) return undefined;
  if (a === null || b === null || a === undefined || b === undefined || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) return path;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let index = 0; index < Math.max(a.length, b.length); index++) {
      const found = firstDifference(a[index], b[index], [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  const left = a as Record<string, JsonValue>;
  const right = b as Record<string, JsonValue>;
  for (const key of [...new Set([...Object.keys(left), ...Object.keys(right)])].sort()) {
    const found = firstDifference(left[key], right[key], [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** Throws ConflictError when `existing` was recorded for the same trigger id with a different body. */
export function assertSameTrigger(existing: Operation, trigger: Trigger, fingerprint: string): void {
  if (existing.kind === 'migration' || existing.kind === 'bulk') {
    throw new ConflictError(`Id "${trigger.id}" belongs to a ${existing.kind} operation; a new trigger needs a new id`);
  }
  // Operations recorded before fingerprints existed are compared by their stored trigger alone.
  if (existing.triggerFingerprint === fingerprint) return;
  const difference = firstDifference(bodyOf(existing.trigger), bodyOf(trigger), []);
  if (!difference) return;
  throw new ConflictError(`Trigger id "${trigger.id}" was already used with a different body (first difference at ${formatPath(difference)}); a new trigger needs a new id`);
}
