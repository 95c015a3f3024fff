/**
 * `npm run bench:migration`: a migration of BENCH_INSTANCES (default 10,000) instances on the local
 * host's fan-out (the in-process operation runner over the real activities), on an in-memory Azurite
 * started for the run. Prints figures; asserts nothing.
 *
 * - the dry run: seconds for the report over every instance;
 * - the real run: instances per second from submission to the operation's completion, storage requests
 *   per instance (every table and blob call, counted by a pipeline policy), and peak memory (RSS and
 *   heap, sampled every 50 ms during the run).
 * - a bulk suspend of the same instances, for comparison (BENCH_BULK=0 skips it).
 */
import { performance } from 'node:perf_hooks';
import { startAzurite } from '../src/host/local/azurite';
import { createAzurePorts } from '../src/host/azure-ports';
import { LocalOperationRunner } from '../src/host/local/local-operation-runner';
import { silentLogger } from '../src/host/local/logger';
import { createHostCore } from '../src/host/host-services';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';
import { runBench } from './support/bench-support';

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 10_000);

const v1 = {
  id: 'claim',
  displayName: 'Claim',
  initialStateId: 'submitted',
  states: {
    submitted: { interests: ['claims', 'owner:{{context.owner}}'], transitions: [{ id: 'approve', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Approve' }] }] },
    paid: {},
  },
};
const v2 = {
  ...v1,
  initialStateId: 'review',
  states: {
    review: { interests: ['claims', 'owner:{{context.owner}}', 'reviewers'], transitions: [{ id: 'approve', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Approve' }] }] },
    paid: {},
  },
};

function peakSampler() {
  let rss = 0;
  let heap = 0;
  const sample = () => {
    const usage = process.memoryUsage();
    rss = Math.max(rss, usage.rss);
    heap = Math.max(heap, usage.heapUsed);
  };
  sample();
  const timer = setInterval(sample, 50);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { rssMiB: Math.round(rss / 1048576), heapMiB: Math.round(heap / 1048576) };
    },
  };
}

async function main(): Promise<void> {
  const azurite = await startAzurite();
  const requestCounter = createRequestCounter();
  try {
    const env = { SIGNALBOX_STORAGE: azurite.connectionString };
    const ports = await createAzurePorts({ env, names: prefixedStorageNames('migbench'), requestCounter });
    const core = createHostCore({ ports, logger: silentLogger, env });
    const runner = new LocalOperationRunner(silentLogger, (launcher) => core.activitiesFor(launcher));
    const services = core.servicesFor(runner);
    const { engine } = services;

    await engine.createWorkflow(v1);
    const createStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < INSTANCES) {
          const index = next++;
          await engine.createInstance({ workflowId: 'claim', instanceId: `claim-${String(index).padStart(6, '0')}`, context: { owner: `o${index % 100}` } });
        }
      }),
    );
    const createSeconds = (performance.now() - createStart) / 1000;
    await engine.addWorkflowVersion(v2, { ifMatch: '*' });
    const { request } = await engine.migrationsAndBulkActions.parseMigration('claim', { fromVersion: 1, toVersion: 2, stateMap: { submitted: 'review' } });

    const dryStart = performance.now();
    const report = await engine.migrationsAndBulkActions.migrationReport(request);
    const drySeconds = (performance.now() - dryStart) / 1000;

    requestCounter.reset();
    const memory = peakSampler();
    const runStart = performance.now();
    const operation = await services.triggers.submitWork({ migration: request });
    await runner.whenDone(operation.id);
    const runSeconds = (performance.now() - runStart) / 1000;
    const peak = memory.stop();
    const counts = requestCounter.counts();
    const finished = await ports.operations.get(operation.id);
    const round = (value: number, digits = 1) => Number(value.toFixed(digits));
    const migration = {
      status: finished?.status,
      summary: finished?.summary,
      seconds: round(runSeconds),
      instancesPerSecond: round(INSTANCES / runSeconds),
      storageRequestsPerInstance: round(counts.total / INSTANCES, 2),
      tableRequestsPerInstance: round(counts.table / INSTANCES, 2),
      blobRequestsPerInstance: round(counts.blob / INSTANCES, 2),
      byKind: Object.fromEntries(Object.entries(counts.byKind).map(([kind, count]) => [kind, round(count / INSTANCES, 2)])),
      peakMemory: peak,
    };
    // Printed at once: the bulk comparison below takes as long again.
    console.log(
      JSON.stringify({ instances: INSTANCES, created: { seconds: round(createSeconds), perSecond: round(INSTANCES / createSeconds) }, dryRun: { seconds: round(drySeconds) }, migration }, null, 2),
    );
    if (process.env.BENCH_BULK === '0') {
      await runner.stop();
      return;
    }

    requestCounter.reset();
    const bulkStart = performance.now();
    const bulk = await services.triggers.submitWork({ bulk: { action: 'suspend', filter: { workflowId: 'claim', stateId: 'review' } } });
    await runner.whenDone(bulk.id);
    const bulkSeconds = (performance.now() - bulkStart) / 1000;
    const bulkCounts = requestCounter.counts();
    const bulkFinished = await ports.operations.get(bulk.id);

    console.log(
      JSON.stringify(
        {
          instances: INSTANCES,
          created: { seconds: round(createSeconds), perSecond: round(INSTANCES / createSeconds) },
          dryRun: { seconds: round(drySeconds), rows: report.rows.map((row) => ({ from: row.fromStateId, to: row.toStateId, count: row.count })) },
          migration,
          bulkSuspend: {
            status: bulkFinished?.status,
            summary: bulkFinished?.summary,
            seconds: round(bulkSeconds),
            instancesPerSecond: round(INSTANCES / bulkSeconds),
            storageRequestsPerInstance: round(bulkCounts.total / INSTANCES, 2),
          },
          machine: 'shared 2-core machine, loaded by other work: figures are indicative, not a capacity statement',
        },
        null,
        2,
      ),
    );
    await runner.stop();
  } finally {
    await azurite.stop();
  }
}

runBench(main);
