/**
 * @module The console's pages as hash routes (`#/workflows/expense-claim?version=2`): the server serves
 * one index.html, so deep links and the back button work without any server-side routing.
 */
import { instanceStatuses, operationKinds, operationOutcomes, operationStatuses, type InstanceFilter, type InstanceStatus, type OperationFilter } from '../../../src/client';

/** The instance list's order: a column, and which way (the URL writes `sort=-updatedAt` for descending). */
export const instanceSortKeys = ['id', 'workflowId', 'stateId', 'status', 'updatedAt', 'createdAt'] as const;
export type InstanceSortKey = (typeof instanceSortKeys)[number];
export interface InstanceSort {
  key: InstanceSortKey;
  descending: boolean;
}

/** The operation list's order, written the same way (`sort=-createdAt`). */
export const operationSortKeys = ['id', 'kind', 'status', 'candidates', 'createdAt'] as const;
export type OperationSortKey = (typeof operationSortKeys)[number];
export interface OperationSort {
  key: OperationSortKey;
  descending: boolean;
}

/** `sort=-key` as a sort when the key is one of `keys`, else undefined. */
function parseSort<Key extends string>(searchParams: URLSearchParams, keys: readonly Key[]): { key: Key; descending: boolean } | undefined {
  const sort = searchParams.get('sort');
  const key = sort?.replace(/^-/, '');
  return sort && (keys as readonly string[]).includes(key!) ? { key: key as Key, descending: sort.startsWith('-') } : undefined;
}

function formatQuery(filter: object, sort: { key: string; descending: boolean } | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) if (value) params.set(key, String(value));
  if (sort) params.set('sort', `${sort.descending ? '-' : ''}${sort.key}`);
  const text = params.toString();
  return text ? `?${text}` : '';
}

export type ConsoleRoute =
  | { page: 'workflows' }
  | { page: 'workflow'; workflowId: string; version?: number }
  | { page: 'instances'; filter: InstanceFilter; sort?: InstanceSort; search?: string }
  | { page: 'instance'; instanceId: string }
  | { page: 'operations'; filter: OperationFilter; sort?: OperationSort }
  | { page: 'operation'; operationId: string }
  | { page: 'tenants' }
  | { page: 'notFound'; path: string };

export function parseHash(hash: string): ConsoleRoute {
  const url = new URL(hash.replace(/^#/, '') || '/', 'http://console.local');
  const parts = url.pathname
    .split('/')
    .filter(Boolean)
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
  const [section, id, ...rest] = parts;
  if (rest.length) return { page: 'notFound', path: url.pathname };
  if (!section || (section === 'workflows' && !id)) return { page: 'workflows' };
  if (section === 'workflows' && id) {
    const version = Number(url.searchParams.get('version'));
    return Number.isInteger(version) && version > 0 ? { page: 'workflow', workflowId: id, version } : { page: 'workflow', workflowId: id };
  }
  if (section === 'instances' && !id) {
    const filter: InstanceFilter = {};
    for (const key of ['workflowId', 'stateId', 'subject', 'parentId'] as const) {
      const value = url.searchParams.get(key);
      if (value) filter[key] = value;
    }
    const status = url.searchParams.get('status');
    if (status && (instanceStatuses as readonly string[]).includes(status)) filter.status = status as InstanceStatus;
    const sort = parseSort(url.searchParams, instanceSortKeys);
    // A filter expression (README, "Finding instances") searches one workflow's instances.
    const search = filter.workflowId ? url.searchParams.get('filter')?.trim() : undefined;
    return { page: 'instances', filter, ...(sort ? { sort } : {}), ...(search ? { search } : {}) };
  }
  if (section === 'instances' && id) return { page: 'instance', instanceId: id };
  if (section === 'tenants' && !id) return { page: 'tenants' };
  if (section === 'operations' && id) return { page: 'operation', operationId: id };
  if (section === 'operations') {
    const filter: OperationFilter = {};
    const kind = url.searchParams.get('kind');
    if (kind && (operationKinds as readonly string[]).includes(kind)) filter.kind = kind as OperationFilter['kind'];
    const status = url.searchParams.get('status');
    if (status && (operationStatuses as readonly string[]).includes(status)) filter.status = status as OperationFilter['status'];
    const outcome = url.searchParams.get('outcome');
    if (outcome && (operationOutcomes as readonly string[]).includes(outcome)) filter.outcome = outcome as OperationFilter['outcome'];
    const workflowId = url.searchParams.get('workflowId');
    if (workflowId) filter.workflowId = workflowId;
    const sort = parseSort(url.searchParams, operationSortKeys);
    return sort ? { page: 'operations', filter, sort } : { page: 'operations', filter };
  }
  return { page: 'notFound', path: url.pathname };
}

export function formatHash(route: ConsoleRoute): string {
  const e = encodeURIComponent;
  switch (route.page) {
    case 'workflows':
      return '#/workflows';
    case 'workflow':
      return `#/workflows/${e(route.workflowId)}${route.version ? `?version=${route.version}` : ''}`;
    case 'instances':
      return `#/instances${formatQuery({ ...route.filter, ...(route.search ? { filter: route.search } : {}) }, route.sort)}`;
    case 'instance':
      return `#/instances/${e(route.instanceId)}`;
    case 'operations':
      return `#/operations${formatQuery(route.filter, route.sort)}`;
    case 'operation':
      return `#/operations/${e(route.operationId)}`;
    case 'tenants':
      return '#/tenants';
    case 'notFound':
      return `#${route.path}`;
  }
}
