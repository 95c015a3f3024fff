/**
 * `npm run bench:tenants`: noisy neighbours (issue 28 section 4). One local server with real tenants, each
 * through `/api/tenants/{tenantId}/...`; tenant B sends single triggers one at a time (`Prefer: wait`)
 * while tenant A floods. Goal: B's p95 with A's flood at most 20% above B's p95 alone.
 *
 * A quota is the operator's share of the machine's capacity, so the bench measures the capacity first: a
 * probe tenant's broadcast to PROBE_INSTANCES instances, alone, in applications per second (C). Tenant A
 * then gets A_SHARE of it as its quotas: Q = A_SHARE x C triggers per second (burst Q) and Q applications
 * per second (`applicationsPerSecond`: the runner paces A's broadcasts). The phases, one after the other on
 * the one server (the machine's load moves less within a run than between runs):
 *
 *   1. B alone.
 *   1b. A sends single-instance triggers at 90% of Q a second (within its quota: nothing refused) while B
 *      samples: what A's share costs B, so that phase 2 shows what A's refused requests add to it.
 *   2. A floods single-instance triggers at 10 x Q a second (about 90% refused with 429) while B samples; A's
 *      triggers (here and in 1b) are sent from a process of their own, as another client's would be.
 *   3. A's one broadcast to all its BROADCAST_INSTANCES instances, paced at Q, while B samples.
 *   4. The same broadcast with A's pace taken away (how it ran before the pace: every free slot), while B samples.
 *   5. The same broadcast paced again (old and new interleaved within the one run). The server's stop then
 *      leaves the rest of the broadcast in this run's own tables.
 *
 *   BENCH_PROBE_INSTANCES (default 500), BENCH_BROADCAST_INSTANCES (default 10000), BENCH_A_SHARE (default 0.2)
 *   BENCH_SAMPLES (default 60): B's triggers per phase, one at a time, BENCH_GAP_MS (default 100) apart
 *   BENCH_CONCURRENCY (default 16): the scheduler's slots
 *   BENCH_TENANT_ACCOUNTS (default `shared`): `own` puts A (and the probe) in a storage account of its own, a
 *   second Azurite named by the app setting SIGNALBOX_TENANT_STORAGE_BENCH_A (`storage.connectionSetting`),
 *   as a tenant with its own account on Azure; B stays in the deployment's account. `shared`: every tenant in
 *   the one Azurite, where A's lease blobs and requests share B's single-threaded emulator.
 *   BENCH_A_ELSEWHERE=1 (with `own`): A's account and A's flood client run at the lowest priority (nice 19),
 *   standing for machines of their own, so what B feels of A is the server's share only, as on Azure, where
 *   neither A's client nor its storage account runs on the worker. Reported beside the runs without it.
 *
 * Prints a table and the load average with each phase, and how long B's applications waited for one of the
 * runner's slots (the runner's share of B's time; the rest is storage); asserts nothing.
 */
