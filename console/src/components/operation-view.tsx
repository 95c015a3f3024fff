/**
 * @module An operation as it runs: status, progress (processed of candidates), then its summary and the
 * outcome for each instance with its trace.
 */
import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { operationProgress, type ListedOperation, type Operation } from '../../../src/client';
import { isFinished, useOperation } from '../lib/use-operation';
import { Link } from './link';
import { ProblemAlert } from './problem-alert';
import { OperationStatusBadge, StatusBadge } from './status-badge';
import { TimeText } from './time-text';
import { TraceView } from './trace-view';
import { OperationCostList } from './cost-view';

/** Processed of candidates as the client counts them (src/client): unknown while candidates are still being found. */
function Progress({ operation }: { operation: Operation }) {
  const { processed, total } = operationProgress(operation);
  if (total === undefined) {
    return (
      <p class="progress" aria-live="polite" data-testid="progress">
        <label for={`progress-${operation.id}`}>{processed} processed so far, candidates still being found</label> <progress id={`progress-${operation.id}`} />
      </p>
    );
  }
  return (
    <p class="progress" aria-live="polite" data-testid="progress">
      <label for={`progress-${operation.id}`}>
        {processed} of {total} {total === 1 ? 'candidate' : 'candidates'} processed
      </label>{' '}
      <progress id={`progress-${operation.id}`} max={Math.max(total, 1)} value={Math.min(processed, total)} />
    </p>
  );
}

/** Results shown per page of an operation's per-instance outcomes (an operation keeps up to 1,000). */
export const RESULTS_PER_PAGE = 50;

/** What the operation was, in a sentence: the trigger sent (name, subjects, parameters), the migration, the bulk action. */
export function describeOperation(operation: ListedOperation): string {
  if (operation.trigger) {
    const { name, subjects, parameters } = operation.trigger;
    const shownParameters = parameters && Object.keys(parameters).length ? ` with ${JSON.stringify(parameters).slice(0, 200)}` : '';
    // A broadcast may name up to 100 subjects: the first few say enough in a sentence.
    const shownSubjects = subjects.length > 5 ? `${subjects.slice(0, 5).join(', ')} and ${subjects.length - 5} more` : subjects.join(', ');
    return `Trigger ${name} to ${shownSubjects}${shownParameters}`;
  }
  if (operation.kind === 'migration' && operation.migration) {
    const mapped = Object.entries(operation.migration.stateMap ?? {}).map(([from, to]) => `${from} → ${to}`);
    return `Migration of ${operation.migration.workflowId} from v${operation.migration.fromVersion} to v${operation.migration.toVersion}${mapped.length ? ` (${mapped.join(', ')})` : ''}`;
  }
  if (operation.kind === 'bulk' && operation.bulk) {
    const workflowId = operation.bulk.filter.workflowId;
    const narrowed = Object.entries(operation.bulk.filter)
      .filter(([key, value]) => key !== 'workflowId' && value !== undefined)
      .map(([key, value]) => `${key} ${String(value)}`);
    return `Bulk ${operation.bulk.action}${typeof workflowId === 'string' ? ` of ${workflowId} instances` : ''}${narrowed.length ? ` (${narrowed.join(', ')})` : ''}${operation.bulk.stateId ? ` into ${operation.bulk.stateId}` : ''}`;
  }
  return operation.triggerId ? `Dispatch of trigger ${operation.triggerId}` : 'Dispatch of a trigger';
}

