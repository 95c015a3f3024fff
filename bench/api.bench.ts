/**
 * `npm run bench:api`: end-to-end trigger throughput and latency through the local server on Azurite,
 * side by side with the storage floor measured in the same run on the same Azurite (issue 11). Prints
 * tables; asserts nothing.
 *
 * The floor of one trigger operation is the 6 storage calls Signalbox makes for a waited-for trigger of
 * one candidate with no id of the client's (docs/performance.md, decision 0018), one after another: index
 * lookup, lease acquire, instance read, one transaction (instance + history), lease release, operation
 * recorded once, finished (a transaction of the record, with its result, and its listing row). Signalbox
 * overlaps the release with the record; the floor does not. "One bare floor application" is
 * its core: acquire, read, conditional write, release. Both use instance bodies as large as the real ones.
 *
 * Like for like: Azurite, unlike the services, does some lookups by scanning. Every table query runs a
 * filter over the whole table (a partition query costs 3.9 ms on 100 rows, 8.1 ms on 10,000, 17.7 ms on
 * 30,000, while point reads and writes stay at 1-3 ms), and a blob (lease) lookup scans every blob of the
 * account and then every blob of its container. So the floor's index lookup runs the same query on
 * Signalbox's interest table (read only), and its lease blobs live in Signalbox's lease container, beside
 * the instances' own; its instance rows and operation records (point reads and writes) are in tables of
 * its own. A floor on small tables and a small container of its own is printed too, for comparison.
 *
 *   BENCH_INSTANCES (default 1000): instances of the throughput and latency runs
 *   BENCH_FANOUT_INSTANCES (default 10000): instances of the fan-out run
 *   BENCH_LATENCY_SAMPLES (default 200), BENCH_CLIENTS (default 8)
 *   BENCH_ROUNDS (default 10): the throughput runs are interleaved in this many chunks
 *   BENCH_CONCURRENT_CLIENTS (default 16) on BENCH_CONCURRENT_INSTANCES (default 100): the concurrency
 *   run, BENCH_CONCURRENT_TRIGGERS (default 800) triggers, each client taking the next instance in turn
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import counterWorkflow from '../examples/counter.json';
import { startAzurite } from '../src/host/local/azurite';
import { startLocalHost, type LocalHost } from '../src/host/local/local-host';
import { silentLogger } from '../src/host/local/logger';
import type { TableClient } from '@azure/data-tables';
import type { ContainerClient } from '@azure/storage-blob';
import { createAzureStorage, type AzureStorage } from '../src/storage/create-azure-storage';
import { encodeLookupKey } from '../src/storage/keys';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';
import { json, type Json, percentile, runBench } from './support/bench-support';

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 1000);
const FANOUT_INSTANCES = Math.max(INSTANCES, Number(process.env.BENCH_FANOUT_INSTANCES ?? 10000));
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CONTENDED = 30;
const CONCURRENT_CLIENTS = Number(process.env.BENCH_CONCURRENT_CLIENTS ?? 16);
const CONCURRENT_INSTANCES = Math.min(INSTANCES, Number(process.env.BENCH_CONCURRENT_INSTANCES ?? 100));
const CONCURRENT_TRIGGERS = Number(process.env.BENCH_CONCURRENT_TRIGGERS ?? 800);
const WAIT = { prefer: 'wait=30' };

/** CPU time (user + system) a process has used so far, from /proc (Linux; 0 elsewhere). */
function cpuMillisecondsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** A client that polls, as before `Prefer: wait` (one poll per event-loop turn). */
async function triggerPolling(base: string, subject: string): Promise<Json> {
  const accepted = await json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: [subject] });
  for (;;) {
    const result = await json(`${base}/api/operations/${accepted.body.operationId}`);
    if (result.status === 200) return result.body;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A client that waits (`Prefer: wait`): one request, answered 200 with the finished operation. */
async function triggerWaiting(base: string, subject: string): Promise<Json> {
  const answer = await json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: [subject] }, WAIT);
  if (answer.status === 200) return answer.body;
  // Only if the wait ran out: wait again on the operation.
  for (;;) {
    const result = await json(`${base}/api/operations/${answer.body.operationId}`, 'GET', undefined, WAIT);
    if (result.status === 200) return result.body;
  }
}

