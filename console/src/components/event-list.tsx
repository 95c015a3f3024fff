/**
 * @module An instance's lifecycle events (`GET /api/instances/{id}/events`), oldest first, each with its
 * delivery to every subscription: delivered, pending or dead-lettered, attempts and the last error; an
 * event with a dead-lettered delivery can be delivered again (`POST .../events/{eventId}/redeliver`).
 */
import { useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { asProblem } from '../api/api-error';
import type { LifecycleEvent, ClientProblem } from '../../../src/client';
import { ProblemAlert } from './problem-alert';
import { StatusBadge } from './status-badge';
import { TimeText } from './time-text';

function RedeliverButton({ instanceId, eventId, onDone }: { instanceId: string; eventId: string; onDone: () => void }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ClientProblem>();
  return (
    <>
      <button
        type="button"
        class="secondary"
        disabled={busy}
        aria-label={`Deliver ${eventId} again`}
        onClick={async () => {
          setBusy(true);
          setProblem(undefined);
          try {
            await api.redeliverEvent(instanceId, eventId);
            onDone();
          } catch (error) {
            setProblem(asProblem(error));
          } finally {
            setBusy(false);
          }
        }}
      >
        Deliver again
      </button>
      {problem && <ProblemAlert problem={problem} context="Redelivery was refused" />}
    </>
  );
}

export function EventList({ instanceId, events, onRedelivered }: { instanceId: string; events: readonly LifecycleEvent[]; onRedelivered: () => void }) {
  if (events.length === 0) return <p class="muted">No lifecycle events recorded (only events a subscription wants are kept).</p>;
  return (
    <table data-testid="lifecycle-events">
      <caption class="visually-hidden">Lifecycle events and their deliveries</caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Time</th>
          <th scope="col">Deliveries</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr key={event.id}>
            <td>
              <strong>{event.type}</strong> <span class="muted">{event.id}</span>
            </td>
            <td>
              <TimeText value={event.time} />
            </td>
            <td>
              <ul class="plain-list">
                {event.deliveries.map((delivery) => (
                  <li key={delivery.subscriptionId}>
                    <code>{delivery.subscriptionId}</code> <StatusBadge status={delivery.status} />{' '}
                    <span class="muted">
                      {delivery.attempts} attempt{delivery.attempts === 1 ? '' : 's'}
                    </span>
                    {delivery.lastError && <span class="problem-detail"> {delivery.lastError}</span>}
                  </li>
                ))}
              </ul>
              {event.deliveries.some((delivery) => delivery.status === 'deadLettered') && <RedeliverButton instanceId={instanceId} eventId={event.id} onDone={onRedelivered} />}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
