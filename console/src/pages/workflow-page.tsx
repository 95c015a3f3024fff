/**
 * @module One workflow version: its diagram (from the API's diagram route) with the number of instances
 * in each state drawn on it, a table of the same counts per status, why the instances that are not final
 * are not moving (counted per reason, linked to the list), one concurrency key's running and queued
 * triggers and limit (when the version has a concurrency policy), a version switch, the definition
 * itself as JSON, what its operations cost the last 30 days, and a form that starts an instance.
 */
import { useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { instanceStatuses } from '../../../src/client';
import { EmptyState } from '../components/empty-state';
import { FlowKeyView, flowKeyExpressions } from '../components/flow-key-view';
import { Link, navigate } from '../components/link';
import { ProblemAlert } from '../components/problem-alert';
import { StartInstanceForm } from '../components/start-instance-form';
import { StateDiagram } from '../components/state-diagram';
import { WaitingCounts } from '../components/waiting-counts';
import { WorkflowCostView } from '../components/cost-view';
import { annotateDiagram } from '../lib/annotate-diagram';
import { countInstancesByState, countOf } from '../lib/state-counts';
import { useAsync } from '../lib/use-async';

export function WorkflowPage({ workflowId, version }: { workflowId: string; version?: number }) {
  const api = useApi();
  const latest = useAsync(() => api.getWorkflow(workflowId), [api, workflowId]);
  const shownVersion = version ?? latest.data?.version;
  const workflow = useAsync(async () => (shownVersion === undefined ? undefined : api.getWorkflow(workflowId, shownVersion)), [api, workflowId, shownVersion]);
  const counts = useAsync(async () => (shownVersion === undefined ? undefined : countInstancesByState(api, workflowId, shownVersion)), [api, workflowId, shownVersion]);
  const statuses = instanceStatuses;
  const [refreshes, setRefreshes] = useState(0);
  const diagram = useAsync(async () => (shownVersion === undefined ? undefined : api.getDiagram(workflowId, { version: shownVersion })), [api, workflowId, shownVersion]);

  const definition = workflow.data;
  const title = definition?.displayName ?? workflowId;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        {title} <span class="muted">({workflowId})</span>
      </h1>
      {latest.problem && <ProblemAlert problem={latest.problem} context="Reading the workflow failed" />}
      {latest.data && (
        <div class="toolbar">
          <label for="version-select">Version</label>
          <select id="version-select" value={String(shownVersion)} onChange={(event) => navigate({ page: 'workflow', workflowId, version: Number(event.currentTarget.value) })}>
            {Array.from({ length: latest.data.version }, (_, index) => latest.data!.version - index).map((candidate) => (
              <option key={candidate} value={String(candidate)}>
                v{candidate}
                {candidate === latest.data!.version ? ' (latest)' : ''}
              </option>
            ))}
          </select>
          <button type="button" class="secondary" onClick={() => (counts.reload(), diagram.reload(), setRefreshes((value) => value + 1))}>
            Refresh counts
          </button>
          <Link to={{ page: 'instances', filter: { workflowId } }}>All instances of {workflowId}</Link>
        </div>
      )}
      {definition?.description && <p>{definition.description}</p>}
      {workflow.problem && <ProblemAlert problem={workflow.problem} context={`Reading version ${shownVersion} failed`} />}
      {diagram.problem && <ProblemAlert problem={diagram.problem} context="Reading the diagram failed" />}
      {diagram.data && (
        <StateDiagram
          text={counts.data && definition ? annotateDiagram(diagram.data, definition.states, counts.data.byState) : diagram.data}
          label={`State diagram of ${workflowId} version ${shownVersion}${counts.data ? ` with ${counts.data.total} instances` : ''}`}
        />
      )}
      <h2>Instances by state</h2>
      {counts.problem && <ProblemAlert problem={counts.problem} context="Counting instances failed" />}
      {counts.loading && !counts.data && <p aria-live="polite">Counting instances…</p>}
      {counts.data?.truncated && <p class="note">Counted the first {counts.data.total} instances only.</p>}
      {definition && counts.data && (
        <table data-testid="state-counts">
          <caption class="visually-hidden">Instances of version {shownVersion} per state and status</caption>
          <thead>
            <tr>
              <th scope="col">State</th>
              {statuses.map((status) => (
                <th scope="col" key={status}>
                  {status}
                </th>
              ))}
              <th scope="col">Total</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(definition.states).map(([stateId, state]) => {
              const byStatus = counts.data!.byState[stateId];
              return (
                <tr key={stateId}>
                  <th scope="row">
                    {state.displayName ?? stateId} {state.displayName && <span class="muted">({stateId})</span>}
                    {stateId === definition.initialStateId && <span class="muted"> · initial</span>}
                  </th>
                  {statuses.map((status) => {
                    const count = byStatus?.[status] ?? 0;
                    return (
                      <td key={status} class="number">
                        {count > 0 ? <Link to={{ page: 'instances', filter: { workflowId, stateId, status } }}>{count}</Link> : <span class="muted">0</span>}
                      </td>
                    );
                  })}
                  <td class="number">{countOf(byStatus)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <WaitingCounts workflowId={workflowId} generation={refreshes} />
      <WorkflowCostView workflowId={workflowId} generation={refreshes} />
      {definition && flowKeyExpressions(definition).length > 0 && <FlowKeyView workflowId={workflowId} keyExpressions={flowKeyExpressions(definition)} />}
      {counts.data && counts.data.total === 0 && (
        <EmptyState title={`No instances of version ${shownVersion}`}>
          <p>
            Start one below, or with <code>POST /api/instances</code> and <code>&#123;"workflowId": "{workflowId}"&#125;</code>.
          </p>
        </EmptyState>
      )}
      {latest.data && (
        <>
          <h2>Start an instance</h2>
          <StartInstanceForm workflowId={workflowId} latestVersion={latest.data.version} />
        </>
      )}
      {definition && (
        <>
          <h2>Definition</h2>
          <details class="definition">
            <summary>The JSON of version {definition.version}</summary>
            {/* Focusable, so a keyboard can scroll it when it is wider than the page. */}
            <pre class="json-source" tabIndex={0} aria-label={`Definition of ${workflowId} version ${definition.version}`} data-testid="definition-json">
              {JSON.stringify(definition, null, 2)}
            </pre>
          </details>
        </>
      )}
    </section>
  );
}
