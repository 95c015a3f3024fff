/**
 * A migration on Azure whose activities run again after a host crash (issue 42, defect 4): the durable
 * orchestrator (on the real replay engine, test/support/durable-replay.ts) calls the REAL activities on
 * the Azurite jest starts, and some `applyTrigger` activities migrate their instance and then lose their
 * answer, as when the host dies after the activity's work and before its completion is recorded: durable
 * runs them again. Before the fix, the second run found the instance on the target version and the report
 * counted it `skipped`. Each instance is reported once, `migrated`, and migrated once.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { activityHandlers } from '../../functions/activities';
import { APPLY_OPERATION_BATCH, applyOperationBatch } from '../../functions/apply-operation-batch';
import { OPERATION_ORCHESTRATOR, operationOrchestrator } from '../../functions/operation-orchestrator';
import { onePage } from '../../src/engine/ports';
import { createAzurePorts } from '../../src/host/azure-ports';
import { ActivityName, type ApplyOperationInput } from '../../src/host/contracts/operation-activities';
import { createHostCore, type HostCore } from '../../src/host/host-services';
import { silentLogger } from '../../src/host/local/logger';
import type { OperationLauncher } from '../../src/host/trigger-submitter';
import { prefixedStorageNames } from '../../src/storage/names';
import { runOrchestration } from '../support/durable-replay';
import { testConnectionString, uniquePrefix } from '../support/storage';

const INSTANCES = 30;

const tasks = (version: 1 | 2) => ({
  id: 'tasks',
  displayName: `Tasks ${version}`,
  initialStateId: 'todo',
  states: {
    todo: { transitions: [{ id: 'start', targetStateId: 'doing', conditions: [{ type: 'triggerName' as const, name: 'Start' }] }] },
    doing: { transitions: [{ id: version === 1 ? 'finish' : 'complete', targetStateId: 'todo', conditions: [{ type: 'triggerName' as const, name: 'Finish' }] }] },
  },
});

let core: HostCore;
const started: string[] = [];
const ids = Array.from({ length: INSTANCES }, (_, index) => `task-${String(index).padStart(2, '0')}`);

beforeAll(async () => {
  const env = { SIGNALBOX_STORAGE: testConnectionString() };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(uniquePrefix('fomr')) });
  core = createHostCore({ ports, logger: silentLogger, env });
  const version1 = await core.engine.createWorkflow(tasks(1));
  for (const instanceId of ids) await core.engine.createInstance({ workflowId: 'tasks', instanceId });
  await core.engine.addWorkflowVersion(tasks(2), { ifMatch: version1.etag });
}, 120_000);

describe('a migration whose activities the durable orchestrator runs again after a host crash', () => {
  it('reports each instance once, migrated, and migrates none twice', async () => {
    const launcher: OperationLauncher = { start: async (operationId) => void started.push(operationId) };
    const operation = await core.servicesFor(launcher).triggers.submitWork({ migration: { workflowId: 'tasks', fromVersion: 1, toVersion: 2, stateMap: {} } });
    expect(started).toContain(operation.id);

    const handlers = activityHandlers(core.activitiesFor(launcher));
    // Every third instance: the activity does its work, then the host stops before its answer is recorded.
    const lostAnswers = new Set(ids.filter((_, index) => index % 3 === 0));
    const ranAgain: string[] = [];
    const run = await runOrchestration(OPERATION_ORCHESTRATOR, { operationId: operation.id }, operation.id, {
      orchestrators: { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch },
      activities: {
        ...handlers,
        [ActivityName.applyOperation]: async (input: unknown) => {
          const { instanceId } = input as ApplyOperationInput;
          const answer = await handlers[ActivityName.applyOperation](input);
          if (lostAnswers.delete(instanceId)) throw new Error('the host stopped before the completion was recorded');
          if (ids.indexOf(instanceId) % 3 === 0) ranAgain.push(instanceId);
          return answer;
        },
      },
    });
    expect(run.status).toBe('completed');
    expect(ranAgain.sort()).toEqual(ids.filter((_, index) => index % 3 === 0));

    const finished = (await core.operations.get(operation.id))!;
    expect(finished).toMatchObject({ status: 'succeeded', candidates: INSTANCES, summary: { migrated: INSTANCES, skipped: 0, notMigratable: 0, failed: 0 } });
    const results = finished.instances.length > 0 ? finished.instances : (await onePage(core.operations.listResults(operation.id), { maxPageSize: 1000 })).items;
    expect(results.map((result) => [result.instanceId, result.outcome]).sort()).toEqual(ids.map((id) => [id, 'migrated']));
    for (const instanceId of ids) {
      const history = await core.engine.getHistory(instanceId);
      expect(history.items.filter((entry) => entry.event === 'migrated').map((entry) => entry.operationId)).toEqual([operation.id]);
    }
  }, 120_000);
});
