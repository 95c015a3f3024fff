/**
 * `npm run bench:search`: finding instances by business data on an in-memory Azurite started for the run.
 * Prints figures; asserts nothing.
 *
 * Seeds BENCH_INSTANCES (default 100,000; Azurite takes minutes for that, so e.g. BENCH_INSTANCES=10000
 * for a quick run) instances of a workflow with four declared indexes directly through the stores (the
 * instance row and its search rows, as the engine's create writes them), then measures, with every
 * storage request counted:
 *
 * 1. a selective equality (one instance), 2. a range returning 1% of the instances, 3. a count grouped
 *    by state over every instance: time and storage requests of each, against the floor of reading the
 *    same rows directly (the index rows alone, and the matched instances by point reads);
 * 4. storage requests per save of a workflow with four indexes against the same workflow with none.
 */
import { performance } from 'node:perf_hooks';
import { silentLogger } from '../src/engine/steps';
import { Engine } from '../src/engine/engine';
import type { Instance } from '../src/engine/model';
import type { WorkflowDefinitionInput } from '../src/engine/definition';
import { entriesOf, searchValuesOf } from '../src/engine/search';
import { startAzurite } from '../src/host/local/azurite';
import { createAzureStorage } from '../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 100_000);
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

async function main(): Promise<void> {
  const azurite = await startAzurite();
  try {
    const counter = createRequestCounter();
    const storage = await createAzureStorage({ connection: azurite.connectionString, names: prefixedStorageNames('benchsearch'), requestCounter: counter });
    const engine = new Engine({ ...storage }, { logger: silentLogger });
    await engine.createWorkflow(orders('orders', true));
    await engine.createWorkflow(orders('plain', false));
    const template = await engine.createInstance({ workflowId: 'orders', instanceId: 'template', context: { amount: -1 } });
    const { definition } = (await storage.workflows.get('orders'))!;

    console.log(`Seeding ${INSTANCES} instances of a workflow with 4 declared indexes (instance row + one batch of search rows each)...`);
    const seeding = performance.now();
    await inParallel(INSTANCES, async (index) => {
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
      await storage.search.write('orders', instance.id, { add: entries, remove: [], incarnation: instance.incarnation! });
      await storage.instances.create({ ...instance, search: { entries } });
    });
    console.log(`  seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);

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

    await measure('3. count grouped by stateId (every instance)', async () => (await engine.countInstances({ workflowId: 'orders', groupBy: 'stateId' })).count);
    const all = await floor('createdAt!', 'createdAt"');
    await measure('   floor: every createdAt index row only', async () => (await floor('createdAt!', 'createdAt"')).length);
    await measure('   floor: every instance by point read', () => pointReads(all));

    console.log('\n4. Storage requests per save (a trigger applied; 20 saves each, mean)');
    for (const workflowId of ['plain', 'orders']) {
      const instanceId = `${workflowId}-saves`;
      await engine.createInstance({ workflowId, instanceId, context: { amount: 1, customer: 'c', region: 'north', placedAt: '2026-01-01T00:00:00Z' } });
      await engine.applyTrigger(instanceId, { id: `${workflowId}-warm`, name: 'Next', subjects: [instanceId] });
      counter.reset();
      for (let index = 0; index < 20; index++) await engine.applyTrigger(instanceId, { id: `${workflowId}-${index}`, name: 'Next', subjects: [instanceId] });
      const counts = counter.counts();
      const search = Object.entries(counts.byKind).filter(([kind]) => kind.includes('$batch'));
      console.log(
        `   ${workflowId === 'plain' ? 'no indexes  ' : '4 indexes   '} ${(counts.total / 20).toFixed(2)} requests per save  (${search.map(([kind, n]) => `${kind}: ${(n / 20).toFixed(2)}`).join(', ')})`,
      );
    }
  } finally {
    await azurite.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
