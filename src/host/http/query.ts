/**
 * @module Query parameters routes share. The dispatcher (route.ts) parses each route's declared query,
 * refusing unknown parameters so that typos don't pass silently.
 */
import { z } from 'zod';

export const pageQuerySchema = {
  continuationToken: z.string().min(1).max(4096).optional().meta({ description: 'The `continuationToken` of the previous page, as it was returned.' }),
  maxPageSize: z.coerce.number().int().min(1).max(1000).optional().meta({ description: 'At most this many items on the page (a page may hold fewer and still have a next one).' }),
};
