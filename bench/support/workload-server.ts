/**
 * @module The local server of `bench:workload` in a process of its own, so that its CPU is the server's
 * alone (the clients run in the parent). Started by workload-server-process.ts with the Azurite
 * connection in SIGNALBOX_STORAGE; answers the parent's messages over the IPC channel: its URL once
 * listening, its CPU so far, and the storage requests counted since the last `settle` (sent once no
 * request has gone out for BENCH_QUIET_MS, so a lease release or a relayed trigger after the answer is
 * counted with the trigger that caused it).
 */
import { startLocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { prefixedStorageNames } from '../../src/storage/names';
import { createRequestCounter } from '../../src/storage/request-counter';
import type { ServerReply, ServerRequest } from './workload-server-process';

const QUIET_MS = Number(process.env.BENCH_QUIET_MS ?? 400);

async function main(): Promise<void> {
  const requestCounter = createRequestCounter();
  const host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: process.env.SIGNALBOX_STORAGE ?? '' },
    port: 0,
    storageNames: prefixedStorageNames(process.env.BENCH_PREFIX ?? 'work'),
    logger: silentLogger,
    requestCounter,
  });
  const reply = (message: ServerReply): void => void process.send?.(message);
  const settled = async (): Promise<void> => {
    let last = -1;
    while (requestCounter.counts().total !== last) {
      last = requestCounter.counts().total;
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    }
  };
  process.on('message', (message: ServerRequest) => {
    void (async () => {
      if (message.type === 'settle') {
        await settled();
        const counts = requestCounter.counts();
        const requests = requestCounter.requests();
        requestCounter.reset();
        reply({ type: 'settled', id: message.id, counts, requests, cpu: process.cpuUsage() });
      } else if (message.type === 'stop') {
        await host.stop();
        // Exit at once (a CPU profile is written on exit): nothing the host left behind may keep it alive.
        process.send?.({ type: 'stopped', id: message.id } satisfies ServerReply, () => process.exit(0));
      }
    })();
  });
  reply({ type: 'ready', id: 0, url: host.url });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
