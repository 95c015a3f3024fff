/**
 * @module An instance's lifecycle events (`GET /api/instances/{id}/events`), oldest first, each with its
 * delivery to every subscription: delivered, pending or dead-lettered, attempts and the last error.
 */
import type { LifecycleEvent } from '../api/types';
import { StatusBadge } from './status-badge';
import { TimeText } from './time-text';

export function EventList({ events }: { events: LifecycleEvent[] }) {
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
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
