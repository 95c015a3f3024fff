/**
 * @module Starting lifecycle event deliveries on Azure (the relay's `event` handler in the Functions app):
 * one orchestration per delivery, with a deterministic instance id (event-delivery.ts runs it).
 */
import * as df from 'durable-functions';
import type { DurableClient } from 'durable-functions';
import { EVENT_DELIVERY_ORCHESTRATOR, type EventDeliveryInput, type EventDeliveryTarget } from '../src/host/contracts/event-activities';
import { tenantInstanceId, tenantScope } from '../src/host/contracts/tenant-scope';
import { hashString } from '../src/engine/model';
import { DEFAULT_TENANT_ID } from '../src/host/tenants';
import type { EventLauncher } from '../src/host/host-services';

/** The orchestration instance id of one delivery: readable when short, else a hash (always the same for the same delivery). */
export function deliveryInstanceId(target: EventDeliveryTarget): string {
  const readable = `event:${target.eventId}:${target.subscriptionId}`;
  if (readable.length <= 200) return readable;
  const text = `${target.eventId}\u0000${target.subscriptionId}`;
  return `event:h.${hashString(text)}${hashString(text, 0x9e3779b9)}`;
}

const running = new Set<string>([df.OrchestrationRuntimeStatus.Running, df.OrchestrationRuntimeStatus.Pending, df.OrchestrationRuntimeStatus.ContinuedAsNew]);

/**
 * Starts each delivery's orchestration unless it is running. A finished one is started again (a
 * redelivery): its first attempt finds a delivered event delivered and ends at once.
 */
export function durableEventLauncher(client: Pick<DurableClient, 'getStatus' | 'startNew'>, tenantId = DEFAULT_TENANT_ID): EventLauncher {
  return {
    async deliver(targets) {
      for (const target of targets) {
        const instanceId = tenantInstanceId(tenantId, deliveryInstanceId(target));
        const status = await client.getStatus(instanceId).catch((error: unknown) => {
          if (error instanceof Error && /\b404\b/.test(error.message)) return undefined;
          throw error;
        });
        if (status && running.has(status.runtimeStatus)) continue;
        const input: EventDeliveryInput = { ...target, ...tenantScope(tenantId) };
        await client.startNew(EVENT_DELIVERY_ORCHESTRATOR, { instanceId, input });
      }
    },
  };
}
