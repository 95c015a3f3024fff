/**
 * @module How many of the listed instances are in each state (GET /api/instance-counts, grouped by
 * `stateId`, counted from the search index), each count a link narrowing the list to that state.
 */
import type { InstanceFilter } from '../../../src/client';
import { useApi } from '../api-context';
import { formatCount } from '../lib/sorted-list';
import { useAsync } from '../lib/use-async';
import { Link } from './link';

const quoted = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** The list's select filters as a filter expression (a subject is no search field: undefined). */
export function expressionOf(filter: InstanceFilter): string | undefined {
  if (filter.subject) return undefined;
  const conditions = [
    ...(filter.stateId ? [`stateId = ${quoted(filter.stateId)}`] : []),
    ...(filter.status ? [`status = ${quoted(filter.status)}`] : []),
    ...(filter.parentId ? [`parentId = ${quoted(filter.parentId)}`] : []),
  ];
  return conditions.join(' and ');
}

export function StateCounts({ workflowId, filter, search }: { workflowId: string; filter: InstanceFilter; search?: string }) {
  const api = useApi();
  const expression = search ?? expressionOf(filter);
  const counts = useAsync(
    async () => (expression === undefined ? undefined : api.countInstances({ workflowId, groupBy: 'stateId', ...(expression ? { filter: expression } : {}) })),
    [api, workflowId, expression],
  );
  if (expression === undefined || !counts.data?.groups) return null;
  return (
    <nav class="state-counts" aria-label="Instances per state" data-testid="state-counts">
      <span class="field-label">Per state</span>
      <ul>
        {counts.data.groups.map((group) => {
          const stateId = String(group.key);
          const to = search
            ? { page: 'instances' as const, filter: { workflowId }, search: `(${search}) and stateId = ${quoted(stateId)}` }
            : { page: 'instances' as const, filter: { ...filter, workflowId, stateId } };
          return (
            <li key={stateId}>
              <Link to={to}>
                {stateId} <span class="state-count">{formatCount(group.count)}</span>
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
