/** Instance counts per state and status, from paging through the instance list. */
import type { ConsoleApi } from '../../console/src/api/console-api';
import type { Instance, InstanceStatus } from '../../src/client';
import { countInstancesByState, countOf, describeCounts } from '../../console/src/lib/state-counts';

function instance(id: string, stateId: string, status: InstanceStatus, workflowVersion = 2): Instance {
  return { id, workflowId: 'w', workflowVersion, stateId, status, context: {}, interests: [], timers: [], createdAt: '', updatedAt: '', etag: '"1"' };
}

/** A list route over these instances, `pageSize` at a time, with numeric continuation tokens. */
function pagedApi(instances: Instance[]): { api: ConsoleApi; calls: Array<{ token?: string; size?: number }> } {
  const calls: Array<{ token?: string; size?: number }> = [];
  const api = {
    async listInstances(_filter: unknown, token?: string, size = 2) {
      calls.push({ token, size });
      const start = Number(token ?? 0);
      const items = instances.slice(start, start + size);
      return { items, ...(start + size < instances.length ? { continuationToken: String(start + size) } : {}) };
    },
  } as unknown as ConsoleApi;
  return { api, calls };
}

const instances = [instance('a', 'open', 'waiting'), instance('b', 'open', 'waiting'), instance('c', 'open', 'faulted'), instance('d', 'closed', 'complete'), instance('e', 'open', 'waiting', 1)];

it('counts every page by state and status, for the version asked only', async () => {
  const { api, calls } = pagedApi(instances);
  const counts = await countInstancesByState(api, 'w', 2, { pageSize: 2 });
  expect(counts).toEqual({ byState: { open: { waiting: 2, faulted: 1 }, closed: { complete: 1 } }, total: 4, truncated: false });
  expect(calls).toEqual([
    { token: undefined, size: 2 },
    { token: '2', size: 2 },
    { token: '4', size: 2 },
  ]);
});

it('stops at the limit and says the count is partial', async () => {
  const { api, calls } = pagedApi(instances);
  const counts = await countInstancesByState(api, 'w', 2, { pageSize: 2, limit: 3 });
  expect(calls).toHaveLength(2);
  expect(counts.truncated).toBe(true);
  expect(counts.total).toBe(4);
});

it('describes counts in a fixed order and sums them', () => {
  expect(describeCounts({ faulted: 1, waiting: 3, cancelled: 0 })).toBe('3 waiting · 1 faulted');
  expect(describeCounts(undefined)).toBe('');
  expect(countOf({ faulted: 1, waiting: 3 })).toBe(4);
});
