/**
 * `npm run bench:tenants`: noisy neighbours (issue 28 section 4). One local server with two real tenants,
 * each through `/api/tenants/{tenantId}/...`: tenant A (its registry record's quota overrides: BENCH_QUOTA
 * triggers per second, burst 1) floods at 10x its trigger quota, each trigger it gets a broadcast to all its
 * instances, while tenant B sends single triggers one at a time (`Prefer: wait`). B's p50 and p95 are printed
 * alone, with A's flood under the fair scheduler with no cap per tenant, and with a cap (FairScheduler
 * `maxPerKey`, SIGNALBOX_RUNNER_SLOTS_PER_TENANT). Each run is a server of its own, on storage of its own
 * (A's backlog is left behind). Prints tables; asserts nothing. Goal: B's p95 with the flood at most 20%
 * above B's p95 alone.
 *
 *   BENCH_BROADCAST_INSTANCES (default 1000): tenant A's instances, each trigger of A goes to all
 *   BENCH_QUOTA (default 1): A's triggers per second (burst 1); A sends 10 times as many
 *   BENCH_SAMPLES (default 60): B's triggers per run, one at a time, BENCH_GAP_MS (default 100) apart
 *   BENCH_CONCURRENCY (default 16): the scheduler's slots; BENCH_MAX_PER_TENANT (default a quarter of
 *   them): the cap per tenant of the capped run
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import counterWorkflow from '../examples/counter.json';
import { startAzurite, type RunningAzurite } from '../src/host/local/azurite';
import { FairScheduler } from '../src/host/local/concurrency';
import { startLocalHost, type LocalHost } from '../src/host/local/local-host';
import { silentLogger } from '../src/host/local/logger';
import { prefixedStorageNames } from '../src/storage/names';
import { json, percentile, loadAverage, runBench } from './support/bench-support';

const TENANT_A = 'bench-tenant-a';
const TENANT_B = 'bench-tenant-b';

const BROADCAST = Number(process.env.BENCH_BROADCAST_INSTANCES ?? 1000);
const QUOTA = Number(process.env.BENCH_QUOTA ?? 1);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const MAX_PER_TENANT = Number(process.env.BENCH_MAX_PER_TENANT ?? Math.max(1, Math.floor(CONCURRENCY / 4)));
/** A's flood: ten times its quota. */
const FLOOD_PER_SECOND = QUOTA * 10;

/** One trigger of B to its one instance, until its operation has finished: milliseconds. */
async function singleTrigger(base: string): Promise<number> {
  const started = performance.now();
  const answer = await json(`${base}/triggers`, 'POST', { name: 'Increment', subjects: ['b-1'] }, { prefer: 'wait=60' });
  if (answer.status === 429) throw new Error('tenant B was refused: its own quota is too small for the bench');
  let finished = answer.status === 200;
  while (!finished) finished = (await json(`${base}/operations/${answer.body.operationId}`, 'GET', undefined, { prefer: 'wait=60' })).status === 200;
  return performance.now() - started;
}

async function createInstances(base: string, ids: readonly string[], clients = 8): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < ids.length) {
        const instanceId = ids[next++]!;
        const created = await json(`${base}/instances`, 'POST', { workflowId: 'counter', instanceId, context: { count: 0 } });
        if (created.status !== 201) throw new Error(`creating ${instanceId} answered ${created.status}`);
      }
    }),
  );
}

interface Tenants {
  /** `/api/tenants/{tenantId}` of each tenant on the one server. */
  readonly a: string;
  readonly b: string;
  stop(): Promise<void>;
}

/** One server on Azurite with tenants A (its quota overridden) and B; `maxPerTenant` caps the slots one tenant's runner holds. */
async function startTenants(azurite: RunningAzurite, run: string, maxPerTenant: number | undefined): Promise<Tenants> {
  const host: LocalHost = await startLocalHost({
    env: { SIGNALBOX_STORAGE: azurite.connectionString },
    runner: { scheduler: new FairScheduler(CONCURRENCY, maxPerTenant === undefined ? {} : { maxPerKey: maxPerTenant }) },
    port: 0,
    storageNames: prefixedStorageNames(run),
    logger: silentLogger,
  });
  const quotas = { [TENANT_A]: { triggersPerSecond: QUOTA, triggerBurst: Math.max(1, Math.ceil(QUOTA)) }, [TENANT_B]: undefined };
  for (const [tenant, overrides] of Object.entries(quotas)) {
    const created = await json(`${host.url}/api/tenants/${tenant}`, 'PUT', overrides ? { quotas: overrides } : {});
    if (created.status !== 201) throw new Error(`PUT tenant ${tenant} answered ${created.status}: ${JSON.stringify(created.body)}`);
    const put = await json(`${host.url}/api/tenants/${tenant}/workflows/counter`, 'PUT', counterWorkflow);
    if (put.status !== 201) throw new Error(`PUT workflow answered ${put.status}`);
  }
  const a = `${host.url}/api/tenants/${TENANT_A}`;
  const b = `${host.url}/api/tenants/${TENANT_B}`;
  await createInstances(
    a,
    Array.from({ length: BROADCAST }, (_, index) => `a-${index}`),
  );
  await createInstances(b, ['b-1']);
  return { a, b, stop: () => host.stop() };
}

