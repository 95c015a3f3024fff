/**
 * @module RFC 6902 JSON Patch, the subset a history needs: `diffJson` makes the `add`, `remove` and
 * `replace` operations that turn one JSON value into another, `applyJsonPatch` applies them (and `test`,
 * `move`, `copy`, for patches from elsewhere). No library in node_modules does this, so it is here, small.
 * A history entry records the context's change with it, so the context after any entry can be rebuilt
 * (docs/decisions/0026-replayable-history.md).
 */
import { z } from 'zod';
import { jsonEqual } from './json-equal';
import { jsonValueSchema, type JsonValue } from './json';

export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };
export type JsonPatch = readonly JsonPatchOperation[];

export const jsonPatchSchema = z
  .array(
    z.discriminatedUnion('op', [
      z.strictObject({ op: z.enum(['add', 'replace', 'test']), path: z.string(), value: jsonValueSchema }),
      z.strictObject({ op: z.literal('remove'), path: z.string() }),
      z.strictObject({ op: z.enum(['move', 'copy']), from: z.string(), path: z.string() }),
    ]),
  )
  .meta({ id: 'JsonPatch', description: 'An RFC 6902 JSON Patch.' });

/** A JSON Pointer (RFC 6901) reference token: `~` and `/` escaped. */
function token(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The operations that turn `before` into `after` (empty when they are equal). Objects are compared key by
 * key, arrays index by index (items past the shorter length are added at the end or removed from the end,
 * last first), anything else that differs is replaced; a root of another kind is replaced whole (path "").
 */
export function diffJson(before: JsonValue, after: JsonValue): JsonPatchOperation[] {
  const operations: JsonPatchOperation[] = [];
  diffInto(before, after, '', operations);
  return operations;
}

function diffInto(before: JsonValue, after: JsonValue, path: string, out: JsonPatchOperation[]): void {
  if (jsonEqual(before, after)) return;
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) out.push({ op: 'remove', path: `${path}/${token(key)}` });
    for (const [key, value] of Object.entries(after)) {
      const at = `${path}/${token(key)}`;
      if (Object.hasOwn(before, key)) diffInto(before[key]!, value, at, out);
      else out.push({ op: 'add', path: at, value });
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const common = Math.min(before.length, after.length);
    for (let index = 0; index < common; index++) diffInto(before[index]!, after[index]!, `${path}/${index}`, out);
    for (let index = before.length - 1; index >= common; index--) out.push({ op: 'remove', path: `${path}/${index}` });
    for (let index = common; index < after.length; index++) out.push({ op: 'add', path: `${path}/${index}`, value: after[index]! });
    return;
  }
  out.push({ op: 'replace', path, value: after });
}

/** A patch that cannot be applied (a path that names nothing, a failed `test`): the message says which operation. */
export class JsonPatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPatchError';
  }
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError(`"${pointer}" is not a JSON Pointer`);
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function clone<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}

function arrayIndex(array: JsonValue[], part: string, forAdd: boolean, pointer: string): number {
  if (forAdd && part === '-') return array.length;
  if (!/^(0|[1-9]\d*)$/.test(part)) throw new JsonPatchError(`"${pointer}": "${part}" is not an array index`);
  const index = Number(part);
  if (index > array.length || (!forAdd && index === array.length)) throw new JsonPatchError(`"${pointer}": index ${index} is out of bounds`);
  return index;
}

function parentOf(document: JsonValue, parts: readonly string[], pointer: string): JsonValue {
  let node = document;
  for (const part of parts.slice(0, -1)) {
    if (Array.isArray(node)) node = node[arrayIndex(node, part, false, pointer)]!;
    else if (isObject(node) && Object.hasOwn(node, part)) node = node[part]!;
    else throw new JsonPatchError(`"${pointer}" names nothing`);
  }
  return node;
}

function valueAt(document: JsonValue, pointer: string): JsonValue {
  const parts = parsePointer(pointer);
  if (parts.length === 0) return document;
  const parent = parentOf(document, parts, pointer);
  const last = parts[parts.length - 1]!;
  if (Array.isArray(parent)) return parent[arrayIndex(parent, last, false, pointer)]!;
  if (isObject(parent) && Object.hasOwn(parent, last)) return parent[last]!;
  throw new JsonPatchError(`"${pointer}" names nothing`);
}

/** Sets, inserts or removes at `pointer` in `document` (mutated), returning the new root. */
function edit(document: JsonValue, pointer: string, kind: 'add' | 'replace' | 'remove', value?: JsonValue): JsonValue {
  const parts = parsePointer(pointer);
  if (parts.length === 0) {
    if (kind === 'remove') throw new JsonPatchError('the root cannot be removed');
    return value!;
  }
  const parent = parentOf(document, parts, pointer);
  const last = parts[parts.length - 1]!;
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, last, kind === 'add', pointer);
    if (kind === 'add') parent.splice(index, 0, value!);
    else if (kind === 'replace') parent[index] = value!;
    else parent.splice(index, 1);
  } else if (isObject(parent)) {
    if (kind !== 'add' && !Object.hasOwn(parent, last)) throw new JsonPatchError(`"${pointer}" names nothing`);
    if (kind === 'remove') delete parent[last];
    else parent[last] = value!;
  } else {
    throw new JsonPatchError(`"${pointer}": its parent is not an object or array`);
  }
  return document;
}

/** `document` with `patch` applied, operation by operation (RFC 6902); `document` itself is not changed. */
export function applyJsonPatch(document: JsonValue, patch: JsonPatch): JsonValue {
  let result = clone(document);
  patch.forEach((operation, index) => {
    try {
      switch (operation.op) {
        case 'add':
        case 'replace':
          result = edit(result, operation.path, operation.op, clone(operation.value));
          break;
        case 'remove':
          result = edit(result, operation.path, 'remove');
          break;
        case 'test':
          if (!jsonEqual(valueAt(result, operation.path), operation.value)) throw new JsonPatchError(`test of "${operation.path}" failed`);
          break;
        case 'copy':
          result = edit(result, operation.path, 'add', clone(valueAt(result, operation.from)));
          break;
        case 'move': {
          if (operation.path.startsWith(`${operation.from}/`)) throw new JsonPatchError(`"${operation.from}" cannot move into itself`);
          const moved = valueAt(result, operation.from);
          result = edit(edit(result, operation.from, 'remove'), operation.path, 'add', moved);
          break;
        }
      }
    } catch (error) {
      if (error instanceof JsonPatchError) throw new JsonPatchError(`operation ${index} (${operation.op}): ${error.message}`);
      throw error;
    }
  });
  return result;
}
