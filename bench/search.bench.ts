/**
 * `npm run bench:search`: finding instances by business data on an in-memory Azurite started for the run.
 * Prints figures; asserts nothing.
 *
 * Seeds BENCH_SEARCH_INSTANCES (default 100,000; e.g. BENCH_SEARCH_INSTANCES=10000 for a quick run)
 * instances of a workflow with four declared indexes. Seeding goes around the API and the engine, for
 * speed: each instance row is the engine's own creation of a template instance with the id,
 * incarnation, state, times and context changed, created through the instance
 * store; its search rows are the entries the engine computes for it (entriesOf, as a save does), written
 * by the search store 100 to a transaction across instances (addMany: the same keys and columns as a
 * save's batch). Only the `created` history row, the interest rows and the lease blob a creation also
 * writes are left out (no search reads them; without the history rows 100,000 instances fit in the one
 * JSON string Azurite saves its database as). Azurite fills one partition in time growing with the square of its rows, so the data is
 * prepared once per size as an Azurite data folder (bench/search-data.ts says how and why) and each run
 * starts Azurite on a copy of it; BENCH_SEARCH_SEED=direct seeds an in-memory Azurite as before (fine up to
 * about 10,000). Then it measures, with every storage request counted:
 *
 * 1. a selective equality (one instance), 2. a range returning 1% of the instances, 3. a count grouped
 *    by state over every instance (from the index rows), and the same count after 1% of the instances
 *    moved through the engine (their stale rows wait for their next save, so those are read), and a count
 *    of the 1% range grouped by state: time and storage requests of each, against the floor of reading
 *    the same rows directly (the index rows alone, and the matched instances by point reads);
 * 4. storage requests per save of a workflow with four indexes against the same workflow with none, and
 *    the extra requests per save per declared index.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { silentLogger } from '../src/engine/steps';
import { Engine } from '../src/engine/engine';
import type { Instance } from '../src/engine/model';
import type { WorkflowDefinitionInput } from '../src/engine/definition';
import { entriesOf, searchValuesOf } from '../src/engine/search';
import { startAzurite, type RunningAzurite } from '../src/host/local/azurite';
import { createTableClient } from '../src/storage/connection';
import { TableSearchIndex } from '../src/storage/table-search-index';
import { chunkWorkflowId, copyForRun, dataFolder, isPrepared, prepare, SEED_CHUNK, startAzuriteOn } from './search-data';
import { createAzureStorage } from '../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';
import { runBench } from './support/bench-support';

const INSTANCES = Number(process.env.BENCH_SEARCH_INSTANCES ?? 100_000);
/** Instances whose rows go in one round of the seeding (their instance rows in parallel, their search rows packed). */
const SEED_BATCH = SEED_CHUNK;
/** Instances whose search rows share a transaction: 8 rows each here (4 declared, 4 built-in fields with a value), 96 rows. */
const DIRECT = process.env.BENCH_SEARCH_SEED === 'direct';
/** Bump when the seeded data changes: a prepared folder of another version is not reused. */
const DATA_VERSION = 'v1';
const PACK = 12;
const CONCURRENCY = 64;
const STATES = ['received', 'review', 'approved', 'paid'];

function orders(id: string, indexed: boolean): WorkflowDefinitionInput {
  return {
    id,
    displayName: 'Orders',
    initialStateId: 'received',
    ...(indexed
      ? {
          indexes: [
            { name: 'amount', type: 'number', expression: 'context.amount' },
            { name: 'customer', type: 'string', expression: 'context.customer' },
            { name: 'region', type: 'keyword', expression: 'context.region' },
            { name: 'placedAt', type: 'datetime', expression: 'context.placedAt' },
          ],
        }
      : {}),
    states: Object.fromEntries(
      STATES.map((state, index) => [
        state,
        {
          transitions: [
            {
              id: 'next',
              targetStateId: STATES[(index + 1) % STATES.length]!,
              conditions: [{ type: 'triggerName', name: 'Next' }],
              actions: [{ type: 'setContext', expressions: { amount: 'context.amount + 1' } }],
            },
          ],
        },
      ]),
    ),
  };
}

