/**
 * Migrations and bulk actions through the durable orchestration, end to end without the Functions host:
 * the same orchestrator as triggers runs on the real durable-functions replay engine
 * (test/support/durable-replay.ts) and calls the REAL activities against the Azurite jest starts.
 * Requests go through the shared route table in-process, as the HTTP functions would send them.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { activityHandlers } from '../../functions/activities';
import { APPLY_OPERATION_BATCH, applyOperationBatch } from '../../functions/apply-operation-batch';
import { DURABLE_PAGE_SIZE, OPERATION_ORCHESTRATOR, operationOrchestrator } from '../../functions/operation-orchestrator';
import { NotFoundError } from '../../src/engine/model';
import { createAzurePorts } from '../../src/host/azure-ports';
import { matchRoute } from '../../src/host/http/routes';
import type { ApiResponse, ApiServices } from '../../src/host/http/types';
import { silentLogger } from '../../src/host/local/logger';
import { CANDIDATE_PAGE_SIZE, type RecordProgressInput, type OperationActivities } from '../../src/host/contracts/operation-activities';
import type { OperationLauncher } from '../../src/host/trigger-submitter';
import { createHostCore, type HostCore } from '../../src/host/host-services';
import { prefixedStorageNames } from '../../src/storage/names';
import { EventType, failFirstAttempts, runOrchestration, type ReplayOptions } from '../support/durable-replay';
import { testConnectionString, uniquePrefix } from '../support/storage';

/** Two pages of candidates. */
const TASKS = CANDIDATE_PAGE_SIZE + 40;

const v1 = {
  id: 'tasks',
  displayName: 'Tasks',
  initialStateId: 'todo',
  states: {
    todo: { transitions: [{ id: 'start', targetStateId: 'doing', conditions: [{ type: 'triggerName', name: 'Start' }] }] },
    doing: { transitions: [{ id: 'finish', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Finish' }] }] },
    done: {},
  },
};
const v2 = {
  ...v1,
  states: {
    backlog: { interests: ['backlog'], transitions: [{ id: 'pick', targetStateId: 'doing', conditions: [{ type: 'triggerName', name: 'Pick' }] }] },
    doing: v1.states.doing,
    done: {},
  },
  initialStateId: 'backlog',
};

let core: HostCore;
let services: ApiServices;
let activities: OperationActivities;
const started: string[] = [];

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

function runOperation(operationId: string, extra: Partial<ReplayOptions> = {}) {
  const progress: RecordProgressInput[] = [];
  const handlers = activityHandlers(activities);
  const run = runOrchestration(OPERATION_ORCHESTRATOR, { operationId }, operationId, {
    orchestrators: { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch },
    activities: { ...handlers, recordProgress: async (input: RecordProgressInput) => (progress.push(input), handlers.recordProgress(input)) },
    maxConcurrentActivities: 16,
    ...extra,
  });
  return run.then((result) => ({ ...result, progress }));
}

async function accepted(method: string, path: string, body: unknown): Promise<string> {
  const response = await call(method, path, body);
  expect(response.status).toBe(202);
  const operationId: string = response.body.operationId;
  expect(started).toContain(operationId);
  return operationId;
}

beforeAll(async () => {
  const env = { SIGNALBOX_STORAGE: testConnectionString() };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(uniquePrefix('fo')) });
  core = createHostCore({ ports, logger: silentLogger, env });
  const launcher: OperationLauncher = { start: async (operationId) => void started.push(operationId) };
  services = core.servicesFor(launcher);
  activities = core.activitiesFor(launcher);

  expect((await call('PUT', 'workflows/tasks', v1)).status).toBe(201);
  const ids = Array.from({ length: TASKS }, (_, index) => `task-${String(index).padStart(4, '0')}`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < ids.length) {
        const instanceId = ids[next++]!;
        const created = await call('POST', 'instances', { workflowId: 'tasks', instanceId });
        if (created.status !== 201) throw new Error(`creating ${instanceId}: ${created.status}`);
      }
    }),
  );
  // One is doing, one is done (complete: reported and left by a migration).
  await core.engine.applyTrigger('task-0000', { id: 'start-0', name: 'Start', subjects: ['task-0000'] });
  await core.engine.applyTrigger('task-0001', { id: 'start-1', name: 'Start', subjects: ['task-0001'] });
  await core.engine.applyTrigger('task-0001', { id: 'finish-1', name: 'Finish', subjects: ['task-0001'] });
  const latest = await call('GET', 'workflows/tasks');
  const headers = new Headers({ 'content-type': 'application/json', 'if-match': latest.headers!.etag! });
  const url = new URL('http://localhost/api/workflows/tasks');
  const { match } = matchRoute('PUT', 'workflows/tasks');
  expect(
    (await match!.route.handle({ method: 'PUT', url, params: match!.params, headers: { get: (name) => headers.get(name) }, bodyText: JSON.stringify(v2), tenantId: 'default' }, services)).status,
  ).toBe(200);
}, 600_000);

