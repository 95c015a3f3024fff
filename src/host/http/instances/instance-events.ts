/** @module /api/instances/{id}/events: an instance's lifecycle events with their deliveries, and redelivery of a dead-lettered one. */
import { Role } from '../access';
import { z } from 'zod';
import type { LifecycleEventRecord } from '../../../engine/decide';
import { lifecycleEventSchema, pageSchemaOf } from '../api-schemas';
import { pageQuerySchema } from '../query';
import { defineRoute } from '../route';
import { pageBody } from '../representations';
import type { RouteDefinition } from '../types';

export function eventBody(event: LifecycleEventRecord) {
  return {
    id: event.id,
    type: event.type,
    time: event.time,
    deliveries: event.deliveries.map(({ subscriptionId, status, attempts, lastError, nextAttemptAt }) => ({
      subscriptionId,
      status,
      attempts,
      ...(lastError !== undefined ? { lastError } : {}),
      // Only while it waits: a delivery done or dead-lettered has no next attempt.
      ...(nextAttemptAt !== undefined && status === 'pending' ? { nextAttemptAt } : {}),
    })),
  };
}

const eventsQuery = z.object(pageQuerySchema);
const eventPage = pageSchemaOf(lifecycleEventSchema, 'LifecycleEventPage');

export const eventRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'listInstanceEvents',
    methods: ['GET'],
    route: 'instances/{instanceId}/events',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: "List an instance's lifecycle events",
      description:
        'Oldest first, each with its delivery to every subscription that wanted it: `delivered`, `pending` (being tried) or `deadLettered`, with attempts and the last error. Only events some subscription wants are recorded.',
      tags: ['instances'],
      path: z.object({ instanceId: z.string() }),
      query: eventsQuery,
      responses: { 200: { description: 'A page of events.', body: eventPage }, 404: 'No such instance.' },
    },
    async handle({ params, query }, { engine }) {
      const events = await engine.listEvents(params.instanceId, query);
      return { status: 200, body: pageBody(events.items.map(eventBody), events) };
    },
  }),
  defineRoute({
    name: 'redeliverInstanceEvent',
    methods: ['POST'],
    route: 'instances/{instanceId}/events/{eventId}/redeliver',
    authLevel: 'function',
    role: Role.operator,
    contract: {
      summary: 'Retry a dead-lettered event',
      description: "Sets the event's dead-lettered deliveries back to pending (attempts from zero) and delivers them again, with the same event id. Takes no body.",
      tags: ['instances'],
      path: z.object({ instanceId: z.string(), eventId: z.string() }),
      responses: {
        202: { description: 'Accepted: poll `GET /api/instances/{instanceId}/events`.', body: z.object({ eventId: z.string() }) },
        404: 'No such instance or event.',
        409: 'No delivery of the event is dead-lettered.',
      },
    },
    async handle({ params: { instanceId, eventId } }, { engine }) {
      await engine.redeliverEvent(instanceId, eventId);
      return { status: 202, body: { eventId } };
    },
  }),
];
