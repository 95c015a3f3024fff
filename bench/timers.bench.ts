/**
 * `npm run bench:timers`: 10,000 armed timers on 10,000 instances falling due within the same minute,
 * fired by the local server's storage-driven scheduler on Azurite (in-memory). Prints a table; asserts
 * nothing (figures go in the notes).
 *
 * Phase 1 creates the instances through the server's engine, each arming one `at` timer, all due within one
 * minute an hour ahead. The server then stops, and a second one starts with its clock an hour ahead (less
 * a few seconds), so the timers fall due while it runs, from the storage index alone (as after a
 * restart). Measured: time from the first due time until every timer's trigger has been applied, the
 * delay after the last due time, storage requests per fired timer (against the requests of one trigger
 * applied to one instance, measured in the same run), and peak memory of the process.
 *
 *   BENCH_TIMERS (default 10000)
 */
import { performance } from 'node:perf_hooks';
import { startAzurite } from '../src/host/local/azurite';
import { startLocalHost } from '../src/host/local/local-host';
import { silentLogger } from '../src/host/local/logger';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';
import { runBench } from './support/bench-support';

const TIMERS = Number(process.env.BENCH_TIMERS ?? 10_000);
const HOUR = 3600_000;
const LEAD_IN_MS = 5000;

const workflow = {
  id: 'deadline',
  displayName: 'Deadline',
  initialStateId: 'waiting',
  states: {
    waiting: {
      transitions: [
        { id: 'touch', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'Touch' }] },
        { id: 'expire', targetStateId: 'expired', timer: { at: 'context.dueAt' } },
      ],
    },
    expired: {},
  },
};

async function json(url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  // The server refuses a state-changing request without a JSON body type or X-Signalbox-Client (web pages cannot send either).
  const response = await fetch(url, {
    method,
    headers: { 'x-signalbox-client': 'bench', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const azurite = await startAzurite();
  const names = prefixedStorageNames('tbench');
  const env = { SIGNALBOX_STORAGE: azurite.connectionString };
  try {
    // Phase 1: instances with timers due within one minute, an hour from now.
    const firstDue = Date.now() + HOUR;
    const creating = await startLocalHost({ env, port: 0, storageNames: names, logger: silentLogger });
    const createStarted = performance.now();
    await json(`${creating.url}/api/workflows/deadline`, 'PUT', workflow);
    // In process, through the server's own engine (every storage call of a create, without HTTP).
    const engine = creating.core.servicesFor(creating.runner).engine;
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < TIMERS) {
          const index = next++;
          const dueAt = new Date(firstDue + Math.floor((index * 60_000) / TIMERS)).toISOString();
          await engine.createInstance({ workflowId: 'deadline', instanceId: `d-${index}`, context: { dueAt } });
          if ((index + 1) % 1000 === 0) console.error(`created ${index + 1}`);
        }
      }),
    );
    const createSeconds = (performance.now() - createStarted) / 1000;
    await creating.stop();

    // Phase 2: a new server whose clock is an hour ahead, less the lead-in: the timers fall due as it runs.
    const offset = HOUR - LEAD_IN_MS;
    const requestCounter = createRequestCounter();
    const host = await startLocalHost({ env, port: 0, storageNames: names, logger: silentLogger, requestCounter, engineOptions: { clock: { now: () => new Date(Date.now() + offset) } } });
    let peakRss = process.memoryUsage().rss;
    let peakHeap = process.memoryUsage().heapUsed;
    const sampler = setInterval(() => {
      const usage = process.memoryUsage();
      peakRss = Math.max(peakRss, usage.rss);
      peakHeap = Math.max(peakHeap, usage.heapUsed);
    }, 100);
    try {
      requestCounter.reset();
      const lastDue = firstDue + Math.floor(((TIMERS - 1) * 60_000) / TIMERS);
      for (let reported = 0; host.timers.fired < TIMERS; await new Promise((resolve) => setTimeout(resolve, 50))) {
        if (host.timers.fired >= reported + 1000) console.error(`fired ${(reported = host.timers.fired)}`);
      }
      while (host.runner.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const doneAt = Date.now() + offset;
      const timerRequests = requestCounter.counts();

      // The same server, one trigger to one instance, in process (POST /api/triggers without the polls).
      const services = host.core.servicesFor(host.runner);
      requestCounter.reset();
      const operation = await services.triggers.submit({ id: 'touch-once', name: 'Touch', subjects: ['touch-target'] });
      await host.runner.whenDone(operation.id);
      const emptyTrigger = requestCounter.counts();
      await json(`${host.url}/api/instances`, 'POST', { workflowId: 'deadline', instanceId: 'touch-target', context: { dueAt: new Date(firstDue + 10 * HOUR).toISOString() } });
      requestCounter.reset();
      const touch = await services.triggers.submit({ id: 'touch-twice', name: 'Touch', subjects: ['touch-target'] });
      await host.runner.whenDone(touch.id);
      const oneTrigger = requestCounter.counts();

      let expired = 0;
      for (let index = 0; index < TIMERS; index += 500) {
        const batch = await Promise.all(Array.from({ length: Math.min(500, TIMERS - index) }, (_, offsetInBatch) => json(`${host.url}/api/instances/d-${index + offsetInBatch}`)));
        expired += batch.filter((result) => result.body.stateId === 'expired').length;
      }

      console.log(`\nSignalbox timer benchmark: local server on Azurite (in-memory), ${TIMERS} timers due within one minute`);
      console.table([
        { measure: `creating ${TIMERS} instances with a timer (in process, 32 at a time)`, value: `${createSeconds.toFixed(1)} s (${(TIMERS / createSeconds).toFixed(0)}/s)` },
        { measure: 'first due time → every timer applied', value: `${((doneAt - firstDue) / 1000).toFixed(1)} s (the due times span 60 s)` },
        { measure: 'last due time → every timer applied', value: `${((doneAt - lastDue) / 1000).toFixed(1)} s` },
        { measure: 'instances expired (checked over HTTP)', value: `${expired} of ${TIMERS}` },
        { measure: 'storage requests per fired timer', value: `${(timerRequests.total / TIMERS).toFixed(2)} (${timerRequests.total} in all: ${JSON.stringify(timerRequests.byKind)})` },
        { measure: 'storage requests of one trigger applied to one instance', value: `${oneTrigger.total} ${JSON.stringify(oneTrigger.byKind)}` },
        { measure: 'storage requests of one trigger that finds no instance', value: `${emptyTrigger.total}` },
        { measure: 'peak RSS / heap used while firing', value: `${mb(peakRss)} / ${mb(peakHeap)}` },
      ]);
    } finally {
      clearInterval(sampler);
      await host.stop();
    }
  } finally {
    await azurite.stop();
  }
}

runBench(main);
