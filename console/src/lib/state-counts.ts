/**
 * @module Instance counts per state and status for one workflow version, read by paging through
 * `GET /api/instances?workflowId=` (the API has no count route): one walk answers every state at once.
 */
import type { ConsoleApi } from '../api/console-api';
import type { InstanceStatus } from '../../../src/client';

export type StatusCounts = Partial<Record<InstanceStatus, number>>;

export interface StateCounts {
  byState: Record<string, StatusCounts>;
  /** Instances of this version that were counted. */
  total: number;
  /** True when the walk stopped at `limit` and more instances exist. */
  truncated: boolean;
}

export interface CountOptions {
  /** @default 20000 */
  limit?: number;
  /** @default 1000 (the API's largest page) */
  pageSize?: number;
}

export async function countInstancesByState(api: ConsoleApi, workflowId: string, version: number, options: CountOptions = {}): Promise<StateCounts> {
  const limit = options.limit ?? 20000;
  const pageSize = options.pageSize ?? 1000;
  const byState: Record<string, StatusCounts> = {};
  let total = 0;
  let seen = 0;
  let continuationToken: string | undefined;
  do {
    const page = await api.listInstances({ workflowId }, continuationToken, pageSize);
    for (const instance of page.items) {
      seen += 1;
      if (instance.workflowVersion !== version) continue;
      const counts = (byState[instance.stateId] ??= {});
      counts[instance.status] = (counts[instance.status] ?? 0) + 1;
      total += 1;
    }
    continuationToken = page.continuationToken;
  } while (continuationToken && seen < limit);
  return { byState, total, truncated: continuationToken !== undefined };
}

/** "3 waiting · 1 faulted", statuses in a fixed order so the label does not jump between refreshes. */
export function describeCounts(counts: StatusCounts | undefined): string {
  const order: InstanceStatus[] = ['waiting', 'initializing', 'suspended', 'faulted', 'complete', 'cancelled'];
  return order
    .filter((status) => (counts?.[status] ?? 0) > 0)
    .map((status) => `${counts![status]} ${status}`)
    .join(' · ');
}

export function countOf(counts: StatusCounts | undefined): number {
  return Object.values(counts ?? {}).reduce((sum, value) => sum + (value ?? 0), 0);
}
