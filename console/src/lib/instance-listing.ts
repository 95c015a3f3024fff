/**
 * @module The instance list as the console shows it. The API pages instances in storage order (by
 * instance id) and has no count or sort, so the console reads the filtered set itself, 1,000 a page
 * (the API's largest), up to READ_LIMIT instances: that one walk gives the total, any order, and the
 * dry-run count of a bulk action. Past the limit the total is shown as "5,000+" and the order is the
 * order of what was read, which the page says.
 */
import type { ConsoleApi } from '../api/console-api';
import type { Instance, InstanceFilter, InstanceStatus } from '../../../src/client';
import type { InstanceSort } from './hash-route';

export const READ_LIMIT = 5000;
const READ_PAGE_SIZE = 1000;

export interface ReadInstances {
  items: Instance[];
  /** True when more instances match than were read. */
  truncated: boolean;
}

export async function readInstances(api: ConsoleApi, filter: InstanceFilter, limit = READ_LIMIT): Promise<ReadInstances> {
  const items: Instance[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await api.listInstances(filter, continuationToken, READ_PAGE_SIZE);
    items.push(...page.items);
    continuationToken = page.continuationToken;
  } while (continuationToken && items.length < limit);
  return { items: items.slice(0, limit), truncated: continuationToken !== undefined || items.length > limit };
}

/** Newest change first, as Temporal's and Operate's lists open. */
export const defaultInstanceSort: InstanceSort = { key: 'updatedAt', descending: true };

/** A stable sort (ties keep the API's order, by instance id). */
export function sortInstances(items: readonly Instance[], sort: InstanceSort): Instance[] {
  const direction = sort.descending ? -1 : 1;
  const valueOf = (instance: Instance): string => String(instance[sort.key] ?? '');
  return items
    .map((instance, index) => ({ instance, index }))
    .sort((a, b) => {
      const left = valueOf(a.instance);
      const right = valueOf(b.instance);
      return left < right ? -direction : left > right ? direction : a.index - b.index;
    })
    .map(({ instance }) => instance);
}

export type BulkActionName = 'cancel' | 'suspend' | 'resume' | 'recover' | 'delete';

/** Each bulk action with the statuses it changes (the engine answers `conflict` for the others). */
export const bulkActions: ReadonlyArray<{ action: BulkActionName; label: string; changes: (status: InstanceStatus, force: boolean) => boolean }> = [
  { action: 'cancel', label: 'Cancel', changes: (status) => status !== 'complete' && status !== 'cancelled' },
  { action: 'suspend', label: 'Suspend', changes: (status) => status === 'waiting' },
  { action: 'resume', label: 'Resume', changes: (status) => status === 'suspended' },
  { action: 'recover', label: 'Recover', changes: (status) => status === 'faulted' },
  { action: 'delete', label: 'Delete', changes: (status, force) => force || (status !== 'waiting' && status !== 'initializing') },
];

export const formatCount = (count: number): string => count.toLocaleString('en-US');
