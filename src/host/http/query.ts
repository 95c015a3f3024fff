/** @module Query strings validated with zod: unknown parameters are refused so typos don't pass silently. */
import { z } from 'zod';
import { parseWith } from '../../engine/validation';
import type { ApiRequest } from './types';

export const pageQuerySchema = {
  continuationToken: z.string().min(1).max(4096).optional(),
  maxPageSize: z.coerce.number().int().min(1).max(1000).optional(),
};

export function parseQuery<T extends z.ZodRawShape>(request: ApiRequest, shape: T): z.infer<z.ZodObject<T>> {
  const values: Record<string, string> = {};
  for (const [key, value] of request.url.searchParams) values[key] = value;
  // `code` is the Azure Functions key parameter: accepted everywhere, never ours to interpret.
  delete values.code;
  return parseWith(z.strictObject(shape), values, 'The query string is invalid') as z.infer<z.ZodObject<T>>;
}
