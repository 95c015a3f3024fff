/**
 * `npm run bench:events`: what lifecycle events cost the trigger path (issue 14), on an in-memory
 * Azurite started for the run. Prints figures; asserts nothing.
 *
 * 1. Storage requests per trigger application, with no subscription and with one (the event record and
 *    its outbox row ride in the save's transaction; the relay hands the event to delivery).
 * 2. Applications per second at concurrency 8 across distinct instances, with no subscription and with
 *    one whose deliveries run in the same process to a loopback subscriber (as the local server does).
 *
 *   BENCH_SECONDS (default 3) per measurement, BENCH_ROUNDS (default 3, median reported).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { silentLogger } from '../src/engine/steps';
import { Engine } from '../src/engine/engine';
import { startAzurite } from '../src/host/local/azurite';
import { createOutboundClient } from '../src/outbound/outbound-client';
import { createAzureStorage } from '../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';
import counterWorkflow from '../examples/counter.json';
import { runBench } from './support/bench-support';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 8;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

let sequence = 0;
const trigger = (instanceId: string) => ({ id: `t-${++sequence}`, name: 'Increment', subjects: [instanceId] });

async function main(): Promise<void> {
  const azurite = await startAzurite();
  let received = 0;
  const subscriber = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => subscriber.listen(0, '127.0.0.1', resolve));
  try {
    const counter = createRequestCounter();
    const storage = await createAzureStorage({ connection: azurite.connectionString, names: prefixedStorageNames('evbench'), requestCounter: counter });
    const ports = {
      workflows: storage.workflows,
      instances: storage.instances,
      history: storage.history,
      outbox: storage.outbox,
      events: storage.events,
      interests: storage.interests,
      leases: storage.leases,
    };
    const http = createOutboundClient({ allowedHosts: ['127.0.0.1'], maxRetries: 0 });
    const engine = new Engine(ports, { logger: silentLogger, http, events: { http } });
    const url = `http://127.0.0.1:${(subscriber.address() as AddressInfo).port}/hook`;
    await engine.createWorkflow({ ...counterWorkflow, id: 'plain' });
    await engine.createWorkflow({ ...counterWorkflow, id: 'subscribed', subscriptions: [{ id: 'hook', url }] });

    const variants = ['plain', 'subscribed'] as const;
    const ids: Record<(typeof variants)[number], string[]> = { plain: [], subscribed: [] };
    for (const workflowId of variants) {
      for (let i = 0; i < CONCURRENCY; i++) {
        const instanceId = `${workflowId}-${i}`;
        ids[workflowId].push(instanceId);
        await engine.createInstance({ workflowId, instanceId, context: { count: 0 } });
        await engine.applyTrigger(instanceId, trigger(instanceId)); // warm: the lease blob is created on first use
      }
    }
    await engine.eventDeliveriesIdle();

    console.log('1. storage requests per trigger application (the trigger path: lease, load, save, relay)');
    const quiet = engine.withDelivery({ event: async () => {} }); // the hand-off only: deliveries are not counted here
    for (const workflowId of variants) {
      counter.reset();
      const rounds = 20;
      for (let i = 0; i < rounds; i++) await quiet.applyTrigger(ids[workflowId][0]!, trigger(ids[workflowId][0]!));
      const counts = counter.counts();
      const byKind = Object.fromEntries(Object.entries(counts.byKind).map(([kind, count]) => [kind, count / rounds]));
      console.log(`   ${workflowId.padEnd(10)} ${(counts.total / rounds).toFixed(2)}  ${JSON.stringify(byKind)}`);
    }
    await engine.eventDeliveriesIdle();

    console.log(`2. applications per second, concurrency ${CONCURRENCY}, ${SECONDS} s x ${ROUNDS} rounds (median), deliveries in process to a loopback subscriber`);
    for (const workflowId of variants) {
      const rates: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const deadline = performance.now() + SECONDS * 1000;
        let applied = 0;
        const start = performance.now();
        await Promise.all(
          ids[workflowId].map(async (instanceId) => {
            while (performance.now() < deadline) {
              await engine.applyTrigger(instanceId, trigger(instanceId));
              applied++;
            }
          }),
        );
        rates.push(applied / ((performance.now() - start) / 1000));
        await engine.eventDeliveriesIdle();
      }
      console.log(`   ${workflowId.padEnd(10)} ${median(rates).toFixed(1)}/s  (rounds: ${rates.map((rate) => rate.toFixed(1)).join(', ')})`);
    }
    console.log(`   events received by the subscriber: ${received}`);
  } finally {
    subscriber.close();
    await azurite.stop();
  }
}

runBench(main);
