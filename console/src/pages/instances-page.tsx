/**
 * @module Instances, filtered by workflow, state, status and subject, or by a filter expression over the
 * workflow's search fields (the filter bar), sorted by a column (filter and order live in the URL), with
 * their total, 50 a page, the count per state (each a link narrowing the list), and one action on all of
 * them (bulk, after a dry-run count). The filtered set is read whole up to a limit (lib/sorted-list.tsx
 * says why).
 */
import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { instanceStatuses, type InstanceFilter, type InstanceStatus } from '../../../src/client';
import { BulkActionForm } from '../components/bulk-action-form';
import { FilterBar, filterProblemOf, searchFieldsOf } from '../components/filter-bar';
import { StateCounts } from '../components/state-counts';
import { EmptyState } from '../components/empty-state';
import { Link, navigate } from '../components/link';
import { StatusBadge } from '../components/status-badge';
import { TimeText } from '../components/time-text';
import type { InstanceSort, InstanceSortKey } from '../lib/hash-route';
import { defaultInstanceSort, instanceSortValue, readInstances, readSearch } from '../lib/instance-listing';
import { ListPager, ListStatus, SortHeader, useSortedList } from '../lib/sorted-list';
import { useAsync } from '../lib/use-async';

const columns: Array<{ key: InstanceSortKey; label: string; descendingFirst?: boolean }> = [
  { key: 'id', label: 'Instance' },
  { key: 'workflowId', label: 'Workflow' },
  { key: 'stateId', label: 'State' },
  { key: 'status', label: 'Status' },
  { key: 'updatedAt', label: 'Updated', descendingFirst: true },
];

