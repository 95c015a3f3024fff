/** @module Who made a change, as the history records it: a person's name, a key, or Signalbox acting for whoever caused it. */
import type { HistoryEntry } from '../../../src/client';

type RecordedActor = NonNullable<HistoryEntry['actor']>;

export function describeActor(actor: RecordedActor): string {
  const onBehalfOf = actor.onBehalfOf ? ` for ${actor.onBehalfOf.name ?? actor.onBehalfOf.id}` : '';
  if (actor.via === 'system') return actor.cause ? `Signalbox, caused by ${actor.cause.name}` : 'Signalbox';
  return `${actor.name}${onBehalfOf}`;
}

export function ActorText({ actor }: { actor: RecordedActor }) {
  return (
    <span class="muted" data-testid="actor" title={`${actor.id} (${actor.via}${actor.roles.length ? `: ${actor.roles.join(', ')}` : ''})`}>
      {' '}
      by {describeActor(actor)}
    </span>
  );
}
