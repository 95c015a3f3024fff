/**
 * @module A list the console counts and sorts itself. The API pages its lists in storage order and has
 * no count or sort, so the console reads the filtered set, 1,000 a request (the API's largest page), up
 * to READ_LIMIT items: that one walk gives the total and any order, and the page shows 50 of them at a
 * time. Past the limit the total is shown as "5,000+" and the order is among what was read, which the
 * page says. The instances and operations pages both list this way.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Page } from '../../../src/client';
import { navigate } from '../components/link';
import { ProblemAlert } from '../components/problem-alert';
import type { ConsoleRoute } from './hash-route';
import { useAsync, type AsyncState } from './use-async';

export const READ_LIMIT = 5000;
const READ_PAGE_SIZE = 1000;
/** Rows shown at once. */
export const LIST_PAGE_SIZE = 50;

export interface ReadList<T> {
  items: T[];
  /** True when more items match than were read. */
  truncated: boolean;
}

/** Reads pages from `readPage` until the list ends or `limit` items are read. */
export async function readList<T>(readPage: (continuationToken: string | undefined, maxPageSize: number) => Promise<Page<T>>, limit = READ_LIMIT): Promise<ReadList<T>> {
  const items: T[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await readPage(continuationToken, READ_PAGE_SIZE);
    items.push(...page.items);
    continuationToken = page.continuationToken;
  } while (continuationToken && items.length < limit);
  return { items: items.slice(0, limit), truncated: continuationToken !== undefined || items.length > limit };
}

/** A list's order: a column, and which way (the URL writes `sort=-key` for descending). */
export interface ListSort<Key extends string> {
  key: Key;
  descending: boolean;
}

/** A stable sort (ties keep the API's order); numbers compare as numbers, everything else as text. */
export function sortList<T>(items: readonly T[], valueOf: (item: T) => string | number | undefined, descending: boolean): T[] {
  const direction = descending ? -1 : 1;
  return items
    .map((item, index) => ({ item, value: valueOf(item) ?? '', index }))
    .sort((a, b) => (a.value < b.value ? -direction : a.value > b.value ? direction : a.index - b.index))
    .map(({ item }) => item);
}

export const formatCount = (count: number): string => count.toLocaleString('en-US');

/** "3 instances match", "1 instance matches", "5,000+ instances match". */
export function describeCount(list: ReadList<unknown>, noun: { one: string; many: string }): string {
  const total = list.items.length;
  if (list.truncated) return `${formatCount(total)}+ ${noun.many} match`;
  return total === 1 ? `1 ${noun.one} matches` : `${formatCount(total)} ${noun.many} match`;
}

export interface SortedList<T> {
  read: AsyncState<ReadList<T>>;
  /** The rows of the current page, in order. */
  shown: T[] | undefined;
  pageIndex: number;
  pageCount: number;
  setPageIndex: (update: (index: number) => number) => void;
}

/**
 * Reads the list whenever `readKey` changes, sorts it by `sort` and shows LIST_PAGE_SIZE at a time,
 * back on the first page when the list or its order changes.
 */
export function useSortedList<T, Key extends string>(
  read: () => Promise<ReadList<T>>,
  readKey: readonly unknown[],
  sort: ListSort<Key>,
  valueOf: (item: T, key: Key) => string | number | undefined,
): SortedList<T> {
  const state = useAsync(read, readKey);
  const sorted = useMemo(() => (state.data ? sortList(state.data.items, (item) => valueOf(item, sort.key), sort.descending) : undefined), [state.data, sort.key, sort.descending]);
  const [pageIndex, setPageIndex] = useState(0);
  useEffect(() => setPageIndex(0), [...readKey, sort.key, sort.descending]);
  const pageCount = Math.max(1, Math.ceil((sorted?.length ?? 0) / LIST_PAGE_SIZE));
  const shown = sorted?.slice(pageIndex * LIST_PAGE_SIZE, (pageIndex + 1) * LIST_PAGE_SIZE);
  return { read: state, shown, pageIndex, pageCount, setPageIndex };
}

/**
 * A column header that sorts by its column: ascending first (dates and `descendingFirst` columns
 * descending first), the other way on a second click. `routeFor` builds the route with the new order.
 */
export function SortHeader<Key extends string>({
  column,
  sort,
  routeFor,
}: {
  column: { key: Key; label: string; descendingFirst?: boolean };
  sort: ListSort<Key>;
  routeFor: (sort: ListSort<Key>) => ConsoleRoute;
}) {
  const active = sort.key === column.key;
  const next: ListSort<Key> = active ? { key: column.key, descending: !sort.descending } : { key: column.key, descending: column.descendingFirst ?? false };
  return (
    <th scope="col" aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : undefined}>
      <button type="button" class="sort-button" onClick={() => navigate(routeFor(next))}>
        <span class="visually-hidden">Sort by </span>
        {column.label}
        <span aria-hidden="true" class="sort-mark">
          {active ? (sort.descending ? ' ▼' : ' ▲') : ''}
        </span>
      </button>
    </th>
  );
}

/** Previous and next over a SortedList's pages; nothing when everything fits on one. */
export function ListPager({ list, label }: { list: Pick<SortedList<unknown>, 'pageIndex' | 'pageCount' | 'setPageIndex'>; label: string }) {
  const { pageIndex, pageCount, setPageIndex } = list;
  if (pageCount <= 1) return null;
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" class="secondary" disabled={pageIndex === 0} onClick={() => setPageIndex((index) => index - 1)}>
        Previous page
      </button>
      <span>
        Page {pageIndex + 1} of {pageCount}
      </span>
      <button type="button" class="secondary" disabled={pageIndex + 1 >= pageCount} onClick={() => setPageIndex((index) => index + 1)}>
        Next page
      </button>
    </nav>
  );
}

/**
 * What a list's read came to, above its table: the problem if it failed, "Loading…" until it answers,
 * then the count, and when more matched than were read, why the order may not be the whole list's.
 */
export function ListStatus({ read, noun, apiOrder, testId }: { read: AsyncState<ReadList<unknown>>; noun: { one: string; many: string }; apiOrder: string; testId: string }) {
  return (
    <>
      {read.problem && <ProblemAlert problem={read.problem} context={`Listing ${noun.many} failed`} />}
      {read.loading && !read.data && <p aria-live="polite">Loading {noun.many}…</p>}
      {read.data && (
        <p class="count" data-testid={testId} role="status">
          {describeCount(read.data, noun)}
        </p>
      )}
      {read.data?.truncated && (
        <p class="note">
          Sorted among the first {formatCount(READ_LIMIT)} read ({apiOrder}); narrow the filter to count and sort them all.
        </p>
      )}
    </>
  );
}
