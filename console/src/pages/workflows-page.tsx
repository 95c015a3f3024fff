/** @module The workflows: each with its display name and versions, linking to its diagram and instances, and how many of its instances are faulted. */
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

/** Faulted instances of one page read: more than that shows as `100+`. */
const FAULTED_PAGE = 100;

/** How many of the workflow's instances are faulted (one page of them), linking to them; nothing when none. */
function FaultedCount({ workflowId }: { workflowId: string }) {
  const api = useApi();
  const faulted = useAsync(() => api.listInstances({ workflowId, status: 'faulted' }, undefined, FAULTED_PAGE), [api, workflowId]);
  if (!faulted.data) return <span class="muted">…</span>;
  const count = faulted.data.items.length;
  if (count === 0) return <span class="muted">none</span>;
  return (
    <Link to={{ page: 'instances', filter: { workflowId, status: 'faulted' } }}>
      <span class="badge badge-faulted">
        {count}
        {faulted.data.continuationToken ? '+' : ''} faulted
      </span>
    </Link>
  );
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
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">Workflows with their versions</caption>
            <thead>
              <tr>
                <th scope="col">Workflow</th>
                <th scope="col">Name</th>
                <th scope="col">Versions</th>
                <th scope="col">Instances</th>
                <th scope="col">Faulted</th>
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
                  <td data-testid={`faulted-${workflow.id}`}>
                    <FaultedCount workflowId={workflow.id} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
