/**
 * @module Operations: triggers sent, migrations and bulk actions, each with what it was and how it ended,
 * filtered by kind, status, outcome and workflow and sorted by a column (newest first unless the URL says
 * otherwise), with their total, 50 a page. The filtered set is read whole up to a limit
 * (lib/sorted-list.tsx says why).
 */
import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { operationKinds, operationOutcomes, operationStatuses, type ListedOperation, type OperationFilter } from '../../../src/client';
import { EmptyState } from '../components/empty-state';
import { Link, navigate } from '../components/link';
import { describeOperation } from '../components/operation-view';
import { OperationStatusBadge } from '../components/status-badge';
import { TimeText } from '../components/time-text';
import type { OperationSort, OperationSortKey } from '../lib/hash-route';
import { ListPager, ListStatus, readList, SortHeader, useSortedList } from '../lib/sorted-list';
import { useAsync } from '../lib/use-async';

/** Newest first, as the API lists them. */
const defaultOperationSort: OperationSort = { key: 'createdAt', descending: true };

/** The columns in order; Outcomes (several counts) does not sort. */
const columns: Array<{ key: OperationSortKey; label: string; descendingFirst?: boolean } | { key?: undefined; label: string }> = [
  { key: 'id', label: 'Operation' },
  { key: 'kind', label: 'What' },
  { key: 'status', label: 'Status' },
  { key: 'candidates', label: 'Instances' },
  { label: 'Outcomes' },
  { key: 'createdAt', label: 'Created', descendingFirst: true },
];

/** What a column sorts by: What sorts by the description shown, Instances as a number. */
function operationSortValue(operation: ListedOperation, key: OperationSortKey): string | number {
  if (key === 'kind') return describeOperation(operation);
  if (key === 'candidates') return operation.candidates ?? 0;
  return operation[key];
}

/** How a finished operation ended, in words. */
const outcomeLabel: Record<(typeof operationOutcomes)[number], string> = { succeeded: 'succeeded', completedWithFaults: 'completed with faults', failed: 'failed' };

function outcomes(operation: ListedOperation): string {
  const counted = Object.entries(operation.summary ?? {}).filter(([, count]) => count > 0);
  return counted.length ? counted.map(([outcome, count]) => `${outcome} ${count}`).join(', ') : '–';
}

function FilterForm({ filter, sort }: { filter: OperationFilter; sort: OperationSort | undefined }) {
  const api = useApi();
  const [draft, setDraft] = useState<OperationFilter>(filter);
  useEffect(() => setDraft(filter), [filter.kind, filter.status, filter.outcome, filter.workflowId]);
  const workflows = useAsync(() => api.listWorkflows(), [api]);
  const set = (change: Partial<OperationFilter>) => setDraft((previous) => ({ ...previous, ...change }));
  return (
    <form
      class="filters"
      aria-label="Filter operations"
      onSubmit={(event) => {
        event.preventDefault();
        navigate({ page: 'operations', filter: Object.fromEntries(Object.entries(draft).filter(([, value]) => value)) as OperationFilter, ...(sort ? { sort } : {}) });
      }}
    >
      <div class="field">
        <label for="filter-kind">Kind</label>
        <select id="filter-kind" value={draft.kind ?? ''} onChange={(event) => set({ kind: (event.currentTarget.value || undefined) as OperationFilter['kind'] })}>
          <option value="">Any kind</option>
          {operationKinds.map((kind) => (
            <option key={kind} value={kind}>
              {kind}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-status">Status</label>
        <select id="filter-status" value={draft.status ?? ''} onChange={(event) => set({ status: (event.currentTarget.value || undefined) as OperationFilter['status'] })}>
          <option value="">Any status</option>
          {operationStatuses.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-outcome">Outcome</label>
        <select id="filter-outcome" value={draft.outcome ?? ''} onChange={(event) => set({ outcome: (event.currentTarget.value || undefined) as OperationFilter['outcome'] })}>
          <option value="">Any outcome</option>
          {operationOutcomes.map((outcome) => (
            <option key={outcome} value={outcome}>
              {outcomeLabel[outcome]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-workflow">Workflow</label>
        <select id="filter-workflow" aria-describedby="filter-workflow-note" value={draft.workflowId ?? ''} onChange={(event) => set({ workflowId: event.currentTarget.value || undefined })}>
          <option value="">Any workflow</option>
          {draft.workflowId && !workflows.data?.items.some((workflow) => workflow.id === draft.workflowId) && <option value={draft.workflowId}>{draft.workflowId}</option>}
          {workflows.data?.items.map((workflow) => (
            <option key={workflow.id} value={workflow.id}>
              {workflow.displayName ? `${workflow.displayName} (${workflow.id})` : workflow.id}
            </option>
          ))}
        </select>
        <span class="note" id="filter-workflow-note">
          Migrations and bulk actions of it
        </span>
      </div>
      <div class="field field-actions">
        <button type="submit">Apply filters</button>
        <button type="button" class="secondary" onClick={() => navigate({ page: 'operations', filter: {} })}>
          Clear
        </button>
      </div>
    </form>
  );
}

export function OperationsPage({ filter, sort: routeSort }: { filter: OperationFilter; sort?: OperationSort }) {
  const api = useApi();
  const sort = routeSort ?? defaultOperationSort;
  const filterKey = JSON.stringify(filter);
  const list = useSortedList(() => readList((token, size) => api.listOperations(filter, token, size)), [api, filterKey], sort, operationSortValue);
  const { read, shown, pageIndex, pageCount } = list;
  const filtered = Object.values(filter).some(Boolean);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Operations
      </h1>
      <p class="muted">Triggers sent, migrations and bulk actions.</p>
      <FilterForm filter={filter} sort={routeSort} />
      <ListStatus read={read} noun={{ one: 'operation', many: 'operations' }} apiOrder="the API lists operations newest first" testId="operation-count" />
      {read.data && read.data.items.length === 0 && (
        <EmptyState title={filtered ? 'No operation matches these filters' : 'No operations yet'}>
          {filtered ? (
            <p>Clear a filter to see more.</p>
          ) : (
            <p>
              Send a trigger with <code>POST /api/triggers</code>.
            </p>
          )}
        </EmptyState>
      )}
      {shown && shown.length > 0 && (
        <div class="table-scroll">
          <table data-testid="operations">
            <caption class="visually-hidden">
              Operations, page {pageIndex + 1} of {pageCount}
            </caption>
            <thead>
              <tr>
                {columns.map((column) =>
                  column.key ? (
                    <SortHeader key={column.key} column={{ ...column, key: column.key }} sort={sort} routeFor={(next) => ({ page: 'operations', filter, sort: next })} />
                  ) : (
                    <th key={column.label} scope="col">
                      {column.label}
                    </th>
                  ),
                )}
              </tr>
            </thead>
            <tbody>
              {shown.map((operation) => (
                <tr key={operation.id}>
                  <td>
                    <Link to={{ page: 'operation', operationId: operation.id }}>{operation.id}</Link>
                  </td>
                  <td>{describeOperation(operation)}</td>
                  <td>
                    <OperationStatusBadge operation={operation} />
                  </td>
                  <td>{operation.candidates ?? 0}</td>
                  <td>{outcomes(operation)}</td>
                  <td>
                    <TimeText value={operation.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ListPager list={list} label="Pages of operations" />
    </section>
  );
}
