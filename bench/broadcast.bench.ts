/**
 * `npm run bench:broadcast`: one trigger to BENCH_FANOUT_INSTANCES (default 10,000) instances by one
 * subject, through the local server on Azurite, the client waiting (`Prefer: wait`, asked again while
 * the operation runs). Prints instances per second, the CPU the broadcast cost per instance in this
 * process (server and client) and in Azurite, and the peak memory during it: this process's RSS
 * sampled every 100 ms, and Azurite's peak RSS (VmHWM) after it. Asserts nothing.
 *
 * The instances are made through the API first (32 at a time); each has its lease blob from creation,
 * so the broadcast costs acquire, read, save and release per instance, as on a warm system.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import counterWorkflow from '../examples/counter.json';
import { startAzurite } from '../src/host/local/azurite';
import { startLocalHost } from '../src/host/local/local-host';
import { silentLogger } from '../src/host/local/logger';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';
import { json, loadAverage, runBench } from './support/bench-support';

const INSTANCES = Number(process.env.BENCH_FANOUT_INSTANCES ?? 10000);
const WAIT = { prefer: 'wait=60' };

/** CPU time (user + system) of a process so far, and its peak RSS, from /proc (Linux; 0 elsewhere). */
function procOf(pid: number | undefined): { cpuMs: number; peakRssMiB: number } {
  if (pid === undefined) return { cpuMs: 0, peakRssMiB: 0 };
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const peak = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return { cpuMs: (Number(fields[11]) + Number(fields[12])) * 10, peakRssMiB: Number(peak ?? 0) / 1024 };
  } catch {
    return { cpuMs: 0, peakRssMiB: 0 };
  }
}

async function main(): Promise<void> {
  const azurite = await startAzurite();
  // Counts the broadcast's storage requests by kind (reset just before it).
  const requestCounter = createRequestCounter();
  const host = await startLocalHost({ requestCounter, env: { SIGNALBOX_STORAGE: azurite.connectionString }, port: 0, storageNames: prefixedStorageNames('broadcast'), logger: silentLogger });
  const base = host.url;
  try {
    await json(`${base}/api/workflows/counter`, 'PUT', counterWorkflow);
    let next = 0;
    const creationBegin = performance.now();
    const progress = setInterval(() => console.error(`created ${next} of ${INSTANCES} (${((performance.now() - creationBegin) / 1000).toFixed(0)} s)`), 30_000);
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < INSTANCES) await json(`${base}/api/instances`, 'POST', { workflowId: 'counter', instanceId: `i-${next++}`, context: { count: 0 } });
      }),
    );
    clearInterval(progress);
    console.log(`created ${INSTANCES} instances through the API in ${((performance.now() - creationBegin) / 1000).toFixed(1)} s`);
    // Warm-up: one trigger to one instance (JIT, connections).
    await json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: ['i-0'] }, WAIT);

    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);
    requestCounter.reset();
    const ownBefore = process.cpuUsage();
    const azuriteBefore = procOf(azurite.pid).cpuMs;
    const begin = performance.now();
    let answer = await json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: ['counters'] }, WAIT);
    // The 202's body names the operation; the operation's own representation (a 202 while it runs) calls it `id`.
    const operationId: string = answer.body.operationId;
    while (answer.status !== 200) {
      if (answer.status !== 202) throw new Error(`the broadcast's operation answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      answer = await json(`${base}/api/operations/${operationId}`, 'GET', undefined, WAIT);
    }
    const seconds = (performance.now() - begin) / 1000;
    clearInterval(sampler);
    const own = process.cpuUsage(ownBefore);
    const azuriteAfter = procOf(azurite.pid);
    const operation = answer.body;
    console.log(`\nbroadcast to ${INSTANCES} instances; load average ${loadAverage()}`);
    console.table([
      {
        measure: `one trigger → ${INSTANCES} instances`,
        value: `${(operation.candidates / seconds).toFixed(0)} instances/s (${operation.summary.transitioned} transitioned, ${seconds.toFixed(1)} s)`,
      },
      {
        measure: 'CPU per instance',
        value: `this process ${((own.user + own.system) / 1000 / operation.candidates).toFixed(2)} ms, Azurite ${((azuriteAfter.cpuMs - azuriteBefore) / operation.candidates).toFixed(2)} ms`,
      },
      { measure: 'storage requests per instance', value: `${(requestCounter.counts().total / operation.candidates).toFixed(2)} ${JSON.stringify(requestCounter.counts().byKind)}` },
      { measure: 'RSS of this process (server and client) before / peak during', value: `${(rssBefore / 2 ** 20).toFixed(0)} MiB / ${(rssPeak / 2 ** 20).toFixed(0)} MiB` },
      { measure: 'Azurite peak RSS (whole run)', value: `${azuriteAfter.peakRssMiB.toFixed(0)} MiB` },
    ]);
  } finally {
    await host.stop();
    await azurite.stop();
  }
}

runBench(main);
