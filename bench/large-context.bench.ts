/**
 * `npm run bench:large-context`: what a large context costs (issue 41 section 2), on an in-memory Azurite
 * started for the run. For contexts of 10 KB, 400 KB (the largest band kept inline: a Table entity counts
 * UTF-16, so about 500,000 characters fit), 1 MB and 10 MB: the latency and the storage requests of a
 * store read, a store save (replacing the previous version), and a whole trigger application through the
 * engine (lease, read, decide, save, release). Prints figures; asserts nothing.
 *
 *   BENCH_ITERATIONS (default 5) per size; the median and the slowest are reported.
 */
import { performance } from 'node:perf_hooks';
import { Engine } from '../src/engine/engine';
import type { Instance, JsonObject } from '../src/engine/model';
import { silentLogger } from '../src/engine/steps';
import { startAzurite } from '../src/host/local/azurite';
import { createAzureStorage } from '../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter, type RequestCounts } from '../src/storage/request-counter';
import { loadAverage, runBench } from './support/bench-support';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5);
const SIZES: readonly { label: string; bytes: number }[] = [
  { label: '10 KB', bytes: 10_000 },
  { label: '400 KB', bytes: 400_000 },
  { label: '1 MB', bytes: 1_000_000 },
  { label: '10 MB', bytes: 10_000_000 },
];

/** Touches the context on every trigger, so each application saves the whole instance again. */
const touchingWorkflow = {
  id: 'touch',
  displayName: 'Touch',
  initialStateId: 'on',
  states: {
    on: { transitions: [{ id: 'touch', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Touch' }], actions: [{ type: 'setContext', expressions: { count: 'context.count + 1' } }] }] },
  },
};

/** A context of about `bytes` bytes of JSON: keys of 10,000 characters each. */
function contextOf(bytes: number): JsonObject {
  const data: JsonObject = {};
  for (let index = 0; index * 10_000 < bytes; index++) data[`k${index}`] = String.fromCharCode(97 + (index % 26)).repeat(Math.min(10_000, bytes - index * 10_000));
  return { count: 0, data };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const round = (value: number) => Math.round(value * 10) / 10;

/** Requests by kind, e.g. `table GET 1, blob GET 1`. */
function kinds(counts: RequestCounts, iterations: number): string {
  return Object.entries(counts.byKind)
    .map(([kind, count]) => `${kind} ${round(count / iterations)}`)
    .join(', ');
}

async function main(): Promise<void> {
  const azurite = await startAzurite();
  const counter = createRequestCounter();
  try {
    const storage = await createAzureStorage({ connection: azurite.connectionString, names: prefixedStorageNames('largebench'), requestCounter: counter });
    const engine = new Engine({ ...storage, leases: storage.leases }, { logger: silentLogger });
    await engine.createWorkflow(touchingWorkflow);
    const rows: Record<string, unknown>[] = [];
    for (const size of SIZES) {
      const instanceId = `large-${size.bytes}`;
      const created = await engine.createInstance({ workflowId: 'touch', instanceId, context: contextOf(size.bytes) });
      const jsonBytes = Buffer.byteLength(JSON.stringify(created), 'utf8');

      const reads: number[] = [];
      const saves: number[] = [];
      let readCounts: RequestCounts | undefined;
      let saveCounts: RequestCounts | undefined;
      for (let iteration = 0; iteration < ITERATIONS; iteration++) {
        counter.reset();
        let start = performance.now();
        const stored = (await storage.instances.get(instanceId))!;
        reads.push(performance.now() - start);
        readCounts = counter.counts();
        const next: Instance = { ...stored, context: { ...stored.context, count: (stored.context.count as number) + 1 } };
        counter.reset();
        start = performance.now();
        await storage.instances.save(next, {}, { ifMatch: stored.etag });
        saves.push(performance.now() - start);
        saveCounts = counter.counts();
      }

      const applications: number[] = [];
      counter.reset();
      for (let iteration = 0; iteration < ITERATIONS; iteration++) {
        const start = performance.now();
        const result = await engine.applyTrigger(instanceId, { id: `touch-${size.bytes}-${iteration}`, name: 'Touch', subjects: [instanceId] });
        applications.push(performance.now() - start);
        if (result.outcome !== 'transitioned') throw new Error(`touch ${iteration} of ${instanceId}: ${result.outcome}`);
      }
      const applicationCounts = counter.counts();
      rows.push({
        context: size.label,
        instanceJsonBytes: jsonBytes,
        keptIn: readCounts!.blob > 0 ? 'blob' : 'entity',
        readMs: { median: round(median(reads)), max: round(Math.max(...reads)) },
        readRequests: kinds(readCounts!, 1),
        saveMs: { median: round(median(saves)), max: round(Math.max(...saves)) },
        saveRequests: kinds(saveCounts!, 1),
        triggerMs: { median: round(median(applications)), max: round(Math.max(...applications)) },
        triggerRequests: kinds(applicationCounts, ITERATIONS),
      });
      await engine.deleteInstance(instanceId, { force: true });
    }
    console.log(
      JSON.stringify(
        {
          iterations: ITERATIONS,
          loadAverage: loadAverage(),
          machine: 'shared 2-core machine, loaded by other work; in-memory Azurite on loopback: figures are indicative, Azure adds network time per request and per MB',
          rows,
        },
        null,
        2,
      ),
    );
  } finally {
    await azurite.stop();
  }
}

runBench(main);
