/** @module The workflows: each with its display name and versions, linking to its diagram and instances. */
import { useApi } from '../api-context';
import type { Page, WorkflowSummary } from '../../../src/client';
import { EmptyState } from '../components/empty-state';
import { Link } from '../components/link';
import { ProblemAlert } from '../components/problem-alert';
import { useAsync } from '../lib/use-async';

async function listAll(load: (token?: string) => Promise<Page<WorkflowSummary>>): Promise<WorkflowSummary[]> {
  const items: WorkflowSummary[] = [];
  let token: string | undefined;
  do {
    const page = await load(token);
    items.push(...page.items);
    token = page.continuationToken;
  } while (token);
  return items;
}

export function WorkflowsPage() {
  const api = useApi();
  const workflows = useAsync(() => listAll((token) => api.listWorkflows(token)), [api]);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Workflows
      </h1>
      {workflows.problem && <ProblemAlert problem={workflows.problem} context="Listing workflows failed" />}
      {workflows.loading && !workflows.data && <p aria-live="polite">Loading workflows…</p>}
      {workflows.data && workflows.data.length === 0 && (
        <EmptyState title="No workflows yet">
          <p>
            Define one with <code>PUT /api/workflows/&#123;id&#125;</code>, for example{' '}
            <code>curl -X PUT $API/workflows/expense-claim -H 'content-type: application/json' --data @examples/expense-claim.json</code>.
          </p>
        </EmptyState>
      )}
      {workflows.data && workflows.data.length > 0 && (
        <table>
          <caption class="visually-hidden">Workflows with their versions</caption>
          <thead>
            <tr>
              <th scope="col">Workflow</th>
              <th scope="col">Name</th>
              <th scope="col">Versions</th>
              <th scope="col">Instances</th>
            </tr>
          </thead>
          <tbody>
            {workflows.data.map((workflow) => (
              <tr key={workflow.id}>
                <td>
                  <Link to={{ page: 'workflow', workflowId: workflow.id }}>{workflow.id}</Link>
                </td>
                <td>{workflow.displayName ?? <span class="muted">–</span>}</td>
                <td>
                  <ul class="inline-list" aria-label={`Versions of ${workflow.id}`}>
                    {Array.from({ length: workflow.version }, (_, index) => workflow.version - index).map((version) => (
                      <li key={version}>
                        <Link to={{ page: 'workflow', workflowId: workflow.id, version }}>
                          v{version}
                          {version === workflow.version ? ' (latest)' : ''}
                        </Link>
                      </li>
                    ))}
                  </ul>
                </td>
                <td>
                  <Link to={{ page: 'instances', filter: { workflowId: workflow.id } }}>Instances of {workflow.id}</Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
