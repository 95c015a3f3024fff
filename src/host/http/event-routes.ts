/** @module /api/instances/{id}/events: an instance's lifecycle events with their deliveries, and redelivery of a dead-lettered one. */
import type { LifecycleEventRecord } from '../../engine/events/lifecycle-events';
import { readJsonBody } from './request-body';
import { pageQuerySchema, parseQuery } from './query';
import { pageBody } from './representations';
import type { RouteDefinition } from './types';

export function eventBody(event: LifecycleEventRecord) {
  return {
    id: event.id,
    type: event.type,
    time: event.time,
    deliveries: event.deliveries.map(({ subscriptionId, status, attempts, lastError }) => ({ subscriptionId, status, attempts, ...(lastError !== undefined ? { lastError } : {}) })),
  };
}

export const eventRoutes: readonly RouteDefinition[] = [
  {
    name: 'listInstanceEvents',
    methods: ['GET'],
    route: 'instances/{instanceId}/events',
    authLevel: 'function',
    async handle(request, { engine }) {
      const page = parseQuery(request, pageQuerySchema);
      const events = await engine.listEvents(request.params.instanceId!, page);
      return { status: 200, body: pageBody(events.items.map(eventBody), events) };
    },
  },
  {
    name: 'redeliverInstanceEvent',
    methods: ['POST'],
    route: 'instances/{instanceId}/events/{eventId}/redeliver',
    authLevel: 'function',
    async handle(request, { engine }) {
      readJsonBody(request, { optional: true });
      await engine.redeliverEvent(request.params.instanceId!, request.params.eventId!);
      return { status: 202, body: { eventId: request.params.eventId! } };
    },
  },
];
