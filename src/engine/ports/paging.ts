/**
 * @module Paged lists in the Azure SDK's idiom (the shape of @azure/core-paging's
 * PagedAsyncIterableIterator, which the engine may not import): an async iterable of items with
 * `byPage({ continuationToken, maxPageSize })` for the pages. Every port list returns one, built over
 * the store's page function with `pagedList`, so callers write `for await` instead of
 * continuation-token loops, and `onePage` where one page is meant.
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

/**
 * One page of a list (an HTTP route answers one page): `settings` override the list's own page options.
 * An empty list's page has no items and no token.
 */
export async function onePage<T>(list: PagedAsyncIterable<T>, settings?: PageSettings): Promise<Page<T>> {
  const pages = list.byPage(settings);
  const { value } = await pages.next();
  await pages.return?.(undefined);
  return value ?? { items: [] };
}

/** Wraps a page function (`options` are passed with every call, e.g. the abort signal). */
export function pagedList<T>(listPage: (options: PageOptions) => Promise<Page<T>>, options: PageOptions = {}): PagedAsyncIterable<T> {
  async function* pages(settings: PageSettings = {}): AsyncIterableIterator<Page<T>> {
    let continuationToken = settings.continuationToken ?? options.continuationToken;
    const maxPageSize = settings.maxPageSize ?? options.maxPageSize;
    do {
      const page = await listPage({
        ...options,
        ...(maxPageSize !== undefined ? { maxPageSize } : {}),
        ...(continuationToken !== undefined ? { continuationToken } : { continuationToken: undefined }),
      });
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