/** A floods at FLOOD_PER_SECOND until `until` resolves; counts what was accepted and refused. */
async function flood(base: string, until: Promise<unknown>): Promise<{ accepted: number; refused: number }> {
  let done = false;
  void until.finally(() => (done = true));
  const counts = { accepted: 0, refused: 0 };
  const sent: Promise<void>[] = [];
  const begin = performance.now();
  for (let index = 0; !done; index += 1) {
    sent.push(
      json(`${base}/triggers`, 'POST', { name: 'Increment', subjects: ['counters'] }).then((answer) => {
        if (answer.status === 202) counts.accepted += 1;
        else if (answer.status === 429) counts.refused += 1;
        else throw new Error(`A's trigger answered ${answer.status}`);
      }),
    );
    // Paced against the start, so a slow answer does not slow the flood.
    const due = begin + ((index + 1) * 1000) / FLOOD_PER_SECOND;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
  }
  await Promise.all(sent);
  return counts;
}

/** B's triggers, one at a time, GAP_MS apart. */
async function samplesOf(base: string, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let index = 0; index < count; index += 1) {
    latencies.push(await singleTrigger(base));
    await new Promise((resolve) => setTimeout(resolve, GAP_MS));
  }
  return latencies.sort((x, y) => x - y);
}

async function main(): Promise<void> {
  const azurite = await startAzurite();
  const rows: Array<{ run: string; 'B p50 ms': string; 'B p95 ms': string; 'B p95 vs alone': string; 'A accepted / refused (429)': string; samples: number }> = [];
  const row = (run: string, latencies: readonly number[], alone: number | undefined, a?: { accepted: number; refused: number }) => {
    rows.push({
      run,
      'B p50 ms': percentile(latencies, 50).toFixed(1),
      'B p95 ms': percentile(latencies, 95).toFixed(1),
      'B p95 vs alone': alone === undefined ? '-' : `${((percentile(latencies, 95) / alone - 1) * 100).toFixed(0)}%`,
      'A accepted / refused (429)': a ? `${a.accepted} / ${a.refused}` : '-',
      samples: latencies.length,
    });
    // Each run as it ends: a long run on a busy machine still shows what it measured.
    console.log(JSON.stringify({ ...rows.at(-1), loadAverage: loadavg()[0]!.toFixed(1) }));
  };
  try {
    for (const [label, cap] of [
      ['no cap per tenant', undefined],
      [`at most ${MAX_PER_TENANT} slots per tenant`, MAX_PER_TENANT],
    ] as const) {
      const tenants = await startTenants(azurite, `tenants${cap ?? 0}${Date.now().toString(36)}`, cap);
      try {
        await samplesOf(tenants.b, 5); // warm-up
        const alone = await samplesOf(tenants.b, SAMPLES);
        // Each run against its own B alone: the machine's load moves between runs.
        const aloneP95 = percentile(alone, 95);
        row(`B alone, ${label}`, alone, undefined);
        const measuring = samplesOf(tenants.b, SAMPLES);
        const [withFlood, counts] = await Promise.all([measuring, flood(tenants.a, measuring)]);
        row(`B with A's flood (${FLOOD_PER_SECOND}/s at a quota of ${QUOTA}/s, ${BROADCAST} instances each), ${label}`, withFlood, aloneP95, counts);
      } finally {
        // A's backlog is not drained (long on a busy machine): stopping leaves it in that run's own tables.
        await tenants.stop();
      }
    }
    console.log(`\nSignalbox tenants benchmark: one local server, two tenants (/api/tenants/{tenantId}/...) on Azurite (in-memory), ${CONCURRENCY} slots shared fairly; load average ${loadAverage()}`);
    console.table(rows);
  } finally {
    await azurite.stop();
  }
}

runBench(main);
