/**
 * @module Operations, newest first: triggers sent, migrations and bulk actions, each with what it was and
 * how it ended, filtered by kind, status and workflow (the filter lives in the URL), a page at a time
 * with the API's continuation tokens.
 */
import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { operationKinds, operationStatuses, type ListedOperation, type OperationFilter } from '../../../src/client';
import { EmptyState } from '../components/empty-state';
import { Link, navigate } from '../components/link';
import { describeOperation } from '../components/operation-view';
import { ProblemAlert } from '../components/problem-alert';
import { StatusBadge } from '../components/status-badge';
import { TimeText } from '../components/time-text';
import { useAsync } from '../lib/use-async';

const PAGE_SIZE = 50;

function outcomes(operation: ListedOperation): string {
  const counted = Object.entries(operation.summary ?? {}).filter(([, count]) => count > 0);
  return counted.length ? counted.map(([outcome, count]) => `${outcome} ${count}`).join(', ') : '–';
}

function FilterForm({ filter }: { filter: OperationFilter }) {
  const api = useApi();
  const [draft, setDraft] = useState<OperationFilter>(filter);
  useEffect(() => setDraft(filter), [filter.kind, filter.status, filter.workflowId]);
  const workflows = useAsync(() => api.listWorkflows(), [api]);
  const set = (change: Partial<OperationFilter>) => setDraft((previous) => ({ ...previous, ...change }));
  return (
    <form
      class="filters"
      aria-label="Filter operations"
      onSubmit={(event) => {
        event.preventDefault();
        navigate({ page: 'operations', filter: Object.fromEntries(Object.entries(draft).filter(([, value]) => value)) as OperationFilter });
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

export function OperationsPage({ filter }: { filter: OperationFilter }) {
  const api = useApi();
  // Tokens of the pages before this one, so "Previous" can go back; reset when the filter changes.
  const [tokens, setTokens] = useState<Array<string | undefined>>([undefined]);
  const filterKey = JSON.stringify(filter);
  useEffect(() => setTokens([undefined]), [filterKey]);
  const token = tokens[tokens.length - 1];
  const page = useAsync(() => api.listOperations(filter, token, PAGE_SIZE), [api, filterKey, token]);
  const filtered = Object.values(filter).some(Boolean);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Operations
      </h1>
      <p class="muted">Triggers sent, migrations and bulk actions, newest first.</p>
      <FilterForm filter={filter} />
      {page.problem && <ProblemAlert problem={page.problem} context="Listing operations failed" />}
      {page.loading && !page.data && <p aria-live="polite">Loading operations…</p>}
      {page.data && page.data.items.length === 0 && (
        <EmptyState title={filtered ? 'No operation matches these filters' : 'No operations yet'}>
          {filtered ? <p>Clear a filter to see more.</p> : <p>Send a trigger with <code>POST /api/triggers</code>.</p>}
        </EmptyState>
      )}
      {page.data && page.data.items.length > 0 && (
        <div class="table-scroll">
          <table data-testid="operations">
            <caption class="visually-hidden">Operations, newest first, page {tokens.length}</caption>
            <thead>
              <tr>
                <th scope="col">Operation</th>
                <th scope="col">What</th>
                <th scope="col">Status</th>
                <th scope="col">Instances</th>
                <th scope="col">Outcomes</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {page.data.items.map((operation) => (
                <tr key={operation.id}>
                  <td>
                    <Link to={{ page: 'operation', operationId: operation.id }}>{operation.id}</Link>
                  </td>
                  <td>{describeOperation(operation)}</td>
                  <td>
                    <StatusBadge status={operation.status} />
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
      <nav class="pager" aria-label="Pages of operations">
        <button type="button" class="secondary" disabled={tokens.length <= 1} onClick={() => setTokens((previous) => previous.slice(0, -1))}>
          Previous page
        </button>
        <span>Page {tokens.length}</span>
        <button type="button" class="secondary" disabled={!page.data?.continuationToken} onClick={() => setTokens((previous) => [...previous, page.data!.continuationToken])}>
          Next page
        </button>
      </nav>
    </section>
  );
}