/** Runs work(0..count-1) on `clients` concurrent clients; `client` tells each call which client runs it. */
async function inParallel(clients: number, count: number, work: (index: number, client: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (next < count) await work(next++, client);
    }),
  );
  return (performance.now() - started) / 1000;
}

interface Floor {
  /** One bare application on floor instance `index`: acquire, read, conditional write, release. */
  application(index: number): Promise<void>;
  /**
   * The 6 calls of one trigger operation on floor instance `index` (one client at a time each), whose
   * index lookup reads the partition of `subject`.
   */
  operation(index: number, subject: string): Promise<void>;
}

interface FloorOptions {
  /** Prefix of its own tables and container. */
  readonly name: string;
  readonly instances: number;
  readonly instanceBody: string;
  /** Where its index lookup reads (else a table of its own with a row per floor instance). */
  readonly interests?: TableClient;
  /** Where its lease blobs live (else a container of its own). */
  readonly leases?: ContainerClient;
}

async function floorOn(connectionString: string, options: FloorOptions): Promise<Floor> {
  const storage: AzureStorage = await createAzureStorage({ connection: connectionString, names: prefixedStorageNames(options.name) });
  const { instances: table, operations } = storage.clients;
  const interests = options.interests ?? storage.clients.interests;
  const leases = options.leases ?? storage.clients.leases;
  const key = (index: number) => `${options.name}-${index}`;
  await Promise.all(
    Array.from({ length: options.instances }, async (_, index) => {
      await table.upsertEntity({ partitionKey: key(index), rowKey: 'instance', body: options.instanceBody });
      if (!options.interests) await interests.upsertEntity({ partitionKey: encodeLookupKey(key(index)), rowKey: key(index) });
      await leases.getBlockBlobClient(key(index)).upload('', 0);
    }),
  );
  let sequence = 0;
  return {
    async application(index) {
      const lease = leases.getBlockBlobClient(key(index)).getBlobLeaseClient();
      await lease.acquireLease(15);
      const entity = await table.getEntity<{ body: string }>(key(index), 'instance');
      await table.updateEntity({ partitionKey: key(index), rowKey: 'instance', body: entity.body }, 'Replace', { etag: entity.etag });
      await lease.releaseLease();
    },
    async operation(index, subject) {
      // As a trigger with no id of the client's, waited for, to one instance (decision 0018): recorded once, finished.
      const id = `op-${process.pid}-${options.name}-${sequence++}`;
      const filter = `PartitionKey eq '${encodeLookupKey(subject)}'`;
      for await (const page of interests.listEntities({ queryOptions: { filter, select: ['RowKey'] } }).byPage({ maxPageSize: 500 })) void page;
      const lease = leases.getBlockBlobClient(key(index)).getBlobLeaseClient();
      await lease.acquireLease(15);
      const entity = await table.getEntity<{ body: string }>(key(index), 'instance');
      await table.submitTransaction([
        ['update', { partitionKey: key(index), rowKey: 'instance', body: entity.body }, 'Replace', { etag: entity.etag }],
        ['create', { partitionKey: key(index), rowKey: `h-${id}`, body: '{"at":"2026-01-01T00:00:00.000Z","event":"transitioned"}' }],
      ]);
      await lease.releaseLease();
      const record = { partitionKey: id, rowKey: 'operation', status: 'succeeded', body: JSON.stringify({ id, trigger: { name: 'Increment', subjects: [subject] }, summary: {}, instances: [] }) };
      await operations.submitTransaction([
        ['create', record],
        ['create', { partitionKey: id, rowKey: 'listing', status: 'succeeded' }],
      ]);
    },
  };
}

