/**
 * @module Instances, filtered by workflow, state, status and subject, sorted by a column (filter and
 * order live in the URL), with their total, 50 a page, and one action on all of them (bulk, after a
 * dry-run count). The filtered set is read whole up to a limit (lib/instance-listing.ts says why).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { instanceStatuses, type InstanceFilter, type InstanceStatus } from '../../../src/client';
import { BulkActionForm } from '../components/bulk-action-form';
import { EmptyState } from '../components/empty-state';
import { Link, navigate } from '../components/link';
import { ProblemAlert } from '../components/problem-alert';
import { StatusBadge } from '../components/status-badge';
import { TimeText } from '../components/time-text';
import type { InstanceSort, InstanceSortKey } from '../lib/hash-route';
import { defaultInstanceSort, formatCount, READ_LIMIT, readInstances, sortInstances } from '../lib/instance-listing';
import { useAsync } from '../lib/use-async';

const PAGE_SIZE = 50;

const columns: Array<{ key: InstanceSortKey; label: string }> = [
  { key: 'id', label: 'Instance' },
  { key: 'workflowId', label: 'Workflow' },
  { key: 'stateId', label: 'State' },
  { key: 'status', label: 'Status' },
  { key: 'updatedAt', label: 'Updated' },
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

/** A column header that sorts by its column: ascending first, the other way on a second click (dates newest first). */
function SortHeader({ column, sort, filter }: { column: (typeof columns)[number]; sort: InstanceSort; filter: InstanceFilter }) {
  const active = sort.key === column.key;
  const next: InstanceSort = active ? { key: column.key, descending: !sort.descending } : { key: column.key, descending: column.key === 'updatedAt' };
  return (
    <th scope="col" aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : undefined}>
      <button type="button" class="sort-button" onClick={() => navigate({ page: 'instances', filter, sort: next })}>
        <span class="visually-hidden">Sort by </span>
        {column.label}
        <span aria-hidden="true" class="sort-mark">
          {active ? (sort.descending ? ' ▼' : ' ▲') : ''}
        </span>
      </button>
    </th>
  );
}

export function InstancesPage({ filter, sort: routeSort }: { filter: InstanceFilter; sort?: InstanceSort }) {
  const api = useApi();
  const sort = routeSort ?? defaultInstanceSort;
  const filterKey = JSON.stringify(filter);
  const read = useAsync(() => readInstances(api, filter), [api, filterKey]);
  const sorted = useMemo(() => (read.data ? sortInstances(read.data.items, sort) : undefined), [read.data, sort.key, sort.descending]);
  const [pageIndex, setPageIndex] = useState(0);
  useEffect(() => setPageIndex(0), [filterKey, sort.key, sort.descending]);
  const pageCount = Math.max(1, Math.ceil((sorted?.length ?? 0) / PAGE_SIZE));
  const shown = sorted?.slice(pageIndex * PAGE_SIZE, (pageIndex + 1) * PAGE_SIZE);
  const filtered = Object.values(filter).some(Boolean);
  const total = read.data?.items.length ?? 0;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Instances
      </h1>
      <FilterForm filter={filter} sort={routeSort} />
      {read.problem && <ProblemAlert problem={read.problem} context="Listing instances failed" />}
      {read.loading && !read.data && <p aria-live="polite">Loading instances…</p>}
      {read.data && (
        <p class="count" data-testid="instance-count" role="status">
          {read.data.truncated ? `${formatCount(total)}+ instances match` : `${formatCount(total)} ${total === 1 ? 'instance matches' : 'instances match'}`}
        </p>
      )}
      {read.data?.truncated && (
        <p class="note">
          Sorted among the first {formatCount(READ_LIMIT)} read (the API lists instances by id); narrow the filter to count and sort them all.
        </p>
      )}
      {read.data && read.data.items.length === 0 && (
        <EmptyState title={filtered ? 'No instance matches these filters' : 'No instances yet'}>
          {filtered ? <p>Clear a filter to see more.</p> : <p>Start one from a workflow's page, or with <code>POST /api/instances</code>.</p>}
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
                <SortHeader key={column.key} column={column} sort={sort} filter={filter} />
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
      {pageCount > 1 && (
        <nav class="pager" aria-label="Pages of instances">
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
      )}
      {read.data && read.data.items.length > 0 && (
        <>
          <h2>Act on all of them</h2>
          {!filter.workflowId ? (
            <p class="note">Choose a workflow to act on every instance that matches.</p>
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
