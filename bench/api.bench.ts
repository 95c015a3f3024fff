/**
 * `npm run bench:api`: end-to-end trigger throughput and latency through the local server on Azurite,
 * against the storage floor of one application (lease acquire, read, conditional write, release),
 * measured in the same run. Prints a table; asserts nothing (see the issue notes for the figures).
 *
 *   BENCH_INSTANCES (default 1000), BENCH_LATENCY_SAMPLES (default 200)
 */
import { performance } from 'node:perf_hooks';
import counterWorkflow from '../examples/counter.json';
import { startAzurite } from '../src/host/azurite';
import { startLocalHost } from '../src/host/local-host';
import { silentLogger } from '../src/host/logger';
import { createAzureStorage } from '../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 1000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function json(url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const response = await fetch(url, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function waitForOperation(baseUrl: string, operationId: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  for (;;) {
    const result = await json(`${baseUrl}/api/operations/${operationId}`);
    if (result.status === 200) return result.body;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The four storage calls every application needs at least, one after another. */
async function measureFloor(connectionString: string, rounds: number): Promise<number[]> {
  const storage = await createAzureStorage({ connection: connectionString, names: prefixedStorageNames('floor') });
  const table = storage.clients.instances;
  const blob = storage.clients.leases.getBlockBlobClient('floor-blob');
  await blob.upload('', 0);
  await table.upsertEntity({ partitionKey: 'p', rowKey: 'instance', body: 'x'.repeat(600) });
  const samples: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    const lease = blob.getBlobLeaseClient();
    await lease.acquireLease(15);
    const entity = await table.getEntity<{ body: string }>('p', 'instance');
    await table.updateEntity({ partitionKey: 'p', rowKey: 'instance', body: entity.body }, 'Replace', { etag: entity.etag });
    await lease.releaseLease();
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const azurite = await startAzurite();
  const requestCounter = createRequestCounter();
  const host = await startLocalHost({ env: { SIGNALBOX_STORAGE: azurite.connectionString }, port: 0, storageNames: prefixedStorageNames('bench'), logger: silentLogger, requestCounter });
  const base = host.url;
  try {
    await json(`${base}/api/workflows/counter`, 'PUT', counterWorkflow);
    for (let start = 0; start < INSTANCES; start += 50) {
      await Promise.all(Array.from({ length: Math.min(50, INSTANCES - start) }, (_, offset) => json(`${base}/api/instances`, 'POST', { workflowId: 'counter', instanceId: `i-${start + offset}`, context: { count: 0 } })));
    }

    // Warm-up: JIT, connections, caches.
    for (let index = 0; index < 20; index += 1) {
      const accepted = await json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: [`i-${index}`] });
      await waitForOperation(base, accepted.body.operationId);
    }

    // Storage requests of one single-instance trigger, POST to succeeded (polls included).
    requestCounter.reset();
    const counted = await json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: ['i-0'] });
    await waitForOperation(base, counted.body.operationId);
    const countedRequests = requestCounter.counts();

    // 1. One trigger offered to every instance (fan-out inside one operation), twice: the first run
    //    also creates each instance's lease blob (created lazily, on first use).
    const fanOutSeconds: number[] = [];
    let fanOutResult: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (let round = 0; round < 2; round += 1) {
      const begin = performance.now();
      const fanOut = await json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: ['counters'] });
      fanOutResult = await waitForOperation(base, fanOut.body.operationId);
      fanOutSeconds.push((performance.now() - begin) / 1000);
    }

    // 2. One trigger per instance, 32 clients at a time, each waiting for its operation.
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < INSTANCES) {
          const index = next++;
          const accepted = await json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: [`i-${index}`] });
          await waitForOperation(base, accepted.body.operationId);
        }
      }),
    );
    const perInstanceSeconds = (performance.now() - started) / 1000;

    // 3. Latency of a single-instance trigger, POST to operation succeeded, one at a time.
    const latencies: number[] = [];
    for (let sample = 0; sample < LATENCY_SAMPLES; sample += 1) {
      const begin = performance.now();
      const accepted = await json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: [`i-${sample % INSTANCES}`] });
      await waitForOperation(base, accepted.body.operationId);
      latencies.push(performance.now() - begin);
    }
    latencies.sort((a, b) => a - b);
    const floor = await measureFloor(azurite.connectionString, LATENCY_SAMPLES);

    const p50 = percentile(latencies, 50);
    const floorP50 = percentile(floor, 50);
    console.log(`\nSignalbox API benchmark: local server on Azurite (in-memory), ${INSTANCES} instances`);
    console.table([
      { measure: `one trigger → ${INSTANCES} instances, lease blobs new`, value: `${(INSTANCES / fanOutSeconds[0]!).toFixed(0)} applications/s` },
      { measure: `one trigger → ${INSTANCES} instances, again`, value: `${(INSTANCES / fanOutSeconds[1]!).toFixed(0)} applications/s (${fanOutResult.summary.transitioned} transitioned)` },
      { measure: `${INSTANCES} single-instance triggers, 32 clients`, value: `${(INSTANCES / perInstanceSeconds).toFixed(0)} triggers/s (POST to succeeded)` },
      { measure: 'single-instance latency p50', value: `${p50.toFixed(2)} ms` },
      { measure: 'single-instance latency p99', value: `${percentile(latencies, 99).toFixed(2)} ms` },
      { measure: 'storage floor of one application p50', value: `${floorP50.toFixed(2)} ms` },
      { measure: 'p50 latency / floor p50 (target < 3)', value: (p50 / floorP50).toFixed(2) },
      { measure: 'storage requests of one single-instance trigger', value: `${countedRequests.total} ${JSON.stringify(countedRequests.byKind)}` },
    ]);
  } finally {
    await host.stop();
    await azurite.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
