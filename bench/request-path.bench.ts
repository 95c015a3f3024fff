/**
 * `npm run bench:request-path`: where the answer to a trigger waits. Sends BENCH_SAMPLES (default 80)
 * triggers to one instance each (`Prefer: wait`, one at a time) through the local server on Azurite and
 * times every storage request sent before the answer (a pipeline policy stamps its start and end). Prints
 * medians of: the time on the answer's path with no storage request in flight (the server's own work),
 * the time before the first request (HTTP, access, validation), between the save and the operation's
 * finish, and the whole. Times, so the machine's load weighs on them: quote them with `uptime`.
 */
import { performance } from 'node:perf_hooks';
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import type { RequestPolicyFactory } from '@azure/storage-blob';
import counterWorkflow from '../examples/counter.json';
import { startAzurite } from '../src/host/local/azurite';
import { startLocalHost } from '../src/host/local/local-host';
import { silentLogger } from '../src/host/local/logger';
import { prefixedStorageNames } from '../src/storage/names';
import type { RequestCounter } from '../src/storage/request-counter';
import { runBench } from './support/bench-support';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 80);
const WARM_UP = 10;

interface TimedRequest {
  readonly kind: string;
  readonly start: number;
  readonly end: number;
}

/** A RequestCounter that times each request instead of counting it. */
function requestTimer(timed: TimedRequest[]): RequestCounter {
  const tablePolicy: PipelinePolicy = {
    name: 'benchRequestTimer',
    sendRequest: async (request, next) => {
      const start = performance.now();
      const response = await next(request);
      timed.push({ kind: `table ${request.method}`, start, end: performance.now() });
      return response;
    },
  };
  const blobPolicyFactory: RequestPolicyFactory = {
    create: (nextPolicy) => ({
      sendRequest: async (request) => {
        const start = performance.now();
        const response = await nextPolicy.sendRequest(request);
        timed.push({ kind: `blob ${request.headers.get('x-ms-lease-action') ?? request.method}`, start, end: performance.now() });
        return response;
      },
    }),
  };
  return { tablePolicy, blobPolicyFactory, counts: () => ({ total: 0, table: 0, blob: 0, byKind: {} }), requests: () => [], reset: () => undefined };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const timed: TimedRequest[] = [];
  const azurite = await startAzurite();
  const host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: azurite.connectionString },
    port: 0,
    storageNames: prefixedStorageNames('path'),
    logger: silentLogger,
    requestCounter: requestTimer(timed),
  });
  const call = async (path: string, method: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${host.url}${path}`, { method, headers: { 'x-signalbox-client': 'bench', 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    await response.text();
  };
  const figures: Record<string, number[]> = { whole: [], idle: [], beforeFirst: [], saveToFinish: [] };
  try {
    await call('/api/workflows/counter', 'PUT', counterWorkflow);
    for (let index = 0; index < 10; index += 1) await call('/api/instances', 'POST', { workflowId: 'counter', instanceId: `i-${index}`, context: { count: 0 } });
    for (let sample = 0; sample < WARM_UP + SAMPLES; sample += 1) {
      await new Promise((resolve) => setTimeout(resolve, 30)); // the last lease release lands first
      timed.length = 0;
      const begin = performance.now();
      await call('/api/triggers', 'POST', { name: 'Increment', subjects: [`i-${sample % 10}`] }, { prefer: 'wait=30' });
      const answered = performance.now();
      if (sample < WARM_UP) continue;
      const onPath = timed.filter((request) => request.start < answered).sort((a, b) => a.start - b.start);
      let idle = 0;
      let busyUntil = begin;
      for (const request of onPath) {
        idle += Math.max(0, request.start - busyUntil);
        busyUntil = Math.max(busyUntil, request.end);
      }
      idle += answered - busyUntil;
      figures.whole!.push(answered - begin);
      figures.idle!.push(idle);
      figures.beforeFirst!.push(onPath[0]!.start - begin);
      // The save is the second table $batch, the finish the third.
      const batches = onPath.filter((request) => request.kind === 'table POST');
      if (batches.length === 3) figures.saveToFinish!.push(batches[2]!.start - batches[1]!.end);
    }
  } finally {
    await host.stop();
    await azurite.stop();
  }
  const loads = (await import('node:os')).loadavg().map((load) => load.toFixed(1));
  console.log(`Where a trigger's answer waits: ${SAMPLES} triggers to one instance, Prefer: wait, one at a time; load average ${loads.join(' ')}`);
  console.table([
    { measure: 'POST to answer', 'median ms': median(figures.whole!).toFixed(1) },
    { measure: 'no storage request in flight (the server working or waiting)', 'median ms': median(figures.idle!).toFixed(1) },
    { measure: 'of which before the first request (HTTP, access, validation)', 'median ms': median(figures.beforeFirst!).toFixed(1) },
    { measure: 'the save ended, the operation finish not yet sent', 'median ms': median(figures.saveToFinish!).toFixed(1) },
  ]);
}

runBench(main);
