/**
 * @module The console's pages as hash routes (`#/workflows/expense-claim?version=2`): the server serves
 * one index.html, so deep links and the back button work without any server-side routing.
 */
import { instanceStatuses, operationKinds, operationStatuses, type InstanceFilter, type InstanceStatus, type OperationFilter } from '../../../src/client';

/** The instance list's order: a column, and which way (the URL writes `sort=-updatedAt` for descending). */
export const instanceSortKeys = ['id', 'workflowId', 'stateId', 'status', 'updatedAt', 'createdAt'] as const;
export type InstanceSortKey = (typeof instanceSortKeys)[number];
export interface InstanceSort {
  key: InstanceSortKey;
  descending: boolean;
}

export type ConsoleRoute =
  | { page: 'workflows' }
  | { page: 'workflow'; workflowId: string; version?: number }
  | { page: 'instances'; filter: InstanceFilter; sort?: InstanceSort }
  | { page: 'instance'; instanceId: string }
  | { page: 'operations'; filter: OperationFilter }
  | { page: 'operation'; operationId: string }
  | { page: 'notFound'; path: string };

export function parseHash(hash: string): ConsoleRoute {
  const url = new URL(hash.replace(/^#/, '') || '/', 'http://console.local');
  const parts = url.pathname.split('/').filter(Boolean).map((part) => {
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
    const sort = url.searchParams.get('sort');
    const sortKey = sort?.replace(/^-/, '');
    if (sort && (instanceSortKeys as readonly string[]).includes(sortKey!)) return { page: 'instances', filter, sort: { key: sortKey as InstanceSortKey, descending: sort.startsWith('-') } };
    return { page: 'instances', filter };
  }
  if (section === 'instances' && id) return { page: 'instance', instanceId: id };
  if (section === 'operations' && id) return { page: 'operation', operationId: id };
  if (section === 'operations') {
    const filter: OperationFilter = {};
    const kind = url.searchParams.get('kind');
    if (kind && (operationKinds as readonly string[]).includes(kind)) filter.kind = kind as OperationFilter['kind'];
    const status = url.searchParams.get('status');
    if (status && (operationStatuses as readonly string[]).includes(status)) filter.status = status as OperationFilter['status'];
    const workflowId = url.searchParams.get('workflowId');
    if (workflowId) filter.workflowId = workflowId;
    return { page: 'operations', filter };
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
    case 'instances': {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(route.filter)) if (value) params.set(key, value);
      if (route.sort) params.set('sort', `${route.sort.descending ? '-' : ''}${route.sort.key}`);
      const text = params.toString();
      return `#/instances${text ? `?${text}` : ''}`;
    }
    case 'instance':
      return `#/instances/${e(route.instanceId)}`;
    case 'operations': {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(route.filter)) if (value) params.set(key, value);
      const text = params.toString();
      return `#/operations${text ? `?${text}` : ''}`;
    }
    case 'operation':
      return `#/operations/${e(route.operationId)}`;
    case 'notFound':
      return `#${route.path}`;
  }
}