function FilterForm({ filter, sort }: { filter: InstanceFilter; sort: InstanceSort | undefined }) {
  const api = useApi();
  const [draft, setDraft] = useState<InstanceFilter>(filter);
  useEffect(() => setDraft(filter), [filter.workflowId, filter.stateId, filter.status, filter.subject, filter.parentId]);
  const workflows = useAsync(() => api.listWorkflows(), [api]);
  const definition = useAsync(async () => (draft.workflowId ? api.getWorkflow(draft.workflowId) : undefined), [api, draft.workflowId]);
  const set = (change: Partial<InstanceFilter>) => setDraft((previous) => ({ ...previous, ...change }));
  return (
    <form
      class="filters"
      aria-label="Filter instances"
      onSubmit={(event) => {
        event.preventDefault();
        navigate({ page: 'instances', filter: Object.fromEntries(Object.entries(draft).filter(([, value]) => value)) as InstanceFilter, ...(sort ? { sort } : {}) });
      }}
    >
      <div class="field">
        <label for="filter-workflow">Workflow</label>
        <select id="filter-workflow" value={draft.workflowId ?? ''} onChange={(event) => set({ workflowId: event.currentTarget.value || undefined, stateId: undefined })}>
          <option value="">Any workflow</option>
          {draft.workflowId && !workflows.data?.items.some((workflow) => workflow.id === draft.workflowId) && <option value={draft.workflowId}>{draft.workflowId}</option>}
          {workflows.data?.items.map((workflow) => (
            <option key={workflow.id} value={workflow.id}>
              {workflow.displayName ? `${workflow.displayName} (${workflow.id})` : workflow.id}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-state">State</label>
        <select id="filter-state" value={draft.stateId ?? ''} disabled={!draft.workflowId} onChange={(event) => set({ stateId: event.currentTarget.value || undefined })}>
          <option value="">{draft.workflowId ? 'Any state' : 'Choose a workflow first'}</option>
          {draft.stateId && !definition.data?.states[draft.stateId] && <option value={draft.stateId}>{draft.stateId}</option>}
          {Object.entries(definition.data?.states ?? {}).map(([stateId, state]) => (
            <option key={stateId} value={stateId}>
              {state.displayName ? `${state.displayName} (${stateId})` : stateId}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-status">Status</label>
        <select id="filter-status" value={draft.status ?? ''} onChange={(event) => set({ status: (event.currentTarget.value || undefined) as InstanceStatus | undefined })}>
          <option value="">Any status</option>
          {instanceStatuses.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-subject">Subject</label>
        <input id="filter-subject" type="text" value={draft.subject ?? ''} placeholder="e.g. claimant:ann" onInput={(event) => set({ subject: event.currentTarget.value || undefined })} />
      </div>
      {draft.parentId && (
        <div class="field">
          <span class="field-label" id="filter-parent-label">
            Parent
          </span>
          <span aria-labelledby="filter-parent-label">
            Children of <Link to={{ page: 'instance', instanceId: draft.parentId }}>{draft.parentId}</Link>{' '}
            <button type="button" class="secondary" onClick={() => set({ parentId: undefined })}>
              Any parent
            </button>
          </span>
        </div>
      )}
      <div class="field field-actions">
        <button type="submit">Apply filters</button>
        <button type="button" class="secondary" onClick={() => navigate({ page: 'instances', filter: {} })}>
          Clear
        </button>
      </div>
    </form>
  );
}

export function InstancesPage({ filter, sort: routeSort, search }: { filter: InstanceFilter; sort?: InstanceSort; search?: string }) {
  const api = useApi();
  const sort = routeSort ?? defaultInstanceSort;
  const filterKey = JSON.stringify(filter);
  const { workflowId } = filter;
  const searching = workflowId !== undefined && search !== undefined && search !== '';
  const list = useSortedList(() => (searching ? readSearch(api, workflowId, search) : readInstances(api, filter)), [api, filterKey, search], sort, instanceSortValue);
  const { read, shown, pageIndex, pageCount } = list;
  const definition = useAsync(async () => (workflowId ? api.getWorkflow(workflowId) : undefined), [api, workflowId]);
  const indexed = definition.data?.indexes !== undefined;
  // A refused filter is shown in the bar, at its position, rather than as the list's failure.
  const refused = searching && filterProblemOf(read.problem) !== undefined;
  const filtered = Object.values(filter).some(Boolean) || searching;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Instances
      </h1>
      <FilterForm filter={filter} sort={routeSort} />
      {workflowId && definition.data && !indexed && (
        <p class="note" data-testid="not-indexed">
          {workflowId} declares no <code>indexes</code>: its instances cannot be searched by a filter. Declare them (an empty list indexes the built-in fields), then reindex.
        </p>
      )}
      {workflowId && indexed && (
        <>
          <FilterBar
            fields={searchFieldsOf(definition.data)}
            value={search ?? ''}
            {...(searching && read.problem ? { problem: read.problem } : {})}
            onApply={(next) => navigate({ page: 'instances', filter: next ? { workflowId } : filter, ...(routeSort ? { sort: routeSort } : {}), ...(next ? { search: next } : {}) })}
          />
          {!refused && <StateCounts workflowId={workflowId} filter={filter} {...(searching ? { search } : {})} />}
        </>
      )}
      <ListStatus read={refused ? { ...read, problem: undefined } : read} noun={{ one: 'instance', many: 'instances' }} apiOrder="the API lists instances by id" testId="instance-count" />
      {read.data && read.data.items.length === 0 && (
        <EmptyState title={filtered ? 'No instance matches these filters' : 'No instances yet'}>
          {filtered ? (
            <p>Clear a filter to see more.</p>
          ) : (
            <p>
              Start one from a workflow's page, or with <code>POST /api/instances</code>.
            </p>
          )}
        </EmptyState>
      )}
      {shown && shown.length > 0 && (
        <table data-testid="instances" class="card-table">
          <caption class="visually-hidden">
            Instances, page {pageIndex + 1} of {pageCount}
          </caption>
          <thead>
            <tr>
              {columns.map((column) => (
                <SortHeader key={column.key} column={column} sort={sort} routeFor={(next) => ({ page: 'instances', filter, sort: next, ...(searching ? { search } : {}) })} />
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((instance) => (
              <tr key={instance.id}>
                <td data-label="Instance">
                  <Link to={{ page: 'instance', instanceId: instance.id }}>{instance.id}</Link>
                </td>
                <td data-label="Workflow">
                  <Link to={{ page: 'workflow', workflowId: instance.workflowId, version: instance.workflowVersion }}>
                    {instance.workflowId} v{instance.workflowVersion}
                  </Link>
                </td>
                <td data-label="State">{instance.stateId}</td>
                <td data-label="Status">
                  <StatusBadge status={instance.status} />
                </td>
                <td data-label="Updated">
                  <TimeText value={instance.updatedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ListPager list={list} label="Pages of instances" />
      {read.data && read.data.items.length > 0 && (
        <>
          <h2>Act on all of them</h2>
          {!filter.workflowId ? (
            <p class="note">Choose a workflow to act on every instance that matches.</p>
          ) : searching ? (
            <p class="note">A bulk action takes the workflow, state, status and subject filters, not a filter expression: clear the filter to act on every instance that matches.</p>
          ) : filter.parentId ? (
            <p class="note">A bulk action cannot be limited to one parent's children: clear the parent filter to act on every instance that matches.</p>
          ) : (
            <BulkActionForm filter={{ ...filter, workflowId: filter.workflowId }} />
          )}
        </>
      )}
    </section>
  );
}