export function OperationView({ operationId, onFinished }: { operationId: string; onFinished?: (operation: Operation) => void }) {
  const api = useApi();
  const [resultsPage, setResultsPage] = useState(0);
  const { operation, problem } = useOperation(api, operationId);
  const finished = isFinished(operation);
  useEffect(() => {
    if (finished && operation) onFinished?.(operation);
    // Only the moment it finishes matters.
  }, [finished]);
  return (
    <div class="operation" data-testid="operation">
      {problem && <ProblemAlert problem={problem} context="Reading the operation failed" />}
      {!operation && !problem && <p aria-live="polite">Reading operation {operationId}…</p>}
      {operation && (
        <>
          <p class="operation-kind" data-testid="operation-kind">
            {describeOperation(operation)}
          </p>
          <p>
            Operation <Link to={{ page: 'operation', operationId: operation.id }}>{operation.id}</Link>{' '}
            <span role="status" aria-live="polite">
              <OperationStatusBadge operation={operation} />
            </span>{' '}
            <span class="muted">
              updated <TimeText value={operation.updatedAt} />
            </span>
          </p>
          <Progress operation={operation} />
          {operation.error && (
            <div class="problem" role="alert">
              <p class="problem-title">The dispatch failed</p>
              <p class="problem-detail">{operation.error}</p>
            </div>
          )}
          {operation.summary && (
            <dl class="summary" aria-label="Summary">
              {Object.entries(operation.summary)
                .filter(([, count]) => count > 0)
                .map(([outcome, count]) => (
                  <div key={outcome}>
                    <dt>{outcome}</dt>
                    <dd>{count}</dd>
                  </div>
                ))}
            </dl>
          )}
          {operation.cost && (
            <details class="operation-cost">
              <summary>What it cost</summary>
              <OperationCostList cost={operation.cost} />
            </details>
          )}
          {finished && operation.instances && operation.instances.length === 0 && (
            <p class="muted">{operation.kind === 'trigger' || !operation.kind ? 'No instance was interested in this trigger.' : 'No instance matched.'}</p>
          )}
          {operation.instancesTruncated && <p class="note">Only the first results are listed; the summary counts them all.</p>}
          {operation.tracesTruncated && <p class="note">Only the first 100 results keep their trace.</p>}
          {operation.instances &&
            operation.instances.length > 0 &&
            (() => {
              // A page of the results at a time: an operation over 1,000 instances is not one endless table.
              const pages = Math.ceil(operation.instances.length / RESULTS_PER_PAGE);
              const current = Math.min(resultsPage, pages - 1);
              const first = current * RESULTS_PER_PAGE;
              const shown = operation.instances.slice(first, first + RESULTS_PER_PAGE);
              return (
                <>
                  <div class="table-scroll">
                    <table data-testid="outcomes">
                      <caption class="visually-hidden">
                        Outcome per instance, {first + 1} to {first + shown.length} of {operation.instances.length}
                      </caption>
                      <thead>
                        <tr>
                          <th scope="col">Instance</th>
                          <th scope="col">Outcome</th>
                          <th scope="col">Transition</th>
                          <th scope="col">Trace</th>
                        </tr>
                      </thead>
                      <tbody>
                        {shown.map((result) => (
                          <tr key={result.instanceId}>
                            <td>
                              <Link to={{ page: 'instance', instanceId: result.instanceId }}>{result.instanceId}</Link>
                            </td>
                            <td>
                              <StatusBadge status={result.outcome} />
                              {result.error && <p class="problem-detail">{result.error}</p>}
                            </td>
                            <td>
                              {result.transitionId ? (
                                <>
                                  {result.transitionId}: {result.fromStateId} → {result.toStateId}
                                </>
                              ) : (
                                <span class="muted">–</span>
                              )}
                            </td>
                            <td>
                              {result.trace ? (
                                <details>
                                  <summary>Trace ({result.trace.length})</summary>
                                  <TraceView trace={result.trace} />
                                </details>
                              ) : (
                                <span class="muted">–</span>
                              )}
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                  {pages > 1 && (
                    <nav class="pager" aria-label="Pages of results">
                      <button type="button" class="secondary" disabled={current === 0} onClick={() => setResultsPage(current - 1)}>
                        Previous results
                      </button>
                      <span data-testid="results-range">
                        {first + 1}–{first + shown.length} of {operation.instances.length}
                      </span>
                      <button type="button" class="secondary" disabled={current >= pages - 1} onClick={() => setResultsPage(current + 1)}>
                        Next results
                      </button>
                    </nav>
                  )}
                </>
              );
            })()}
        </>
      )}
    </div>
  );
}
