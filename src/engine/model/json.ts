/** @module JSON value types shared by the model. */
import { z } from 'zod';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

// The `id` names it once in generated JSON Schemas and the OpenAPI document (`$defs/JsonValue`).
export const jsonValueSchema: z.ZodType<JsonValue> = z
  .lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValueSchema), z.record(z.string(), jsonValueSchema)]))
  .meta({ id: 'JsonValue', description: 'Any JSON value.' });
export const jsonObjectSchema: z.ZodType<JsonObject> = z.record(z.string(), jsonValueSchema);

/** Size of a value as UTF-8 JSON, in bytes. */
export function jsonSizeInBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
}
