/** @module The instance's history: every change, newest last, with the operation and the actor that made it. */
import { useApi } from '../../api-context';
import { ActorText } from '../../components/actor-text';
import { JsonView } from '../../components/json-view';
import { Link } from '../../components/link';
import { ProblemAlert } from '../../components/problem-alert';
import { StatusBadge } from '../../components/status-badge';
import { TimeText } from '../../components/time-text';
import { useAsync } from '../../lib/use-async';

/** `generation` changes whenever the page acted on the instance: the history is read again. */
export function HistoryPanel({ instanceId, generation }: { instanceId: string; generation: number }) {
  const api = useApi();
  const history = useAsync(() => api.getHistory(instanceId), [api, instanceId, generation]);
  return (
    <>
      <h2>History</h2>
      {history.problem && <ProblemAlert problem={history.problem} context="Reading the history failed" />}
      {history.data && history.data.items.length === 0 && <p class="muted">No transitions yet.</p>}
      {history.data && history.data.items.length > 0 && (
        <ol class="timeline" data-testid="history">
          {history.data.items.map((entry, index) => {
            const operationId = entry.operationId ?? entry.triggerId;
            return (
              <li key={index}>
                <TimeText value={entry.at} /> <strong>{entry.event ?? 'change'}</strong>
                {entry.fromVersion !== undefined && entry.toVersion !== undefined && (
                  <span>
                    {' '}
                    from v{entry.fromVersion} to v{entry.toVersion}
                  </span>
                )}
                {entry.transitionId && (
                  <>
                    {' '}
                    by <code>{entry.transitionId}</code>
                  </>
                )}{' '}
                <span>
                  {entry.fromStateId ? `${entry.fromStateId} → ` : 'into '}
                  {entry.toStateId ?? '–'}
                </span>
                {operationId && (
                  <span class="muted">
                    {' '}
                    (operation <Link to={{ page: 'operation', operationId }}>{operationId}</Link>)
                  </span>
                )}{' '}
                {entry.status && <StatusBadge status={entry.status} />}
                {entry.actor ? <ActorText actor={entry.actor} /> : entry.by && <span class="muted"> by {entry.by}</span>}
                {entry.contextPatch && <JsonView value={entry.contextPatch} label="Context patch" />}
              </li>
            );
          })}
        </ol>
      )}
    </>
  );
}