async function main(): Promise<void> {
  const azurite = await startAzurite();
  const requestCounter = createRequestCounter();
  const names = prefixedStorageNames('bench');
  const env = { SIGNALBOX_STORAGE: azurite.connectionString };
  const host = await startLocalHost({ env, port: 0, storageNames: names, logger: silentLogger, requestCounter });
  let second: LocalHost | undefined;
  const base = host.url;
  const rows: { measure: string; value: string }[] = [];
  const row = (measure: string, value: string) => rows.push({ measure, value });
  try {
    await json(`${base}/api/workflows/counter`, 'PUT', counterWorkflow);
    await inParallel(32, FANOUT_INSTANCES, (index) => json(`${base}/api/instances`, 'POST', { workflowId: 'counter', instanceId: `i-${index}`, context: { count: 0 } }));

    // Warm-up: JIT, connections, caches (each instance's first trigger after creation included).
    for (let index = 0; index < 20; index += 1) await triggerWaiting(base, `i-${index}`);
    for (let index = 0; index < 20; index += 1) await triggerPolling(base, `i-${index}`);

    // Storage requests of one single-instance trigger (lease blob made at creation), POST to 200.
    requestCounter.reset();
    const fresh = await triggerWaiting(base, `i-${INSTANCES - 1}`);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the lease release runs in the background: let it land
    const requests = requestCounter.requests();
    const countedWaiting = requestCounter.counts();
    requestCounter.reset();
    await triggerPolling(base, `i-${INSTANCES - 2}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const countedPolling = requestCounter.counts();

    // The real instance entity, for a floor of the same size.
    const storage = await createAzureStorage({ connection: azurite.connectionString, names });
    const instanceEntity = await storage.clients.instances.getEntity<{ body: string }>('i-0', 'instance');
    const floorInstances = Math.max(CLIENTS, CONTENDED);
    const interestTable = storage.clients.interests;
    const floor = await floorOn(azurite.connectionString, { name: 'floor', instances: floorInstances, instanceBody: instanceEntity.body, interests: interestTable, leases: storage.clients.leases });
    const smallFloor = await floorOn(azurite.connectionString, { name: 'small', instances: floorInstances, instanceBody: instanceEntity.body });
    for (let index = 0; index < 20; index += 1) await floor.operation(index % CLIENTS, `i-${index}`);
    for (let index = 0; index < 20; index += 1) await smallFloor.operation(index % CLIENTS, `small-${index % CLIENTS}`);
    let interestRows = 0;
    for await (const page of interestTable.listEntities({ queryOptions: { select: ['RowKey'] } }).byPage({ maxPageSize: 1000 })) interestRows += page.length;
    let leaseBlobs = 0;
    for await (const page of storage.clients.leases.listBlobsFlat().byPage({ maxPageSize: 5000 })) leaseBlobs += page.segment.blobItems.length;

    // 1. Throughput at CLIENTS clients, one instance each at a time: the floor, Signalbox on the same
    // subjects (waiting, then polling), and the floor on small tables of its own. They run in
    // ROUNDS interleaved chunks, in a rotating order, so that a change of load on the machine (or the
    // tables growing) during the run weighs on all of them alike, not on whichever ran last.
    const chunk = Math.ceil(INSTANCES / ROUNDS);
    const seconds = { floor: 0, waiting: 0, polling: 0, smallFloor: 0 };
    // CPU spent per kind: this process (clients, server, floor) and Azurite, to show which one limits.
    const cpu = { floor: { own: 0, azurite: 0 }, waiting: { own: 0, azurite: 0 }, polling: { own: 0, azurite: 0 }, smallFloor: { own: 0, azurite: 0 } };
    for (let round = 0; round < ROUNDS; round += 1) {
      const first = round * chunk;
      const count = Math.min(chunk, INSTANCES - first);
      if (count <= 0) break;
      const runs: [keyof typeof seconds, () => Promise<number>][] = [
        ['floor', () => inParallel(CLIENTS, count, (index, client) => floor.operation(client, `i-${first + index}`))],
        ['waiting', () => inParallel(CLIENTS, count, (index) => triggerWaiting(base, `i-${first + index}`))],
        ['polling', () => inParallel(CLIENTS, count, (index) => triggerPolling(base, `i-${first + index}`))],
        ['smallFloor', () => inParallel(CLIENTS, count, (_, client) => smallFloor.operation(client, `small-${client}`))],
      ];
      for (let step = 0; step < runs.length; step += 1) {
        const [kind, run] = runs[(step + round) % runs.length]!;
        const ownBefore = process.cpuUsage();
        const azuriteBefore = cpuMillisecondsOf(azurite.pid);
        seconds[kind] += await run();
        const own = process.cpuUsage(ownBefore);
        cpu[kind].own += (own.user + own.system) / 1000;
        cpu[kind].azurite += cpuMillisecondsOf(azurite.pid) - azuriteBefore;
      }
    }
    const floorOperationSeconds = seconds.floor;
    const waitingSeconds = seconds.waiting;
    const pollingSeconds = seconds.polling;
    const smallFloorSeconds = seconds.smallFloor;
    const floorRate = INSTANCES / floorOperationSeconds;
    const smallFloorRate = INSTANCES / smallFloorSeconds;
    const waitingRate = INSTANCES / waitingSeconds;
    const perOperation = (kind: keyof typeof cpu, seconds: number) =>
      `CPU per operation: this process ${(cpu[kind].own / INSTANCES).toFixed(2)} ms (${((cpu[kind].own / 1000 / seconds) * 100).toFixed(0)}% busy), Azurite ${(cpu[kind].azurite / INSTANCES).toFixed(2)} ms (${((cpu[kind].azurite / 1000 / seconds) * 100).toFixed(0)}% busy)`;
    row(
      `floor: 7-call trigger operations, ${CLIENTS} clients, on Signalbox's interest table (${interestRows} rows) and lease container (${leaseBlobs} blobs)`,
      `${floorRate.toFixed(0)} operations/s; ${perOperation('floor', floorOperationSeconds)}`,
    );
    row(
      `Signalbox: single-instance triggers, ${CLIENTS} clients, Prefer: wait`,
      `${waitingRate.toFixed(0)} triggers/s = ${(waitingRate / floorRate).toFixed(2)} of the floor (goal >= 0.8); ${perOperation('waiting', waitingSeconds)}`,
    );
    row(
      `Signalbox: single-instance triggers, ${CLIENTS} clients, polling`,
      `${(INSTANCES / pollingSeconds).toFixed(0)} triggers/s = ${(INSTANCES / pollingSeconds / floorRate).toFixed(2)} of the floor; ${perOperation('polling', pollingSeconds)}`,
    );
    row(
      `floor on its own ${floorInstances}-row interest table and ${floorInstances}-blob container (Azurite scans them)`,
      `${smallFloorRate.toFixed(0)} operations/s; Signalbox, Prefer: wait = ${(waitingRate / smallFloorRate).toFixed(2)} of it; ${perOperation('smallFloor', smallFloorSeconds)}`,
    );

    // 1b. Concurrency: CONCURRENT_CLIENTS clients on CONCURRENT_INSTANCES instances, each trigger to the
    // next instance in turn (so two clients sometimes meet on one): throughput, p95 of POST to finished,
    // CPU per trigger of this process (server and clients) and of Azurite.
    // BENCH_CONCURRENT_TRIGGERS=0 leaves this phase out (to sample the latency on the same tables as a bench without it).
    if (CONCURRENT_TRIGGERS > 0) {
      const concurrentLatencies: number[] = [];
      const concurrentOwnBefore = process.cpuUsage();
      const concurrentAzuriteBefore = cpuMillisecondsOf(azurite.pid);
      const concurrentSeconds = await inParallel(CONCURRENT_CLIENTS, CONCURRENT_TRIGGERS, async (index) => {
        const begin = performance.now();
        await triggerWaiting(base, `i-${index % CONCURRENT_INSTANCES}`);
        concurrentLatencies.push(performance.now() - begin);
      });
      const concurrentOwn = process.cpuUsage(concurrentOwnBefore);
      const concurrentAzurite = cpuMillisecondsOf(azurite.pid) - concurrentAzuriteBefore;
      concurrentLatencies.sort((a, b) => a - b);
      row(
        `Signalbox: ${CONCURRENT_CLIENTS} clients on ${CONCURRENT_INSTANCES} instances, Prefer: wait`,
        `${(CONCURRENT_TRIGGERS / concurrentSeconds).toFixed(0)} triggers/s; p95 ${percentile(concurrentLatencies, 95).toFixed(1)} ms; CPU per trigger: this process ${((concurrentOwn.user + concurrentOwn.system) / 1000 / CONCURRENT_TRIGGERS).toFixed(2)} ms, Azurite ${(concurrentAzurite / CONCURRENT_TRIGGERS).toFixed(2)} ms`,
      );
    }

    // 2. Latency, one at a time: a bare floor application, then a trigger POST to 200.
    const floorLatencies: number[] = [];
    for (let sample = 0; sample < LATENCY_SAMPLES; sample += 1) {
      const begin = performance.now();
      await floor.application(sample % CLIENTS);
      floorLatencies.push(performance.now() - begin);
    }
    const latencies: number[] = [];
    for (let sample = 0; sample < LATENCY_SAMPLES; sample += 1) {
      const begin = performance.now();
      await triggerWaiting(base, `i-${sample % INSTANCES}`);
      latencies.push(performance.now() - begin);
    }
    floorLatencies.sort((a, b) => a - b);
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    const floorP50 = percentile(floorLatencies, 50);
    row('floor: one bare application (acquire, read, write, release) p50', `${floorP50.toFixed(2)} ms`);
    row(
      'Signalbox: single trigger, POST to finished (Prefer: wait) p50 / p99',
      `${p50.toFixed(2)} ms / ${percentile(latencies, 99).toFixed(2)} ms = ${(p50 / floorP50).toFixed(2)}x the floor (goal <= 3)`,
    );

    // 3. Contention: 30 triggers on one instance at once, in one server, then across two on one storage.
    const contended = async (bases: string[]) => {
      const begin = performance.now();
      const results = await Promise.all(Array.from({ length: CONTENDED }, (_, index) => triggerWaiting(bases[index % bases.length]!, 'i-0')));
      const seconds = (performance.now() - begin) / 1000;
      const transitioned = results.filter((result) => result.summary.transitioned === 1).length;
      return { seconds, transitioned };
    };
    await contended([base]); // warm
    const oneServer = await contended([base]);
    second = await startLocalHost({ env, port: 0, storageNames: names, logger: silentLogger });
    await triggerWaiting(second.url, 'i-1'); // warm
    const twoServers = await contended([base, second.url]);
    await second.stop();
    second = undefined;
    // The same without lease hand-overs between local holders (each trigger releases and acquires).
    const withoutHandOffs = { env, port: 0, storageNames: names, logger: silentLogger, leases: { maxLocalHandOffs: 0 } };
    const plain = [await startLocalHost(withoutHandOffs), await startLocalHost(withoutHandOffs)];
    let oneServerPlain: Awaited<ReturnType<typeof contended>>;
    let twoServersPlain: Awaited<ReturnType<typeof contended>>;
    try {
      await contended([plain[0]!.url, plain[1]!.url]); // warm
      oneServerPlain = await contended([plain[0]!.url]);
      twoServersPlain = await contended([plain[0]!.url, plain[1]!.url]);
    } finally {
      await Promise.all(plain.map((server) => server.stop()));
    }
    const ideal = (CONTENDED * p50) / 1000;
    const contention = (label: string, result: { seconds: number; transitioned: number }, goal = '') =>
      row(
        `${CONTENDED} concurrent triggers on one instance, ${label}`,
        `${(result.seconds * 1000).toFixed(0)} ms = ${(result.seconds / ideal).toFixed(2)}x (30 x single p50)${goal}; ${result.transitioned} transitioned`,
      );
    contention('one server', oneServer, ' (goal <= 1.5)');
    contention('one server, no lease hand-over', oneServerPlain);
    contention('two servers on one storage', twoServers);
    contention('two servers on one storage, no lease hand-over', twoServersPlain);

    // 4. Fan-out: one trigger offered to every instance.
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);
    const fanOutBegin = performance.now();
    const fanOut = await triggerWaiting(base, 'counters');
    const fanOutSeconds = (performance.now() - fanOutBegin) / 1000;
    clearInterval(sampler);
    row(`one trigger → ${FANOUT_INSTANCES} instances`, `${(fanOut.candidates / fanOutSeconds).toFixed(0)} applications/s (${fanOut.summary.transitioned} transitioned)`);
    row('process RSS (client and server in one process) before / peak during the fan-out', `${(rssBefore / 2 ** 20).toFixed(0)} MiB / ${(rssPeak / 2 ** 20).toFixed(0)} MiB`);

    row('instance entity body (counter example)', `${instanceEntity.body.length} characters`);
    row('storage requests of one single-instance trigger, Prefer: wait', `${countedWaiting.total} ${JSON.stringify(countedWaiting.byKind)} (${fresh.summary.transitioned} transitioned)`);
    row('storage requests of one single-instance trigger, polling', `${countedPolling.total} ${JSON.stringify(countedPolling.byKind)}`);

    console.log(
      `\nSignalbox API benchmark: local server on Azurite (in-memory); load average ${(await import('node:os'))
        .loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')}`,
    );
    console.table(rows);
    console.log('Storage requests of one single-instance trigger (Prefer: wait), in order:');
    for (const request of requests) console.log(`  ${request}`);
  } finally {
    await second?.stop();
    await host.stop();
    await azurite.stop();
  }
}

runBench(main);