async function inParallel(count: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

const names = prefixedStorageNames('benchsearch');

/**
 * Seeds the workflows, the template instance and INSTANCES instances. `searchOf(round)` is the search
 * store a round's rows go to, and under which workflow id (direct: the store itself and `orders`).
 */
async function seed(azurite: RunningAzurite, searchOf: (round: number) => Promise<{ store: TableSearchIndex; workflowId: string }>): Promise<void> {
  const storage = await createAzureStorage({ connection: azurite.connectionString, names });
  const engine = new Engine({ ...storage }, { logger: silentLogger });
  await engine.createWorkflow(orders('orders', true));
  await engine.createWorkflow(orders('plain', false));
  const template = await engine.createInstance({ workflowId: 'orders', instanceId: 'template', context: { amount: -1 } });
  const { definition } = (await storage.workflows.get('orders'))!;

  console.log(`Seeding ${INSTANCES} instances of a workflow with 4 declared indexes (instance rows in parallel, search rows 100 to a transaction)...`);
  const seeding = performance.now();
  const phases = { compute: 0, rows: 0, instances: 0 };
  for (let first = 0; first < INSTANCES; first += SEED_BATCH) {
    let phase = performance.now();
    const round = await Promise.all(
      Array.from({ length: Math.min(SEED_BATCH, INSTANCES - first) }, async (_, offset) => {
        const index = first + offset;
        const { etag: _etag, search: _search, ...base } = template;
        const at = new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString();
        const instance: Instance = {
          ...base,
          id: `order-${index}`,
          incarnation: `inc${index}`,
          interests: [`order-${index}`],
          stateId: STATES[index % STATES.length]!,
          createdAt: at,
          updatedAt: at,
          context: { amount: index, customer: `customer-${index}`, region: ['north', 'south', 'east', 'west'][index % 4]!, placedAt: at },
        };
        const { entries } = await entriesOf(definition, await searchValuesOf(definition, instance));
        return { instance: { ...instance, search: { entries } }, entries };
      }),
    );
    phases.compute += performance.now() - phase;
    phase = performance.now();
    // The rows first, as a save writes them before the instance.
    const search = await searchOf(first / SEED_BATCH);
    const packs: (typeof round)[] = [];
    for (let start = 0; start < round.length; start += PACK) packs.push(round.slice(start, start + PACK));
    await inParallel(packs.length, async (pack) => {
      // Upserts: a pack Azurite dropped under load (ECONNRESET) is sent again.
      for (let attempt = 1; ; attempt++) {
        try {
          await search.store.addMany(
            search.workflowId,
            packs[pack]!.map(({ instance, entries }) => ({ instanceId: instance.id, entries, incarnation: instance.incarnation! })),
          );
          return;
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
    });
    phases.rows += performance.now() - phase;
    phase = performance.now();
    await inParallel(round.length, async (at) => {
      const { instance } = round[at]!;
      await storage.instances.create(instance);
    });
    phases.instances += performance.now() - phase;
    if ((first / SEED_BATCH) % 10 === 9 || process.env.BENCH_VERBOSE) {
      const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
      console.log(
        `  ${first + round.length} seeded, ${seconds(performance.now() - seeding)} (values ${seconds(phases.compute)}, search rows ${seconds(phases.rows)}, instance rows ${seconds(phases.instances)}), load ${os.loadavg()[0]!.toFixed(1)}`,
      );
    }
  }
  console.log(`  seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);
}

/** Azurite holding the seeded data: seeded now in memory (direct), or started on a copy of the prepared folder. */
async function seededAzurite(): Promise<RunningAzurite> {
  if (DIRECT) {
    const azurite = await startAzurite();
    const storage = await createAzureStorage({ connection: azurite.connectionString, names });
    await seed(azurite, async () => ({ store: storage.search, workflowId: 'orders' }));
    return azurite;
  }
  const folder = dataFolder(INSTANCES, DATA_VERSION);
  if (isPrepared(folder)) console.log(`Seeded data: ${folder} (prepared earlier; delete it to seed again)`);
  else {
    console.log(`Preparing the seeded data in ${folder} (once for this size), load ${os.loadavg()[0]!.toFixed(1)}`);
    const started = performance.now();
    await prepare(folder, names.searchTable, 'orders', (azurite) =>
      seed(azurite, async (round) => {
        const client = createTableClient({ kind: 'connectionString', connectionString: azurite.connectionString }, names.searchTable);
        return { store: new TableSearchIndex(client), workflowId: chunkWorkflowId('orders', round) };
      }),
    );
    console.log(`  prepared in ${((performance.now() - started) / 1000).toFixed(0)} s, load ${os.loadavg()[0]!.toFixed(1)}\n`);
  }
  const started = performance.now();
  const azurite = await startAzuriteOn(await copyForRun(folder));
  console.log(
    `Azurite started on a copy of it in ${((performance.now() - started) / 1000).toFixed(1)} s (it saves its database only as it stops, as the in-memory Azurite of BENCH_SEARCH_SEED=direct never does)\n`,
  );
  return azurite;
}

async function main(): Promise<void> {
  const azurite = await seededAzurite();
  try {
    const counter = createRequestCounter();
    const storage = await createAzureStorage({ connection: azurite.connectionString, names, requestCounter: counter });
    const engine = new Engine({ ...storage }, { logger: silentLogger });

    const measure = async (label: string, run: () => Promise<number>) => {
      counter.reset();
      const started = performance.now();
      const answered = await run();
      const ms = performance.now() - started;
      const counts = counter.counts();
      console.log(`${label.padEnd(58)} ${String(answered).padStart(7)} answered  ${ms.toFixed(0).padStart(7)} ms  ${String(counts.total).padStart(7)} requests`);
      return { ms, requests: counts.total };
    };
    const allPages = async (filter: string) => {
      let count = 0;
      let token: string | undefined;
      do {
        const page = await engine.searchInstances({ workflowId: 'orders', filter }, { maxPageSize: 1000, ...(token ? { continuationToken: token } : {}) });
        count += page.items.length;
        token = page.continuationToken;
      } while (token);
      return count;
    };
    const floor = async (from: string, to: string) => {
      const ids: string[] = [];
      let token: string | undefined;
      do {
        const page = await storage.search.scan('orders', { from, to }, { maxPageSize: 1000, ...(token ? { continuationToken: token } : {}) });
        ids.push(...page.items.map((row) => row.instanceId));
        token = page.continuationToken;
      } while (token);
      return ids;
    };
    const pointReads = async (ids: readonly string[]) => {
      await inParallel(ids.length, async (index) => void (await storage.instances.get(ids[index]!)));
      return ids.length;
    };

    const target = Math.floor(INSTANCES / 2);
    console.log('Query                                                      answered         time   requests');
    const equality = `customer = 'customer-${target}'`;
    const plan = (await engine.searchInstances({ workflowId: 'orders', filter: equality })).explain;
    await measure(`1. ${equality}`, () => allPages(equality));
    await measure('   floor: its index rows only', async () => (await floor(plan.index.from, plan.index.to)).length);
    await measure('   floor: its instances by point read', () => pointReads([`order-${target}`]));

    const width = Math.max(1, Math.floor(INSTANCES / 100));
    const range = `amount between ${target} and ${target + width - 1}`;
    const rangePlan = (await engine.searchInstances({ workflowId: 'orders', filter: range })).explain;
    await measure(`2. ${range} (1%)`, () => allPages(range));
    const rangeIds = await floor(rangePlan.index.from, rangePlan.index.to);
    await measure('   floor: its index rows only', async () => (await floor(rangePlan.index.from, rangePlan.index.to)).length);
    await measure('   floor: its instances by point read', () => pointReads(rangeIds));

    const grouped = () => engine.countInstances({ workflowId: 'orders', groupBy: 'stateId' });
    await measure('3. count grouped by stateId (every instance)', async () => (await grouped()).count);
    console.log(`   ${(await grouped()).explain.counted}`);
    await measure('   floor: every stateId index row only', async () => (await floor('stateId!', 'stateId"')).length);
    const all = await floor('createdAt!', 'createdAt"');
    await measure('   the old way: every instance by point read', () => pointReads(all));
    const rangeCount = () => engine.countInstances({ workflowId: 'orders', groupBy: 'stateId', filter: range });
    await measure(`   count of ${range}, grouped by stateId`, async () => (await rangeCount()).count);
    const moved = rangeIds.slice(0, width);
    await inParallel(moved.length, async (index) => void (await engine.applyTrigger(moved[index]!, { id: `move-${index}`, name: 'Next', subjects: [moved[index]!] })));
    const after = await measure(`   after ${moved.length} instances (1%) moved: grouped by stateId`, async () => (await grouped()).count);
    console.log(`   of which instance reads: ${(await grouped()).explain.storageRequests.instanceReads} (the moved ones: their stale rows wait for their next save); ${after.requests} requests`);

    console.log('\n4. Storage requests per save (a trigger applied; 20 saves each, mean)');
    const perSave: number[] = [];
    for (const workflowId of ['plain', 'orders']) {
      const instanceId = `${workflowId}-saves`;
      await engine.createInstance({ workflowId, instanceId, context: { amount: 1, customer: 'c', region: 'north', placedAt: '2026-01-01T00:00:00Z' } });
      await engine.applyTrigger(instanceId, { id: `${workflowId}-warm`, name: 'Next', subjects: [instanceId] });
      counter.reset();
      for (let index = 0; index < 20; index++) await engine.applyTrigger(instanceId, { id: `${workflowId}-${index}`, name: 'Next', subjects: [instanceId] });
      const counts = counter.counts();
      perSave.push(counts.total / 20);
      const search = Object.entries(counts.byKind).filter(([kind]) => kind.includes('$batch'));
      console.log(
        `   ${workflowId === 'plain' ? 'no indexes  ' : '4 indexes   '} ${(counts.total / 20).toFixed(2)} requests per save  (${search.map(([kind, n]) => `${kind}: ${(n / 20).toFixed(2)}`).join(', ')})`,
      );
    }
    console.log(`   extra: ${(perSave[1]! - perSave[0]!).toFixed(2)} requests per save with 4 indexes, ${((perSave[1]! - perSave[0]!) / 4).toFixed(2)} per declared index`);
  } finally {
    await azurite.stop();
  }
}

runBench(main);
