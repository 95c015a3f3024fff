/** @module Offset paging for the in-memory stores, with an opaque token like the real ones. */
import { ValidationError } from '../../engine/model';
import { pagedList } from '../../engine/ports';
import type { Page, PageOptions } from '../../engine/ports';

export function pageOf<T>(items: readonly T[], options: PageOptions = {}): Page<T> {
  const size = Math.min(Math.max(options.maxPageSize ?? 100, 1), 1000);
  let offset = 0;
  if (options.continuationToken) {
    offset = Number(Buffer.from(options.continuationToken, 'base64url').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0) {
      throw new ValidationError('The continuation token is invalid', [{ path: 'continuationToken', message: 'not a token this store issued' }]);
    }
  }
  const slice = items.slice(offset, offset + size);
  const end = offset + slice.length;
  return end < items.length ? { items: slice, continuationToken: Buffer.from(String(end), 'utf8').toString('base64url') } : { items: slice };
}

/** Every page of a paged list, concatenated (tests and small in-process fan-outs). */
export async function collectAll<T>(list: (options: PageOptions) => Promise<Page<T>>, maxPageSize = 1000): Promise<T[]> {
  const out: T[] = [];
  for await (const item of pagedList(list, { maxPageSize })) out.push(item);
  return out;
}
