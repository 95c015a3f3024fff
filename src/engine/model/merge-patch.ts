/**
 * @module JSON Merge Patch (RFC 7386) of an instance's context: what a recovery may change before the
 * state is entered again (decide-recover.ts). Chosen over JSON Patch (RFC 6902) because a repair is
 * nearly always "set these keys" and reads as the context itself; `null` removes a key.
 */
import { jsonObjectSchema, jsonSizeInBytes, type JsonObject, type JsonValue } from './json';

/** A context patch is at most this large as UTF-8 JSON (the same bound as a trigger). */
export const MAX_CONTEXT_PATCH_SIZE_IN_BYTES = 64 * 1024;

export const contextPatchSchema = jsonObjectSchema
  .superRefine((patch, context) => {
    const size = jsonSizeInBytes(patch);
    if (size > MAX_CONTEXT_PATCH_SIZE_IN_BYTES) context.addIssue({ code: 'custom', message: `is ${size} bytes; at most ${MAX_CONTEXT_PATCH_SIZE_IN_BYTES} are allowed` });
  })
  .meta({ description: 'A JSON Merge Patch (RFC 7386) of the context: keys set as given, nested objects merged, `null` removes a key. At most 64 KiB.' });

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7386 MergePatch(target, patch) for an object patch (pure; neither argument is changed). */
export function applyMergePatch(target: JsonObject, patch: JsonObject): JsonObject {
  const result: JsonObject = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    // Defined, not assigned: a `__proto__` key (refused at the HTTP edge) stays a plain key here too.
    else
      Object.defineProperty(result, key, {
        value: isObject(value) ? applyMergePatch(Object.hasOwn(result, key) && isObject(result[key]) ? result[key] : {}, value) : value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return result;
}
