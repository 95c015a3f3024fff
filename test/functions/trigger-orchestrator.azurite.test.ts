/**
 * The durable trigger orchestration end to end without the Functions host: the orchestrators run on the
 * real durable-functions replay engine (test/support/durable-replay.ts) and call the REAL activities
 * (functions/activities.ts over the shared wiring) against the Azurite jest starts. Requests go through
 * the shared route table in-process, as the HTTP functions would send them.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { activityHandlers } from '../../functions/activities';
import type { Actor } from '../../src/engine/model';
import { APPLY_OPERATION_BATCH, applyOperationBatch } from '../../functions/apply-operation-batch';
import { OPERATION_ORCHESTRATOR, operationOrchestrator } from '../../functions/operation-orchestrator';
import { MAX_OPERATION_RESULTS } from '../../src/engine/operations';
import { createAzurePorts } from '../../src/host/azure-ports';
import { matchRoute } from '../../src/host/http/routes';
import type { ApiResponse, ApiServices } from '../../src/host/http/types';
import { silentLogger } from '../../src/host/local/logger';
import { CANDIDATE_PAGE_SIZE, type OperationActivities } from '../../src/host/contracts/operation-activities';
import type { OperationLauncher } from '../../src/host/trigger-submitter';
import { createHostCore, type HostCore } from '../../src/host/host-services';
import { prefixedStorageNames } from '../../src/storage/names';
import { failFirstAttempts, runOrchestration, type ReplayOptions } from '../support/durable-replay';
import { testConnectionString, uniquePrefix } from '../support/storage';

/** Two pages of one subject and a few instances that match both subjects of the trigger. */
const ORDERS = CANDIDATE_PAGE_SIZE * 2 + 100;
const BOTH = 20;

const workflow = {
  id: 'orders',
  displayName: 'Orders',
  initialStateId: 'draft',
  states: {
    draft: {
      interests: ['{{context.queue}}', '{{context.extra}}'],
      transitions: [{ id: 'submit', targetStateId: 'submitted', conditions: [{ type: 'triggerName', name: 'Submit' }] }],
    },
    submitted: {},
  },
};

let core: HostCore;
let services: ApiServices;
let activities: OperationActivities;
/** Operations the API asked to start: on Azure, a durable client would; here the test runs them. */
const started: string[] = [];

async function call(method: string, path: string, body?: unknown, actor?: Actor): Promise<ApiResponse & { body: any }> {
  const url = new URL(`http://localhost/api/${path}`);
  const { match } = matchRoute(method, url.pathname.slice('/api/'.length));
  if (!match) throw new Error(`No route for ${method} ${path}`);
  const headers = new Headers(body === undefined ? {} : { 'content-type': 'application/json' });
  const response = await match.route.handle(
    {
      method,
      url,
      params: match.params,
      headers: { get: (name) => headers.get(name) },
      bodyText: body === undefined ? undefined : JSON.stringify(body),
      tenantId: 'default',
      ...(actor ? { actor } : {}),
    },
    services,
  );
  return response as ApiResponse & { body: any };
}

async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** `applyOneInstanceDirectly` as the launcher sets it; false replays an orchestration started before it did. */
function runOperationOrchestration(operationId: string, extra: Partial<ReplayOptions> = {}, applyOneInstanceDirectly = false) {
  const handlers = activityHandlers(activities);
  return runOrchestration(OPERATION_ORCHESTRATOR, { operationId, ...(applyOneInstanceDirectly ? { applyOneInstanceDirectly } : {}) }, operationId, {
    orchestrators: { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch },
    activities: handlers,
    maxConcurrentActivities: 16,
    ...extra,
  });
}

beforeAll(async () => {
  const env = { SIGNALBOX_STORAGE: testConnectionString() };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(uniquePrefix('fn')) });
  core = createHostCore({ ports, logger: silentLogger, env });
  const launcher: OperationLauncher = { start: async (operationId) => void started.push(operationId) };
  services = core.servicesFor(launcher);
  activities = core.activitiesFor(launcher);

  expect((await call('PUT', 'workflows/orders', workflow)).status).toBe(201);
  const ids = Array.from({ length: ORDERS }, (_, index) => `order-${String(index).padStart(4, '0')}`);
  await inParallel(ids, 16, async (instanceId) => {
    const index = Number(instanceId.slice('order-'.length));
    const context = { queue: 'queue:orders', extra: index < BOTH ? 'queue:vip' : 'queue:none' };
    const created = await call('POST', 'instances', { workflowId: 'orders', instanceId, context });
    if (created.status !== 201) throw new Error(`creating ${instanceId}: ${created.status} ${JSON.stringify(created.body)}`);
  });
}, 600_000); // 1,100 instances: generous, the suite runs on loaded machines