describe('the operation orchestrator runs migrations and bulk actions with the real activities on Azurite', () => {
  it('migrates every instance across pages, under retries, recording progress, and a second run skips them all', async () => {
    const operationId = await accepted('POST', 'workflows/tasks/migrations', { fromVersion: 1, toVersion: 2, stateMap: { todo: 'backlog' } });

    const run = await runOperation(operationId, {
      injectFailure: failFirstAttempts(
        1,
        (activityCall) => activityCall.name === 'applyTrigger' && activityCall.input !== null && (activityCall.input as { instanceId: string }).instanceId === 'task-0002',
      ),
    });

    expect(run.status).toBe('completed');
    expect(run.subOrchestrations.length).toBe(Math.ceil(TASKS / DURABLE_PAGE_SIZE));
    const operation = await call('GET', `operations/${operationId}`);
    expect(operation.status).toBe(200);
    expect(operation.body).toMatchObject({ kind: 'migration', status: 'succeeded', candidates: TASKS, summary: { migrated: TASKS - 1, notMigratable: 1, skipped: 0, failed: 0 } });
    expect(operation.body.summary).not.toHaveProperty('transitioned');
    // Each result was stored by the activity that applied it (the retried one too) and is read from the store.
    expect(operation.body.instances).toHaveLength(TASKS);
    expect(operation.body.instances.find((result: { instanceId: string }) => result.instanceId === 'task-0002')).toEqual({
      instanceId: 'task-0002',
      outcome: 'migrated',
      fromStateId: 'todo',
      toStateId: 'backlog',
    });
    expect(operation.body.instances.find((result: { instanceId: string }) => result.instanceId === 'task-0001')).toMatchObject({ outcome: 'notMigratable', error: expect.any(String) });
    // ...and no result travelled through durable history: each application answered its outcome only.
    const answers = run.subOrchestrations.flatMap((sub) => sub.history.filter((event) => event.EventType === EventType.TaskCompleted).map((event) => JSON.parse(String(event.Result))));
    expect(answers).toHaveLength(TASKS);
    // Its outcome, and what it cost under its workflow (decision 0021): no result.
    for (const answer of answers) expect(Object.keys(answer).sort()).toEqual(['cost', 'outcome', 'workflowId']);
    // Progress was recorded between batches: processed grows, and the total is known once every page is read.
    // (Issue 23: the first record, as the first batch starts, marks the operation running with nothing processed.)
    expect(run.progress.length).toBeGreaterThanOrEqual(2);
    expect(run.progress[0]!.progress.processed).toBe(0);
    expect(run.progress[1]!.progress.processed).toBeGreaterThan(0);
    expect(run.progress.at(-1)!.progress).toMatchObject({ total: TASKS });

    expect((await call('GET', 'instances/task-0002')).body).toMatchObject({ workflowVersion: 2, stateId: 'backlog', interests: expect.arrayContaining(['backlog', 'Pick']) });
    expect((await call('GET', 'instances/task-0000')).body).toMatchObject({ workflowVersion: 2, stateId: 'doing' });
    expect((await call('GET', 'instances/task-0001')).body).toMatchObject({ workflowVersion: 1, status: 'complete' });
    const history = await call('GET', 'instances/task-0002/history');
    expect(history.body.items.filter((entry: { event: string }) => entry.event === 'migrated')).toHaveLength(1);

    // Repeated (a second request): nothing left on version 1 but the complete one.
    const again = await accepted('POST', 'workflows/tasks/migrations', { fromVersion: 1, toVersion: 2, stateMap: { todo: 'backlog' } });
    expect((await runOperation(again)).status).toBe('completed');
    expect((await call('GET', `operations/${again}`)).body).toMatchObject({ candidates: 1, summary: { migrated: 0, notMigratable: 1 } });
    // Over 1,000 instance changes on Azurite: minutes when the shared machine is loaded.
  }, 600_000);

  it("suspends one state's instances in bulk, then purges finished ones with updatedBefore", async () => {
    const suspend = await accepted('POST', 'instances/bulk', { action: 'suspend', filter: { workflowId: 'tasks', stateId: 'doing' } });
    const run = await runOperation(suspend);
    expect(run.status).toBe('completed');
    expect((await call('GET', `operations/${suspend}`)).body).toMatchObject({ kind: 'bulk', status: 'succeeded', candidates: 1, summary: { suspended: 1, conflict: 0 } });
    expect((await call('GET', 'instances/task-0000')).body.status).toBe('suspended');

    const purge = await accepted('POST', 'instances/bulk', {
      action: 'delete',
      filter: { workflowId: 'tasks', status: 'complete', updatedBefore: new Date(Date.now() + 60_000).toISOString() },
      expectedCount: 1,
    });
    expect((await runOperation(purge)).status).toBe('completed');
    expect((await call('GET', `operations/${purge}`)).body).toMatchObject({ candidates: 1, summary: { deleted: 1 } });
    await expect(call('GET', 'instances/task-0001')).rejects.toBeInstanceOf(NotFoundError);
  }, 120_000);
});
