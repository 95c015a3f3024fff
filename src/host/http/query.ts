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

export function parseQuery<T extends z.ZodRawShape>(request: ApiRequest, shape: T | z.ZodObject<T>): z.infer<z.ZodObject<T>> {
  if (shape instanceof z.ZodObject) return parseQuery(request, shape.shape as T);
  const values: Record<string, string> = {};
  for (const [key, value] of request.url.searchParams) values[key] = value;
  // `code` is the Azure Functions key parameter: accepted everywhere, never ours to interpret.
  delete values.code;
  return parseWith(z.strictObject(shape), values, 'The query string is invalid') as z.infer<z.ZodObject<T>>;
}
