/**
 * @module Paged lists in the Azure SDK's idiom: an async iterable of items with `byPage({
 * continuationToken, maxPageSize })` for the pages, built over a port's page function, so callers write
 * `for await` instead of continuation-token loops.
 */
import type { Page, PageOptions } from './ports';

export interface PageSettings {
  continuationToken?: string;
  maxPageSize?: number;
}

export interface PagedAsyncIterable<T> extends AsyncIterable<T> {
  /** The pages, from `continuationToken` (or the start), each of at most `maxPageSize` items. */
  byPage(settings?: PageSettings): AsyncIterableIterator<Page<T>>;
}

/** Wraps a page function (`options` are passed with every call, e.g. the abort signal). */
export function pagedList<T>(listPage: (options: PageOptions) => Promise<Page<T>>, options: PageOptions = {}): PagedAsyncIterable<T> {
  async function* pages(settings: PageSettings = {}): AsyncIterableIterator<Page<T>> {
    let continuationToken = settings.continuationToken ?? options.continuationToken;
    const maxPageSize = settings.maxPageSize ?? options.maxPageSize;
    do {
      const page = await listPage({ ...options, ...(maxPageSize !== undefined ? { maxPageSize } : {}), ...(continuationToken !== undefined ? { continuationToken } : { continuationToken: undefined }) });
      yield page;
      continuationToken = page.continuationToken;
    } while (continuationToken);
  }
  return {
    byPage: pages,
    async *[Symbol.asyncIterator]() {
      for await (const page of pages()) yield* page.items;
    },
  };
}
