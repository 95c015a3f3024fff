/** @module Triggers recently offered to the instance that changed nothing, each with why (its trace). */
import { useApi } from '../../api-context';
import { Link } from '../../components/link';
import { ProblemAlert } from '../../components/problem-alert';
import { StatusBadge } from '../../components/status-badge';
import { TimeText } from '../../components/time-text';
import { TraceView } from '../../components/trace-view';
import { useAsync } from '../../lib/use-async';

export function OffersPanel({ instanceId, generation }: { instanceId: string; generation: number }) {
  const api = useApi();
  const offers = useAsync(() => api.getOffers(instanceId), [api, instanceId, generation]);
  return (
    <>
      <h2>Recent triggers that changed nothing</h2>
      {offers.problem && <ProblemAlert problem={offers.problem} context="Reading the recent offers failed" />}
      {offers.data && offers.data.items.length === 0 && <p class="muted">None: every trigger offered recently changed it (see the history), or none was offered.</p>}
      {offers.data && offers.data.items.length > 0 && (
        <ol class="timeline" data-testid="offers">
          {offers.data.items.map((offer) => (
            <li key={offer.operationId}>
              <TimeText value={offer.at} /> <strong>{offer.triggerName}</strong> <StatusBadge status={offer.outcome} />
              {offer.fromStateId && <span> in {offer.fromStateId}</span>}
              {offer.transitionId && (
                <span>
                  {' '}
                  (<code>{offer.transitionId}</code>
                  {offer.toStateId ? ` → ${offer.toStateId}` : ''})
                </span>
              )}{' '}
              <span class="muted">
                (operation <Link to={{ page: 'operation', operationId: offer.operationId }}>{offer.operationId}</Link>)
              </span>
              {offer.trace && offer.trace.length > 0 && (
                <details>
                  <summary>Why ({offer.trace.length})</summary>
                  <TraceView trace={offer.trace} />
                </details>
              )}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
