/**
 * Decision 0021 on Azure, end to end without the Functions host: the orchestrators on the real
 * durable-functions replay engine call the REAL activities, each counted as functions/activities.ts runs
 * it, against Azurite; an independent counter on the same storage clients sees every request. The record
 * names what the orchestration sent, kind by kind, except the gap the guide states: what an application
 * leaves running after its activity answered (its lease release, a grouped result write) is not counted.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { activityHandlers, countedActivity, type ActivityFunctionName } from '../../functions/activities';
import { APPLY_OPERATION_BATCH, applyOperationBatch } from '../../functions/apply-operation-batch';
import { OPERATION_ORCHESTRATOR, operationOrchestrator } from '../../functions/operation-orchestrator';
import { createAzurePorts } from '../../src/host/azure-ports';
import { createHostCore, type HostCore } from '../../src/host/host-services';
import { silentLogger } from '../../src/host/local/logger';
import type { OperationLauncher } from '../../src/host/trigger-submitter';
import { prefixedStorageNames } from '../../src/storage/names';
import { createRequestCounter } from '../../src/storage/request-counter';
import type { AzureStorage } from '../../src/storage/create-azure-storage';
import { runOrchestration } from '../support/durable-replay';
import { testConnectionString, uniquePrefix } from '../support/storage';

const INSTANCES = 3;
const counter = createRequestCounter();
let core: HostCore;
let storage: AzureStorage;

beforeAll(async () => {
  const env = { SIGNALBOX_STORAGE: testConnectionString() };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(uniquePrefix('fncost')), requestCounter: counter });
  storage = ports.storage;
  core = createHostCore({ ports, logger: silentLogger, env });
  await core.engine.putWorkflow('billed', {
    id: 'billed',
    displayName: 'Billed',
    initialStateId: 'open',
    states: { open: { interests: ['billed:all'], transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] }, closed: {} },
  });
  for (let index = 0; index < INSTANCES; index += 1) await core.engine.createInstance({ workflowId: 'billed', instanceId: `b-${index}` });
});

afterAll(async () => {
  await core?.dailyCosts?.stop();
});

it('records what the orchestration sent, with its activities counted from the plan', async () => {
  const started: string[] = [];
  const launcher: OperationLauncher = { start: async (operationId) => void started.push(operationId) };
  const services = core.servicesFor(launcher);
  const handlers = activityHandlers(core.activitiesFor(launcher));
  const recorded = await services.triggers.submit({ id: 'close-all', name: 'Close', subjects: ['billed:all'] } as never);
  expect(started).toEqual([recorded.id]);

  counter.reset();
  const run = await runOrchestration(OPERATION_ORCHESTRATOR, { operationId: recorded.id }, recorded.id, {
    orchestrators: { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch },
    activities: Object.fromEntries(Object.entries(handlers).map(([name, handler]) => [name, (input: unknown) => countedActivity(name as ActivityFunctionName, () => handler(input))])),
  });
  expect(run.status).toBe('completed');
  await storage.leases.settle();
  const operation = await core.operations.get(recorded.id);
  expect(operation).toMatchObject({ status: 'succeeded', summary: { transitioned: INSTANCES } });

  const { byKind } = counter.counts();
  const of = (prefix: string) => Object.entries(byKind).reduce((sum, [kind, count]) => (kind.startsWith(prefix) ? sum + count : sum), 0);
  const cost = operation!.cost!;
  // Reads and queries are all on the record.
  expect(cost.storage.tableRead + cost.storage.tableQuery).toBe(of('table GET'));
  // What an application leaves to finish after its activity answered counts nowhere: its lease release,
  // and a result row that went out in a grouped write another application's context started. At most
  // one of each per instance; never more on the record than was sent.
  const missingLeases = of('blob lease') - cost.storage.blobLease;
  const missingWrites = of('table ') - of('table GET') - cost.storage.tableWrite;
  expect(missingLeases).toBeGreaterThanOrEqual(0);
  expect(missingLeases).toBeLessThanOrEqual(INSTANCES);
  expect(missingWrites).toBeGreaterThanOrEqual(0);
  expect(missingWrites).toBeLessThanOrEqual(INSTANCES);
  expect(cost.storage.blobLease).toBeGreaterThanOrEqual(INSTANCES);
  expect(cost.storage.blobRead + cost.storage.blobWrite).toBe(of('blob ') - of('blob lease'));
  // Every activity the run started (none failed here, so none was retried), sub-orchestrations' included.
  expect(cost.activities).toBe(run.activityCalls.length);
  expect(operation!.costByWorkflow).toEqual({ billed: cost });
});
