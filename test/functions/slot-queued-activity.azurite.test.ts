/**
 * The `applyTrigger` activity on Azurite when its trigger finds no concurrency slot (decision 0025): it answers
 * the engine's queued verdict at once, naming the key, and applies nothing (no lease kept, no wait in place);
 * called again once the slot is free it applies the trigger, and once more it answers `duplicate`. The real
 * orchestrator, on the durable-functions replay engine, drives the same activity through its durable timers.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { activityHandlers } from '../../functions/activities';
import { APPLY_OPERATION_BATCH, applyOperationBatch } from '../../functions/apply-operation-batch';
import { OPERATION_ORCHESTRATOR, operationOrchestrator } from '../../functions/operation-orchestrator';
import { ConcurrencySlots, type HeldSlot } from '../../src/engine/admission';
import { createAzurePorts } from '../../src/host/azure-ports';
import type { ApplyOperationInput, OperationActivities } from '../../src/host/contracts/operation-activities';
import { createHostCore, type HostCore } from '../../src/host/host-services';
import { matchRoute } from '../../src/host/http/routes';
import type { ApiResponse, ApiServices } from '../../src/host/http/types';
import { silentLogger } from '../../src/host/local/logger';
import type { OperationLauncher } from '../../src/host/trigger-submitter';
import { prefixedStorageNames } from '../../src/storage/names';
import { runOrchestration } from '../support/durable-replay';
import { testConnectionString, uniquePrefix } from '../support/storage';

const workflow = {
  id: 'limited',
  displayName: 'Limited',
  initialStateId: 'draft',
  flow: { concurrency: { key: "'all'", limit: 1 } },
  states: {
    draft: { interests: ['{{context.subject}}'], transitions: [{ id: 'submit', targetStateId: 'submitted', conditions: [{ type: 'triggerName', name: 'Submit' }] }] },
    submitted: {},
  },
};

let core: HostCore;
let services: ApiServices;
let activities: OperationActivities;
let slots: ConcurrencySlots;

async function call(method: string, path: string, body?: unknown): Promise<ApiResponse & { body: any }> {
  const url = new URL(`http://localhost/api/${path}`);
  const { match } = matchRoute(method, url.pathname.slice('/api/'.length));
  if (!match) throw new Error(`No route for ${method} ${path}`);
  const headers = new Headers(body === undefined ? {} : { 'content-type': 'application/json' });
  const response = await match.route.handle(
    { method, url, params: match.params, headers: { get: (name) => headers.get(name) }, bodyText: body === undefined ? undefined : JSON.stringify(body), tenantId: 'default' },
    services,
  );
  return response as ApiResponse & { body: any };
}

/** Another application holding the key's one slot (as a worker elsewhere would). */
function holdTheSlot(): Promise<HeldSlot> {
  return slots.acquire({ workflowId: 'limited', key: 'all', limit: 1, instanceId: 'elsewhere', triggerId: `held-${Math.random()}`, maxWaitInMs: 0 });
}

async function submitTo(instanceId: string): Promise<string> {
  expect((await call('POST', 'instances', { workflowId: 'limited', instanceId, context: { subject: `limited:${instanceId}` } })).status).toBe(201);
  const accepted = await call('POST', 'triggers', { name: 'Submit', subjects: [`limited:${instanceId}`] });
  expect(accepted.status).toBe(202);
  return accepted.body.operationId as string;
}

beforeAll(async () => {
  const env = { SIGNALBOX_STORAGE: testConnectionString() };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(uniquePrefix('sq')) });
  core = createHostCore({ ports, logger: silentLogger, env });
  const launcher: OperationLauncher = { start: async () => undefined };
  services = core.servicesFor(launcher);
  activities = core.activitiesFor(launcher);
  slots = new ConcurrencySlots(ports.flow!, { now: () => new Date(), newId: () => `holder-${Math.random()}`, warn: () => {} });
  expect((await call('PUT', 'workflows/limited', workflow)).status).toBe(201);
}, 60_000);

describe('applyTrigger for a trigger without a concurrency slot, on Azurite', () => {
  it('answers queued naming the key and applies nothing, then applies it once the slot frees, exactly once', async () => {
    const held = await holdTheSlot();
    const operationId = await submitTo('q1');
    const apply = activityHandlers(activities).applyTrigger;
    const input: ApplyOperationInput = { operationId, instanceId: 'q1', parkWhenQueued: true };

    const first = (await apply(input)) as { queued?: { detail: string; queue?: unknown; place?: { id: string } } };
    expect(first.queued).toMatchObject({ queue: { workflowId: 'limited', key: 'all' }, place: { id: expect.stringContaining('q1') } });
    expect(first.queued!.detail).toContain('queued: all at 1/1');
    // No lease kept and no wait in place: a second try at once is answered the same way, not refused for a held lease.
    expect(await apply(input)).toMatchObject({ queued: { queue: { key: 'all' } } });
    expect((await call('GET', 'instances/q1')).body).toMatchObject({ stateId: 'draft' });

    await slots.release(held);
    expect(await apply(input)).toMatchObject({ outcome: 'transitioned' });
    // Called again after it was applied (a redelivered activity): reported as what it did (operationResult), applied once.
    expect(await apply(input)).toMatchObject({ outcome: 'transitioned' });
    expect((await call('GET', 'instances/q1')).body).toMatchObject({ stateId: 'submitted' });
    const history = await call('GET', 'instances/q1/history');
    expect(history.body.items.filter((entry: { transitionId?: string }) => entry.transitionId === 'submit')).toHaveLength(1);
  }, 60_000);

  it('is applied by the orchestrator after durable timers once the slot frees, the lease never held while it waits', async () => {
    const held = await holdTheSlot();
    const operationId = await submitTo('q2');
    const handlers = activityHandlers(activities);
    const answers: unknown[] = [];
    const run = await runOrchestration(OPERATION_ORCHESTRATOR, { operationId, applyOneInstanceDirectly: true }, operationId, {
      orchestrators: { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch },
      activities: {
        ...handlers,
        applyTrigger: async (input: ApplyOperationInput) => {
          const answer = await handlers.applyTrigger(input);
          answers.push(answer);
          // The holder finishes after the trigger's second queued answer.
          if (answers.length === 2) await slots.release(held);
          return answer;
        },
      },
    });

    expect(run.status).toBe('completed');
    expect(answers.map((answer) => ((answer as { queued?: unknown }).queued ? 'queued' : (answer as { outcome: string }).outcome))).toEqual(['queued', 'queued', 'transitioned']);
    const operation = await call('GET', `operations/${operationId}`);
    expect(operation.body).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
    expect(operation.body.error).toBeUndefined();
    expect((await call('GET', 'instances/q2')).body).toMatchObject({ stateId: 'submitted' });
  }, 60_000);
});
