/**
 * @module The instance list as the console shows it: read whole up to READ_LIMIT and sorted in the
 * browser (lib/sorted-list.ts says why), and the bulk actions that act on it.
 */
import type { ConsoleApi } from '../api/console-api';
import type { Instance, InstanceFilter, InstanceStatus } from '../../../src/client';
import type { InstanceSort } from './hash-route';
import { readList, type ReadList } from './sorted-list';

export { formatCount, READ_LIMIT } from './sorted-list';

export type ReadInstances = ReadList<Instance>;

export function readInstances(api: ConsoleApi, filter: InstanceFilter, limit?: number): Promise<ReadInstances> {
  return readList((continuationToken, maxPageSize) => api.listInstances(filter, continuationToken, maxPageSize), limit);
}

/** The instances of a workflow a filter expression matches (README, "Finding instances"), read like the list. */
export function readSearch(api: ConsoleApi, workflowId: string, search: string, limit?: number): Promise<ReadInstances> {
  return readList((continuationToken, maxPageSize) => api.searchInstances(workflowId, search, continuationToken, maxPageSize), limit);
}

/** Newest change first, as Temporal's and Operate's lists open. */
export const defaultInstanceSort: InstanceSort = { key: 'updatedAt', descending: true };

/** An instance's value in a sort column (ties keep the API's order, by instance id). */
export const instanceSortValue = (instance: Instance, key: InstanceSort['key']): string => String(instance[key] ?? '');

export type BulkActionName = 'cancel' | 'suspend' | 'resume' | 'recover' | 'delete';

/** Each bulk action with the statuses it changes (the engine answers `conflict` for the others). */
export const bulkActions: ReadonlyArray<{ action: BulkActionName; label: string; changes: (status: InstanceStatus, force: boolean) => boolean }> = [
  { action: 'cancel', label: 'Cancel', changes: (status) => status !== 'complete' && status !== 'cancelled' },
  { action: 'suspend', label: 'Suspend', changes: (status) => status === 'waiting' },
  { action: 'resume', label: 'Resume', changes: (status) => status === 'suspended' },
  { action: 'recover', label: 'Recover', changes: (status) => status === 'faulted' },
  { action: 'delete', label: 'Delete', changes: (status, force) => force || (status !== 'waiting' && status !== 'initializing') },
];
