/**
 * `tsx bench/request-timeline.bench.ts`: the critical path of one `Prefer: wait` trigger, request by request.
 * Sends BENCH_SAMPLES (default 60) triggers one at a time through the local server on Azurite, stamps every
 * storage request's start and end, and prints, for the most common request sequence, each request's median
 * start and end relative to the POST, and the answer. Runs unchanged in a checkout from before Foundation 2
 * (it finds the local host under either layout), so the two paths can be compared step by step.
 * BENCH_PAUSE_MS (default 30) between triggers; 0 sends them back to back as bench:api's latency run does.
 * BENCH_SUBJECTS (default 10) instances, triggered in turn. `gap before` is the time with no request of
 * this trigger in flight before the request starts (negative: it overlaps an earlier one).
 */
import { performance } from 'node:perf_hooks';
import { existsSync } from 'node:fs';
import path from 'node:path';
import counterWorkflow from '../examples/counter.json';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const WARM_UP = 10;
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 30);
const SUBJECTS = Number(process.env.BENCH_SUBJECTS ?? 10);

interface TimedRequest {
  readonly kind: string;
  readonly start: number;
  readonly end: number;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function load(relative: readonly string[]): Promise<Record<string, unknown>> {
  for (const candidate of relative) {
    const file = path.join(__dirname, candidate);
    if (existsSync(`${file}.ts`)) return (await import(file)) as Record<string, unknown>;
  }
  throw new Error(`none of ${relative.join(', ')}`);
}

function tableName(url: string): string {
  const pathname = new URL(url).pathname.split('/').filter(Boolean);
  return (pathname[1] ?? '').replace(/\(.*$/, '').replace(/^path/, '');
}

async function main(): Promise<void> {
  const timed: TimedRequest[] = [];
  const { startAzurite } = (await load(['../src/host/local/azurite', '../src/host/azurite'])) as { startAzurite: () => Promise<{ connectionString: string; stop(): Promise<void> }> };
  const { startLocalHost } = (await load(['../src/host/local/local-host', '../src/host/local-host'])) as { startLocalHost: (options: unknown) => Promise<{ url: string; stop(): Promise<void> }> };
  const { silentLogger } = (await load(['../src/host/local/logger', '../src/host/logger'])) as { silentLogger: unknown };
  const { prefixedStorageNames } = (await load(['../src/storage/names'])) as { prefixedStorageNames: (prefix: string) => unknown };
  const requestCounter = {
    tablePolicy: {
      name: 'benchRequestTimer',
      sendRequest: async (request: { method: string; url: string }, next: (request: unknown) => Promise<unknown>) => {
        const start = performance.now();
        const response = await next(request);
        timed.push({ kind: `table ${request.method} ${tableName(request.url)}`, start, end: performance.now() });
        return response;
      },
    },
    blobPolicyFactory: {
      create: (nextPolicy: { sendRequest(request: unknown): Promise<unknown> }) => ({
        sendRequest: async (request: { method: string; headers: { get(name: string): string | undefined } }) => {
          const start = performance.now();
          const response = await nextPolicy.sendRequest(request);
          timed.push({ kind: `blob ${request.headers.get('x-ms-lease-action') ?? request.method}`, start, end: performance.now() });
          return response;
        },
      }),
    },
    counts: () => ({ total: 0, table: 0, blob: 0, byKind: {} }),
    requests: () => [],
    reset: () => undefined,
  };
  const azurite = await startAzurite();
  const host = await startLocalHost({ env: { SIGNALBOX_STORAGE: azurite.connectionString }, port: 0, storageNames: prefixedStorageNames('path'), logger: silentLogger, requestCounter });
  const call = async (route: string, method: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${host.url}${route}`, { method, headers: { 'x-signalbox-client': 'bench', 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    await response.text();
  };
  const carried: string[] = [];
  let lastAnswered = Infinity;
  const bySequence = new Map<string, { rows: { start: number; end: number }[][]; answered: number[] }>();
  try {
    await call('/api/workflows/counter', 'PUT', counterWorkflow);
    for (let index = 0; index < SUBJECTS; index += 1) await call('/api/instances', 'POST', { workflowId: 'counter', instanceId: `i-${index}`, context: { count: 0 } });
    for (let sample = 0; sample < WARM_UP + SAMPLES; sample += 1) {
      if (PAUSE_MS > 0) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      const leftover = timed.filter((request) => request.start >= lastAnswered).map((request) => request.kind);
      timed.length = 0;
      const begin = performance.now();
      await call('/api/triggers', 'POST', { name: 'Increment', subjects: [`i-${sample % SUBJECTS}`] }, { prefer: 'wait=30' });
      const answered = performance.now();
      lastAnswered = answered;
      if (sample < WARM_UP) continue;
      const early = timed.filter((request) => request.start < begin).length;
      if (early + leftover.length > 0) carried.push(`${leftover.join(',')}+${early}`);
      const onPath = timed.filter((request) => request.start < answered && request.start >= begin).sort((a, b) => a.start - b.start);
      const key = onPath.map((request) => request.kind).join('|');
      const entry = bySequence.get(key) ?? { rows: [], answered: [] };
      entry.rows.push(onPath.map((request) => ({ start: request.start - begin, end: request.end - begin })));
      entry.answered.push(answered - begin);
      bySequence.set(key, entry);
    }
  } finally {
    await host.stop();
    await azurite.stop();
  }
  const [key, entry] = [...bySequence.entries()].sort((a, b) => b[1].rows.length - a[1].rows.length)[0]!;
  const kinds = key.split('|');
  const loads = (await import('node:os')).loadavg().map((value) => value.toFixed(1));
  console.log(`${entry.rows.length}/${SAMPLES} samples share this sequence; load ${loads.join(' ')}`);
  const table = kinds.map((kind, index) => {
    const start = median(entry.rows.map((row) => row[index]!.start));
    const end = median(entry.rows.map((row) => row[index]!.end));
    const gap = median(entry.rows.map((row) => row[index]!.start - (index === 0 ? 0 : Math.max(...row.slice(0, index).map((r) => r.end)))));
    return {
      request: kind,
      'start ms': start.toFixed(2),
      'end ms': end.toFixed(2),
      'took ms': median(entry.rows.map((row) => row[index]!.end - row[index]!.start)).toFixed(2),
      'gap before ms': gap.toFixed(2),
    };
  });
  table.push({
    request: 'answer',
    'start ms': median(entry.answered).toFixed(2),
    'end ms': '',
    'took ms': '',
    'gap before ms': median(entry.rows.map((row, i) => entry.answered[i]! - Math.max(...row.map((r) => r.end)))).toFixed(2),
  });
  console.table(table);
  console.log(`samples with requests after the previous answer: ${carried.length}`, carried.slice(0, 12).join(' '));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
