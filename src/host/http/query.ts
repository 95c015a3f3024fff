/**
 * @module Query strings validated with zod: unknown parameters are refused so typos don't pass silently.
 * Routes declare their query as a zod object in their contract and parse with the same one.
 */
import { z } from 'zod';
import { parseWith } from '../../engine/validation';
import type { ApiRequest } from './types';

export const pageQuerySchema = {
  continuationToken: z.string().min(1).max(4096).optional().meta({ description: 'The `continuationToken` of the previous page, as it was returned.' }),
  maxPageSize: z.coerce.number().int().min(1).max(1000).optional().meta({ description: 'At most this many items on the page (a page may hold fewer and still have a next one).' }),
};

/** Routes that take no query string: one schema for all of them. */
const noQuery = z.strictObject({});
/** The strict schema of each shape or object a route declares, built once (not once per request: polls are hot). */
const strictSchemas = new WeakMap<object, z.ZodObject>();

function strictSchemaOf(shape: z.ZodRawShape | z.ZodObject): z.ZodObject {
  if (!(shape instanceof z.ZodObject) && Object.keys(shape).length === 0) return noQuery;
  let schema = strictSchemas.get(shape);
  if (!schema) strictSchemas.set(shape, (schema = z.strictObject(shape instanceof z.ZodObject ? shape.shape : shape)));
  return schema;
}

export function parseQuery<T extends z.ZodRawShape>(request: ApiRequest, shape: T | z.ZodObject<T>): z.infer<z.ZodObject<T>> {
  const searchParams = request.url.searchParams;
  // The common case, no query string at all, needs no parse when nothing is required.
  if (searchParams.size === 0 && strictSchemaOf(shape) === noQuery) return {} as z.infer<z.ZodObject<T>>;
  const values: Record<string, string> = {};
  for (const [key, value] of searchParams) values[key] = value;
  // `code` is the Azure Functions key parameter: accepted everywhere, never ours to interpret.
  delete values.code;
  return parseWith(strictSchemaOf(shape), values, 'The query string is invalid') as z.infer<z.ZodObject<T>>;
}