import { spawn } from 'node:child_process';
import { loadavg, setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import counterWorkflow from '../examples/counter.json';
import { startAzurite } from '../src/host/local/azurite';
import { FairScheduler } from '../src/host/local/concurrency';
import { startLocalHost } from '../src/host/local/local-host';
import { silentLogger } from '../src/host/local/logger';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';
import { json, type Json, percentile } from './support/bench-support';

const TENANT_A = 'bench-tenant-a';
const TENANT_B = 'bench-tenant-b';
const TENANT_PROBE = 'bench-capacity';

const PROBE_INSTANCES = Number(process.env.BENCH_PROBE_INSTANCES ?? 500);
const BROADCAST = Number(process.env.BENCH_BROADCAST_INSTANCES ?? 10_000);
const A_SHARE = Number(process.env.BENCH_A_SHARE ?? 0.2);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const OWN_ACCOUNTS = (process.env.BENCH_TENANT_ACCOUNTS ?? 'shared') === 'own';
const A_ACCOUNT_SETTING = 'SIGNALBOX_TENANT_STORAGE_BENCH_A';
const A_ELSEWHERE = OWN_ACCOUNTS && process.env.BENCH_A_ELSEWHERE === '1';
/** Linux's lowest scheduling priority (nice 19): a process that gets a core only when nothing else wants it. */
const LOWEST_PRIORITY = 19;

/** Waits until an operation has finished. */
async function finished(base: string, operationId: string): Promise<Json> {
  for (;;) {
    const answer = await json(`${base}/operations/${operationId}`, 'GET', undefined, { prefer: 'wait=60' });
    if (answer.status === 200) return answer.body;
  }
}

/** One trigger of B to its one instance, until its operation has finished: milliseconds. */
async function singleTrigger(base: string): Promise<number> {
  const started = performance.now();
  const answer = await json(`${base}/triggers`, 'POST', { name: 'Increment', subjects: ['b-1'] }, { prefer: 'wait=60' });
  if (answer.status === 429) throw new Error('tenant B was refused: its own quota is too small for the bench');
  if (answer.status !== 200) await finished(base, answer.body.operationId);
  return performance.now() - started;
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

/**
 * A's flood, from a process of its own: A is another client, so the work of sending its requests (fetch,
 * its sockets, reading the answers) must not run on the server's event loop, as it did when the flood ran
 * in this thread. Plain JavaScript, run by `node -e`. It sends `perSecond` single-instance triggers, paced
 * against its start so a slow answer does not slow it, until told to stop, then answers the counts.
 */
const FLOOD_CLIENT = `
const { url, perSecond, instances } = JSON.parse(process.argv[1]);
let stopping = false;
process.once('message', () => (stopping = true));
(async () => {
  const counts = { accepted: 0, refused: 0, other: [] };
  const sent = [];
  const begin = performance.now();
  for (let index = 0; !stopping; index += 1) {
    const request = fetch(url + '/instances/a-' + (index % instances) + '/triggers', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Increment' }),
    }).then(async (answer) => {
      await answer.arrayBuffer();
      if (answer.status === 202 || answer.status === 200) counts.accepted += 1;
      else if (answer.status === 429) counts.refused += 1;
      else counts.other.push(answer.status);
    });
    sent.push(request);
    const due = begin + ((index + 1) * 1000) / perSecond;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
  }
  await Promise.all(sent);
  process.send(counts, () => process.disconnect());
})();
`;

/**
 * A floods single-instance triggers at `perSecond` (from its own process) until `until` settles; counts what
 * was accepted and refused. With A_ELSEWHERE the process runs at the lowest priority, as if on another machine.
 */
async function flood(base: string, perSecond: number, instances: number, until: Promise<unknown>): Promise<{ accepted: number; refused: number }> {
  const client = spawn(process.execPath, ['-e', FLOOD_CLIENT, JSON.stringify({ url: base, perSecond, instances })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  if (A_ELSEWHERE && client.pid !== undefined) setPriority(client.pid, LOWEST_PRIORITY);
  const counts = new Promise<{ accepted: number; refused: number; other: number[] }>((resolve, reject) => {
    client.once('message', (message) => resolve(message as { accepted: number; refused: number; other: number[] }));
    client.once('error', reject);
    client.once('exit', (code) => reject(new Error(`A's flood client exited with ${code} before answering`)));
  });
  await until;
  client.send('stop');
  const { accepted, refused, other } = await counts;
  if (other.length > 0) throw new Error(`A's triggers answered ${[...new Set(other)].join(', ')}`);
  return { accepted, refused };
}

/**
 * The scheduler, timing how long each of B's applications waited for a slot: what the runner's fairness
 * decides. The rest of B's time is the storage requests (Azurite, one thread, shared with A's work).
 */
class TimedScheduler extends FairScheduler {
  readonly slotWaitsOfB: number[] = [];
  override run<T>(key: string, priority: number | undefined, work: () => Promise<T>): Promise<T> {
    if (key !== TENANT_B) return super.run(key, priority, work);
    const queuedAt = performance.now();
    return super.run(key, priority, () => {
      this.slotWaitsOfB.push(performance.now() - queuedAt);
      return work();
    });
  }
}

async function main(): Promise<void> {
  const azurite = await startAzurite();
  const accountOfA = OWN_ACCOUNTS ? await startAzurite() : undefined;
  // A's account and A's client stand for machines of their own: on this 2-core machine they may use a core
  // only when the server, B's account and B's client do not want it.
  if (A_ELSEWHERE && accountOfA?.pid !== undefined) setPriority(accountOfA.pid, LOWEST_PRIORITY);
  const scheduler = new TimedScheduler(CONCURRENCY);
  // Every storage request of the server (all tenants): where B's time goes is storage busy with A's work.
  const counter = createRequestCounter();
  let countedSince = { at: performance.now(), total: 0 };
  const requestsPerSecond = () => {
    const now = { at: performance.now(), total: counter.counts().total };
    const rate = (now.total - countedSince.total) / ((now.at - countedSince.at) / 1000);
    countedSince = now;
    return rate.toFixed(0);
  };
  const host = await startLocalHost({
    requestCounter: counter,
    env: { SIGNALBOX_STORAGE: azurite.connectionString, ...(accountOfA ? { [A_ACCOUNT_SETTING]: accountOfA.connectionString } : {}) },
    runner: { scheduler },
    port: 0,
    storageNames: prefixedStorageNames(`tenants${Date.now().toString(36)}`),
    logger: silentLogger,
  });
  const tenantUrl = (tenant: string) => `${host.url}/api/tenants/${tenant}`;
  const createTenant = async (tenant: string, quotas?: Record<string, number>, ownAccount = false) => {
    const created = await json(tenantUrl(tenant), 'PUT', { ...(quotas ? { quotas } : {}), ...(ownAccount && accountOfA ? { storage: { connectionSetting: A_ACCOUNT_SETTING } } : {}) });
    if (created.status !== 201) throw new Error(`PUT tenant ${tenant} answered ${created.status}: ${JSON.stringify(created.body)}`);
    const put = await json(`${tenantUrl(tenant)}/workflows/counter`, 'PUT', counterWorkflow);
    if (put.status !== 201) throw new Error(`PUT workflow answered ${put.status}`);
  };
  /** Through the tenant's engine (the bench measures triggers, not creation over HTTP): 16 at a time. */
  const createInstances = async (tenant: string, prefix: string, count: number) => {
    const { engine } = (await host.tenantRuntime(tenant))!.core;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < count) await engine.createInstance({ workflowId: 'counter', instanceId: `${prefix}-${next++}`, context: { count: 0 } });
      }),
    );
  };
  // How busy the server's event loop was in each phase (this thread: the server, and B's one-at-a-time client).
  let loopSince = performance.eventLoopUtilization();
  const loopBusy = () => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, loopSince).utilization;
    loopSince = now;
    return `${(busy * 100).toFixed(0)}%`;
  };
  const rows: Array<Record<string, string | number>> = [];
  const row = (phase: string, latencies: readonly number[], alone: number | undefined, extra: Record<string, string | number> = {}) => {
    const slotWaits = scheduler.slotWaitsOfB.splice(0).sort((x, y) => x - y);
    rows.push({
      phase,
      'B p50 ms': percentile(latencies, 50).toFixed(1),
      'B p95 ms': percentile(latencies, 95).toFixed(1),
      'B p95 vs alone': alone === undefined ? '-' : `${((percentile(latencies, 95) / alone - 1) * 100).toFixed(0)}%`,
      "B's slot wait p95 / max ms": slotWaits.length ? `${percentile(slotWaits, 95).toFixed(1)} / ${slotWaits.at(-1)!.toFixed(1)}` : '-',
      ...extra,
      'storage requests/s': requestsPerSecond(),
      'server loop busy': loopBusy(),
      load: loadavg()[0]!.toFixed(1),
    });
    // Each phase as it ends: a long run on a busy machine still shows what it measured.
    console.log(JSON.stringify(rows.at(-1)));
  };
  try {
    // The capacity: a broadcast alone, in applications per second.
    await createTenant(TENANT_PROBE, undefined, true);
    await createInstances(TENANT_PROBE, 'p', PROBE_INSTANCES);
    const probeStart = performance.now();
    const probe = await json(`${tenantUrl(TENANT_PROBE)}/triggers`, 'POST', { name: 'Increment', subjects: ['counters'] }, { prefer: 'wait=60' });
    if (probe.status !== 200) await finished(tenantUrl(TENANT_PROBE), probe.body.operationId);
    const capacity = PROBE_INSTANCES / ((performance.now() - probeStart) / 1000);
    const quota = Math.max(1, Math.round(A_SHARE * capacity));
    console.log(
      `capacity: ${capacity.toFixed(1)} applications/s (a broadcast to ${PROBE_INSTANCES}, alone, load ${loadavg()[0]!.toFixed(1)}); A's quotas: ${quota} triggers/s (burst ${quota}) and ${quota} applications/s, ${A_SHARE} of it`,
    );

    await createTenant(TENANT_A, { triggersPerSecond: quota, triggerBurst: quota, applicationsPerSecond: quota }, true);
    await createTenant(TENANT_B);
    await createInstances(TENANT_A, 'a', BROADCAST);
    await createInstances(TENANT_B, 'b', 2);
    const a = tenantUrl(TENANT_A);
    const b = tenantUrl(TENANT_B);
    // The scheduler keeps the pace as an interval, so the rate read back may differ in its last bits.
    if (Math.abs((scheduler.rateOf(TENANT_A) ?? 0) - quota) > 1e-6) throw new Error(`A's pace is ${scheduler.rateOf(TENANT_A)}, not its quota ${quota}`);

    await samplesOf(b, 5); // warm-up
    scheduler.slotWaitsOfB.length = 0;
    requestsPerSecond();
    loopBusy();
    const alone = await samplesOf(b, SAMPLES);
    const aloneP95 = percentile(alone, 95);
    row('1. B alone', alone, undefined);

    // What A may do within its quota, for comparison with the flood: what B feels of A's refused requests is the difference.
    const measuringWithinQuota = samplesOf(b, SAMPLES);
    const [withinQuota, sentWithinQuota] = await Promise.all([measuringWithinQuota, flood(a, quota * 0.9, BROADCAST, measuringWithinQuota)]);
    row(`1b. A sends single triggers at ${(quota * 0.9).toFixed(1)}/s (90% of its quota)`, withinQuota, aloneP95, {
      'A accepted / refused (429)': `${sentWithinQuota.accepted} / ${sentWithinQuota.refused}`,
    });

    const measuringFlood = samplesOf(b, SAMPLES);
    const [withFlood, counts] = await Promise.all([measuringFlood, flood(a, quota * 10, BROADCAST, measuringFlood)]);
    row(`2. A floods single triggers at ${quota * 10}/s (10x its quota)`, withFlood, aloneP95, { 'A accepted / refused (429)': `${counts.accepted} / ${counts.refused}` });

    // The flood left A's bucket empty: the broadcast waits for its token like any client.
    let broadcast = await json(`${a}/triggers`, 'POST', { name: 'Increment', subjects: ['counters'] });
    while (broadcast.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      broadcast = await json(`${a}/triggers`, 'POST', { name: 'Increment', subjects: ['counters'] });
    }
    if (broadcast.status !== 202) throw new Error(`A's broadcast answered ${broadcast.status}`);
    const operationId: string = broadcast.body.operationId;
    const progress = async () => Number((await json(`${a}/operations/${operationId}`)).body?.progress?.processed ?? 0);
    let since = { at: performance.now(), processed: await progress() };
    const rateSince = async () => {
      const now = { at: performance.now(), processed: await progress() };
      const rate = (now.processed - since.processed) / ((now.at - since.at) / 1000);
      since = now;
      return rate.toFixed(1);
    };
    const paced = await samplesOf(b, SAMPLES);
    row(`3. A's broadcast to ${BROADCAST}, paced at ${quota}/s`, paced, aloneP95, { "A's applications/s": await rateSince() });

    scheduler.setRate(TENANT_A, undefined);
    const unpaced = await samplesOf(b, SAMPLES);
    row(`4. the same broadcast, no pace (as before)`, unpaced, aloneP95, { "A's applications/s": await rateSince() });

    scheduler.setRate(TENANT_A, quota);
    const pacedAgain = await samplesOf(b, SAMPLES);
    row(`5. the same broadcast, paced at ${quota}/s again`, pacedAgain, aloneP95, { "A's applications/s": await rateSince() });

    console.log(
      `\nSignalbox tenants benchmark: one local server, tenants through /api/tenants/{tenantId}/... on Azurite (in-memory; ${OWN_ACCOUNTS ? `A and the probe in an account of their own, a second Azurite${A_ELSEWHERE ? "; A's account and client at nice 19" : ''}` : 'every tenant in one'}), ${CONCURRENCY} slots shared fairly (fewest held first); load average ${loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')}`,
    );
    console.table(rows);
  } finally {
    await host.stop();
    await azurite.stop();
    await accountOfA?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
