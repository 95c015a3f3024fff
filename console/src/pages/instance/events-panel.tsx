/** @module The instance's lifecycle events with their deliveries, and redelivery of dead-lettered ones. */
import type { Instance } from '../../../../src/client';
import { useApi } from '../../api-context';
import { EventList } from '../../components/event-list';
import { ProblemAlert } from '../../components/problem-alert';
import { useAsync } from '../../lib/use-async';

export function EventsPanel({ instance }: { instance: Instance }) {
  const api = useApi();
  // Every save may publish events: read again whenever the instance changed (its ETag).
  const events = useAsync(() => api.getEvents(instance.id), [api, instance.id, instance.etag]);
  return (
    <>
      <h2>Lifecycle events</h2>
      {events.problem && <ProblemAlert problem={events.problem} context="Reading the lifecycle events failed" />}
      {events.data && <EventList instanceId={instance.id} events={events.data.items} onRedelivered={events.reload} />}
    </>
  );
}
