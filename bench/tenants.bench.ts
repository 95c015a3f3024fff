/**
 * `npm run bench:tenants`: noisy neighbours (issue 28 section 4). Tenant A floods at 10x its trigger quota,
 * each trigger it gets in a broadcast to all its instances, while tenant B sends single triggers one at a
 * time (`Prefer: wait`); B's p50 and p95 are printed alone, with A's flood under the fair scheduler, and
 * with A's flood under a plain first-come queue (both tenants one fairness key: what the runner did before).
 * Prints tables; asserts nothing. Goal: B's p95 with the flood at most 20% above B's p95 alone.
 *
 * Until tenants land, a tenant is a local host of its own (its own tables and lease container on one
 * Azurite, its own HostCore and quotas) in this one process, and the two hosts' runners share one
 * FairScheduler, each with its tenant as its fairness key: what one process serving both tenants does once
 * tenants land (a HostCore per tenant, one scheduler), so then only the set-up changes (one server,
 * `/api/tenants/{tenantId}/...` routes), not what is measured.
 *
 *   BENCH_BROADCAST_INSTANCES (default 2000): tenant A's instances, each trigger of A goes to all
 *   BENCH_QUOTA (default 1): A's triggers per second (burst 1); A sends 10 times as many
 *   BENCH_SAMPLES (default 60): B's triggers per run, one at a time, BENCH_GAP_MS (default 100) apart
 *   BENCH_FIFO_SAMPLES (default 10), BENCH_FIFO_FLOOD_SECONDS (default 10): B's triggers of the first-come
 *   run, and how long A floods in it (B's triggers wait for A's backlog there)
 *   BENCH_CONCURRENCY (default 16): the shared scheduler's slots; BENCH_MAX_PER_TENANT (default a quarter
 *   of them): the most one tenant holds at once in the fair runs (FairScheduler maxPerKey)
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import counterWorkflow from '../examples/counter.json';
import { startAzurite, type RunningAzurite } from '../src/host/local/azurite';
import { FairScheduler } from '../src/host/local/concurrency';
import { startLocalHost, type LocalHost } from '../src/host/local/local-host';
import { silentLogger } from '../src/host/local/logger';
import { prefixedStorageNames } from '../src/storage/names';

const BROADCAST = Number(process.env.BENCH_BROADCAST_INSTANCES ?? 2000);
const QUOTA = Number(process.env.BENCH_QUOTA ?? 1);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 100);
const FIFO_SAMPLES = Number(process.env.BENCH_FIFO_SAMPLES ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const MAX_PER_TENANT = Number(process.env.BENCH_MAX_PER_TENANT ?? Math.max(1, Math.floor(CONCURRENCY / 4)));
const FIFO_FLOOD_SECONDS = Number(process.env.BENCH_FIFO_FLOOD_SECONDS ?? 10);
/** A's flood: ten times its quota. */
const FLOOD_PER_SECOND = QUOTA * 10;

type Json = any;

async function json(url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    method,
    headers: { 'x-signalbox-client': 'bench', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One trigger of B to its one instance, until its operation has finished: milliseconds. */
async function singleTrigger(base: string): Promise<number> {
  const started = performance.now();
  const answer = await json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: ['b-1'] }, { prefer: 'wait=60' });
  if (answer.status === 429) throw new Error('tenant B was refused: its own quota is too small for the bench');
  let finished = answer.status === 200;
  while (!finished) finished = (await json(`${base}/api/operations/${answer.body.operationId}`, 'GET', undefined, { prefer: 'wait=60' })).status === 200;
  return performance.now() - started;
}

async function createInstances(base: string, ids: readonly string[], clients = 8): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < ids.length) {
        const instanceId = ids[next++]!;
        const created = await json(`${base}/api/instances`, 'POST', { workflowId: 'counter', instanceId, context: { count: 0 } });
        if (created.status !== 201) throw new Error(`creating ${instanceId} answered ${created.status}`);
      }
    }),
  );
}

interface Tenants {
  readonly a: LocalHost;
  readonly b: LocalHost;
  stop(): Promise<void>;
}

/** Two tenants' hosts on one Azurite sharing one scheduler; `fair` false gives both one fairness key. */
async function startTenants(azurite: RunningAzurite, run: string, fair: boolean): Promise<Tenants> {
  const scheduler = new FairScheduler(CONCURRENCY, fair ? { maxPerKey: MAX_PER_TENANT } : {});
  const start = (tenant: string, env: Record<string, string>) =>
    startLocalHost({
      env: { SIGNALBOX_STORAGE: azurite.connectionString, ...env },
      port: 0,
      storageNames: prefixedStorageNames(`${run}${tenant}`),
      logger: silentLogger,
      runner: { scheduler, tenantId: fair ? `tenant-${tenant}` : 'one-queue' },
    });
  const a = await start('a', { SIGNALBOX_QUOTA_TRIGGERS_PER_SECOND: String(QUOTA), SIGNALBOX_QUOTA_TRIGGER_BURST: String(Math.max(1, Math.ceil(QUOTA))) });
  const b = await start('b', {});
  for (const host of [a, b]) {
    const put = await json(`${host.url}/api/workflows/counter`, 'PUT', counterWorkflow);
    if (put.status !== 201) throw new Error(`PUT workflow answered ${put.status}`);
  }
  await createInstances(
    a.url,
    Array.from({ length: BROADCAST }, (_, index) => `a-${index}`),
  );
  await createInstances(b.url, ['b-1']);
  return { a, b, stop: async () => void (await Promise.all([a.stop(), b.stop()])) };
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
      json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: ['counters'] }).then((answer) => {
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
    const fair = await startTenants(azurite, 'fair', true);
    let aloneP95: number;
    try {
      await samplesOf(fair.b.url, 5); // warm-up
      const alone = await samplesOf(fair.b.url, SAMPLES);
      aloneP95 = percentile(alone, 95);
      row('B alone', alone, undefined);
      const measuring = samplesOf(fair.b.url, SAMPLES);
      const [withFlood, counts] = await Promise.all([measuring, flood(fair.a.url, measuring)]);
      row(`B with A's flood (${FLOOD_PER_SECOND}/s at a quota of ${QUOTA}/s, ${BROADCAST} instances each), fair scheduler`, withFlood, aloneP95, counts);
    } finally {
      // A's backlog is not drained (hours on a busy machine): stopping leaves it in its own tables, untouched by the next run.
      await fair.stop();
    }
    const fifo = await startTenants(azurite, 'fifo', false);
    try {
      await samplesOf(fifo.b.url, 5);
      const measuring = samplesOf(fifo.b.url, FIFO_SAMPLES);
      // The flood stops after FIFO_FLOOD_SECONDS: behind one queue, B's samples wait for A's backlog.
      const stopFlood = Promise.race([measuring, new Promise((resolve) => setTimeout(resolve, FIFO_FLOOD_SECONDS * 1000))]);
      const [withFlood, counts] = await Promise.all([measuring, flood(fifo.a.url, stopFlood)]);
      row("B with A's flood, one first-come queue (no fairness, for comparison)", withFlood, aloneP95, counts);
    } finally {
      await fifo.stop();
    }
    console.log(
      `\nSignalbox tenants benchmark: two tenants' local hosts in one process on Azurite (in-memory), ${CONCURRENCY} shared slots, at most ${MAX_PER_TENANT} per tenant in the fair runs; load average ${loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')}`,
    );
    console.table(rows);
  } finally {
    await azurite.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
