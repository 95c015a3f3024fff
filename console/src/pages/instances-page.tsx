/**
 * @module Instances, filtered by workflow, state, status and subject (the filter lives in the URL), a
 * page at a time with the API's continuation tokens.
 */
import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { firstWaveStatuses } from '../api/capabilities';
import type { InstanceFilter, InstanceStatus } from '../api/types';
import { EmptyState } from '../components/empty-state';
import { Link, navigate } from '../components/link';
import { ProblemAlert } from '../components/problem-alert';
import { StatusBadge } from '../components/status-badge';
import { TimeText } from '../components/time-text';
import { useAsync } from '../lib/use-async';

const PAGE_SIZE = 50;

function FilterForm({ filter }: { filter: InstanceFilter }) {
  const api = useApi();
  const [draft, setDraft] = useState<InstanceFilter>(filter);
  useEffect(() => setDraft(filter), [filter.workflowId, filter.stateId, filter.status, filter.subject, filter.parentId]);
  const workflows = useAsync(() => api.listWorkflows(), [api]);
  const capabilities = useAsync(() => api.capabilities(), [api]);
  const definition = useAsync(async () => (draft.workflowId ? api.getWorkflow(draft.workflowId) : undefined), [api, draft.workflowId]);
  const set = (change: Partial<InstanceFilter>) => setDraft((previous) => ({ ...previous, ...change }));
  return (
    <form
      class="filters"
      aria-label="Filter instances"
      onSubmit={(event) => {
        event.preventDefault();
        navigate({ page: 'instances', filter: Object.fromEntries(Object.entries(draft).filter(([, value]) => value)) as InstanceFilter });
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
          {(capabilities.data?.statuses ?? firstWaveStatuses).map((status) => (
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

export function InstancesPage({ filter }: { filter: InstanceFilter }) {
  const api = useApi();
  // Tokens of the pages before this one, so "Previous" can go back; reset when the filter changes.
  const [tokens, setTokens] = useState<Array<string | undefined>>([undefined]);
  const filterKey = JSON.stringify(filter);
  useEffect(() => setTokens([undefined]), [filterKey]);
  const token = tokens[tokens.length - 1];
  const page = useAsync(() => api.listInstances(filter, token, PAGE_SIZE), [api, filterKey, token]);
  const filtered = Object.values(filter).some(Boolean);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Instances
      </h1>
      <FilterForm filter={filter} />
      {page.problem && <ProblemAlert problem={page.problem} context="Listing instances failed" />}
      {page.loading && !page.data && <p aria-live="polite">Loading instances…</p>}
      {page.data && page.data.items.length === 0 && (
        <EmptyState title={filtered ? 'No instance matches these filters' : 'No instances yet'}>
          {filtered ? <p>Clear a filter to see more.</p> : <p>Start one with <code>POST /api/instances</code>.</p>}
        </EmptyState>
      )}
      {page.data && page.data.items.length > 0 && (
        <table data-testid="instances">
          <caption class="visually-hidden">Instances, page {tokens.length}</caption>
          <thead>
            <tr>
              <th scope="col">Instance</th>
              <th scope="col">Workflow</th>
              <th scope="col">State</th>
              <th scope="col">Status</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {page.data.items.map((instance) => (
              <tr key={instance.id}>
                <td>
                  <Link to={{ page: 'instance', instanceId: instance.id }}>{instance.id}</Link>
                </td>
                <td>
                  <Link to={{ page: 'workflow', workflowId: instance.workflowId, version: instance.workflowVersion }}>
                    {instance.workflowId} v{instance.workflowVersion}
                  </Link>
                </td>
                <td>{instance.stateId}</td>
                <td>
                  <StatusBadge status={instance.status} />
                </td>
                <td>
                  <TimeText value={instance.updatedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="Pages of instances">
        <button type="button" class="secondary" disabled={tokens.length <= 1} onClick={() => setTokens((previous) => previous.slice(0, -1))}>
          Previous page
        </button>
        <span>Page {tokens.length}</span>
        <button
          type="button"
          class="secondary"
          disabled={!page.data?.continuationToken}
          onClick={() => setTokens((previous) => [...previous, page.data!.continuationToken])}
        >
          Next page
        </button>
      </nav>
    </section>
  );
}
