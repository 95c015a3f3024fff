/**
 * Durable work stays in its tenant: every orchestration and activity input of a tenant's operation, timer
 * and event delivery carries `tenantId` (run on the real durable-functions replay engine), and the durable
 * instance ids of two tenants never collide however alike their operation ids are.
 */
import { APPLY_OPERATION_BATCH, applyOperationBatch } from '../../functions/apply-operation-batch';
import { durableLauncher } from '../../functions/app-services';
import { durableEventLauncher } from '../../functions/event-launcher';
import { eventDeliveryOrchestrator } from '../../functions/event-delivery-orchestrator';
import { EVENT_DELIVERY_ORCHESTRATOR } from '../../src/host/contracts/event-activities';
import { OPERATION_ORCHESTRATOR, operationOrchestrator } from '../../functions/operation-orchestrator';
import { TIMER_ORCHESTRATOR, timerOrchestrator } from '../../functions/timer-orchestrator';
import { tenantOfInput } from '../../src/host/contracts/tenant-scope';
import { runOrchestration } from '../support/durable-replay';
import { FakeOperationActivities, activityFunctions, instanceIds } from './fake-operation-activities';

jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

/** A durable client that records what it is asked to start. */
function recordingClient() {
  const started: { name: string; instanceId: string; input: unknown }[] = [];
  const client = {
    getStatus: async () => {
      throw new Error('404 not found');
    },
    startNew: async (name: string, options: { instanceId: string; input: unknown }) => {
      started.push({ name, instanceId: options.instanceId, input: options.input });
      return options.instanceId;
    },
    waitForCompletionOrCreateCheckStatusResponse: async () => ({ status: 200 }),
  };
  return { client: client as never, started };
}

describe('durable inputs carry the tenant', () => {
  it("passes a tenant's id into every activity and batch of its operation", async () => {
    const fake = new FakeOperationActivities({ candidates: instanceIds(120), pageSize: 500 });
    const result = await runOrchestration(OPERATION_ORCHESTRATOR, { operationId: 'op-1', tenantId: 'contoso' }, 'contoso|op-1', {
      orchestrators: { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch },
      activities: activityFunctions(fake),
    });
    expect(result.status).toBe('completed');
    expect(result.activityCalls.length).toBeGreaterThan(120);
    for (const call of result.activityCalls) expect([call.name, tenantOfInput(call.input)]).toEqual([call.name, 'contoso']);
    // Batches run under ids of the tenant: another tenant's op-1 has batches of its own.
    expect(result.subOrchestrations.map((sub) => sub.instanceId)).toEqual(['contoso|op-1:batch:0', 'contoso|op-1:batch:1', 'contoso|op-1:batch:2']);
  });

  it("carries the tenant through a timer's and an event delivery's orchestration to their activities", async () => {
    const timer = await runOrchestration(TIMER_ORCHESTRATOR, { timerId: 't1', instanceId: 'o1', dueAt: '2000-01-01T00:00:00.000Z', tenantId: 'contoso' }, 'contoso|wake:t1', {
      orchestrators: { [TIMER_ORCHESTRATOR]: timerOrchestrator },
      activities: { fireTimer: async () => ({ operationId: 't1' }) },
    });
    expect(timer.activityCalls.map((call) => tenantOfInput(call.input))).toEqual(['contoso']);
    const delivery = await runOrchestration(EVENT_DELIVERY_ORCHESTRATOR, { instanceId: 'o1', eventId: 'e1', subscriptionId: 's1', tenantId: 'contoso' }, 'contoso|event:e1:s1', {
      orchestrators: { [EVENT_DELIVERY_ORCHESTRATOR]: eventDeliveryOrchestrator },
      activities: { attemptEventDelivery: async () => ({ next: 'done', status: 'delivered' }) },
    });
    expect(delivery.activityCalls.map((call) => tenantOfInput(call.input))).toEqual(['contoso']);
  });

  it("starts a tenant's orchestrations with its id in the input and in the instance id; the default tenant's as before", async () => {
    const { client, started } = recordingClient();
    await durableLauncher(client, 'contoso').start('op-1');
    await durableLauncher(client, 'fabrikam').start('op-1');
    await durableLauncher(client).start('op-1');
    await durableLauncher(client, 'contoso').armTimer!({ timerId: 't1', instanceId: 'o1', dueAt: '2030-01-01T00:00:00.000Z' } as never);
    await durableEventLauncher(client, 'contoso').deliver([{ instanceId: 'o1', eventId: 'e1', subscriptionId: 's1' }]);
    expect(started.map(({ instanceId, input }) => [instanceId, tenantOfInput(input), (input as { tenantId?: string }).tenantId])).toEqual([
      ['contoso|op-1', 'contoso', 'contoso'],
      ['fabrikam|op-1', 'fabrikam', 'fabrikam'],
      ['op-1', 'default', undefined],
      ['contoso|wake:t1', 'contoso', 'contoso'],
      ['contoso|event:e1:s1', 'contoso', 'contoso'],
    ]);
  });
});