describe('triggerOrchestrator with the real activities on Azurite', () => {
  it('applies a trigger to every candidate across pages, once each, and records the summary', async () => {
    const accepted = await call('POST', 'triggers', { id: 'submit-all', name: 'Submit', subjects: ['queue:orders', 'queue:vip'] });
    expect(accepted.status).toBe(202);
    const operationId: string = accepted.body.operationId;
    expect(started).toContain(operationId);

    const run = await runOperationOrchestration(operationId);

    expect(run.status).toBe('completed');
    expect(run.subOrchestrations.length).toBeGreaterThanOrEqual(3);
    expect(run.subOrchestrations.every((sub) => sub.status === 'completed')).toBe(true);
    const operation = await call('GET', `operations/${operationId}`);
    expect(operation.status).toBe(200);
    expect(operation.body).toMatchObject({ status: 'succeeded', candidates: ORDERS });
    expect(operation.body.summary).toMatchObject({ transitioned: ORDERS, faulted: 0, duplicate: 0 });
    expect(operation.body.instances).toHaveLength(MAX_OPERATION_RESULTS);
    expect(operation.body.error).toBeUndefined();

    // An instance on both subjects' pages moved once: one history entry for the trigger.
    const vip = await call('GET', 'instances/order-0003');
    expect(vip.body).toMatchObject({ stateId: 'submitted' });
    const history = await call('GET', 'instances/order-0003/history');
    expect(history.body.items.filter((entry: { triggerId: string | null }) => entry.triggerId === 'submit-all')).toHaveLength(1);
    expect((await call('GET', `instances/order-${ORDERS - 1}`)).body).toMatchObject({ stateId: 'submitted' });

    // Running the same orchestration again (a redelivered start) changes nothing.
    const again = await runOperationOrchestration(operationId);
    expect(again.status).toBe('completed');
    expect(again.activityCalls.map((activityCall) => activityCall.name)).toEqual(['beginOperation']);
    // About 50 s alone; each instance also writes its result row, and the full suite loads the machine.
  }, 600_000);

  it('retries applyTrigger after transient failures and still applies the trigger once, as its sender (the actor travels through the operation record)', async () => {
    await call('PUT', 'workflows/single', { ...workflow, id: 'single', displayName: 'Single', states: { ...workflow.states, draft: { ...workflow.states.draft, interests: ['single:1'] } } });
    expect((await call('POST', 'instances', { workflowId: 'single', instanceId: 'single-1', context: {} })).status).toBe(201);
    const carol: Actor = { id: 'carol', name: 'Carol', roles: ['Signalbox.Sender'], via: 'token' };
    const accepted = await call('POST', 'triggers', { name: 'Submit', subjects: ['single:1'] }, carol);
    const operationId: string = accepted.body.operationId;

    // As the launcher starts it: the one instance's activity runs in the orchestration, no batch sub-orchestration.
    const run = await runOperationOrchestration(operationId, { injectFailure: failFirstAttempts(2, (activityCall) => activityCall.name === 'applyTrigger') }, true);

    expect(run.subOrchestrations).toEqual([]);
    expect(run.activityCalls.filter((activityCall) => activityCall.name === 'applyTrigger').map((activityCall) => activityCall.attempt)).toEqual([1, 2, 3]);
    const operation = await call('GET', `operations/${operationId}`);
    expect(operation.body).toMatchObject({
      status: 'succeeded',
      candidates: 1,
      summary: expect.objectContaining({ transitioned: 1 }),
      instances: [expect.objectContaining({ instanceId: 'single-1', outcome: 'transitioned' })],
    });
    const history = await call('GET', 'instances/single-1/history');
    expect(history.body.items.filter((entry: { triggerId: string | null }) => entry.triggerId === operation.body.triggerId)).toEqual([expect.objectContaining({ actor: carol })]);
    expect(operation.body.actor).toEqual(carol);
  }, 60_000);

  it('marks the operation failed with the reason when an activity keeps failing', async () => {
    const accepted = await call('POST', 'triggers', { name: 'Submit', subjects: ['nobody:here'] });
    const operationId: string = accepted.body.operationId;

    const run = await runOperationOrchestration(operationId, { injectFailure: failFirstAttempts(99, (activityCall) => activityCall.name === 'findCandidates', 'storage unavailable') });

    expect(run.status).toBe('completed');
    const operation = await call('GET', `operations/${operationId}`);
    expect(operation.status).toBe(200);
    expect(operation.body).toMatchObject({ status: 'failed', candidates: 0 });
    expect(operation.body.error).toMatch(/findCandidates.*storage unavailable/);
  }, 60_000);
});
