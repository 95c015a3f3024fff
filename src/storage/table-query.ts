/** @module One page of a table query, in the ports' paging idiom. */
import type { TableClient, TableEntityResult } from '@azure/data-tables';
import type { Page, PageOptions } from '../engine/ports';
import { pageSize, unwrapTableToken, wrapTableToken } from './continuation-token';
import { translate } from './errors';

export type TableRow = TableEntityResult<Record<string, unknown>>;

/**
 * Runs `filter` for one page. A filtered query may come back empty with a continuation token (Azure
 * stops after 1,000 scanned rows or 5 s): such pages are followed at once, so a returned page is empty
 * only when the query is exhausted.
 */
export async function queryPage<T>(client: TableClient, filter: string, options: PageOptions | undefined, map: (row: TableRow) => T, what: string, select?: string[]): Promise<Page<T>> {
  const size = pageSize(options?.maxPageSize);
  const from = unwrapTableToken(options?.continuationToken);
  const items: T[] = [];
  let token: string | undefined;
  const pages = client
    .listEntities<Record<string, unknown>>({ queryOptions: { filter, ...(select && { select }) }, abortSignal: options?.abortSignal })
    .byPage({ maxPageSize: size, ...(from && { continuationToken: from }) });
  await translate(what, async () => {
    for await (const page of pages) {
      for (const row of page) items.push(map(row));
      token = page.continuationToken;
      // An empty page with a token is followed at once; one with rows is this page.
      if (items.length > 0) break;
    }
  });
  const continuationToken = wrapTableToken(token);
  return continuationToken ? { items, continuationToken } : { items };
}
