/**
 * `npm run bench:hot-instance`: many triggers queued for one instance (issue 43: at least 100 triggers/s
 * into one instance). BENCH_CLIENTS clients each send triggers to the same counter instance by its route
 * (`Prefer: wait`) until BENCH_TRIGGERS have been sent, through the local server (a process of its own)
 * on Azurite; prints triggers/s, p50/p95, server and Azurite CPU per trigger and storage requests per
 * trigger, with `uptime`. Fails unless the count is exactly the number of triggers and every one has its
 * own history entry.
 *
 *   BENCH_TRIGGERS (default 300), BENCH_CLIENTS (default 16)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import counterWorkflow from '../examples/counter.json';
import { startAzurite } from '../src/host/local/azurite';
import { json, percentile, runBench } from './support/bench-support';
import { startServerProcess } from './support/workload-server-process';

const TRIGGERS = Number(process.env.BENCH_TRIGGERS ?? 300);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);

function cpuMillisecondsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function main(): Promise<void> {
  const uptime = (): string => execFileSync('uptime', { encoding: 'utf8' }).trim();
  console.log(`start: ${uptime()}`);
  const azurite = await startAzurite();
  const server = await startServerProcess(azurite.connectionString, 'hot');
  const base = server.url;
  try {
    await json(`${base}/api/workflows/counter`, 'PUT', counterWorkflow);
    await json(`${base}/api/instances`, 'POST', { workflowId: 'counter', instanceId: 'hot', context: { count: 0 } });
    for (let index = 0; index < 10; index += 1) await json(`${base}/api/instances/hot/triggers`, 'POST', { name: 'Increment' }, { prefer: 'wait=30' });
    const before = await server.settle();
    const azuriteBefore = cpuMillisecondsOf(azurite.pid);
    const latencies: number[] = [];
    let sent = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (sent < TRIGGERS) {
          sent += 1;
          const at = performance.now();
          const answer = await json(`${base}/api/instances/hot/triggers`, 'POST', { name: 'Increment' }, { prefer: 'wait=60' });
          if (answer.status !== 200 || answer.body?.summary?.transitioned !== 1) throw new Error(`answered ${answer.status}: ${JSON.stringify(answer.body)}`);
          latencies.push(performance.now() - at);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const after = await server.settle();
    const azuriteMs = cpuMillisecondsOf(azurite.pid) - azuriteBefore;
    const instance = (await json(`${base}/api/instances/hot`)).body;
    if (instance.context.count !== TRIGGERS + 10) throw new Error(`count ${instance.context.count}, expected ${TRIGGERS + 10}`);
    const history = (await json(`${base}/api/instances/hot/history`)).body.items as unknown[];
    if (history.length < Math.min(TRIGGERS + 11, 100)) throw new Error(`only ${history.length} history entries listed`);
    latencies.sort((a, b) => a - b);
    console.table([
      {
        triggers: TRIGGERS,
        clients: CLIENTS,
        'triggers/s': (TRIGGERS / seconds).toFixed(1),
        'p50 ms': percentile(latencies, 50).toFixed(1),
        'p95 ms': percentile(latencies, 95).toFixed(1),
        'server CPU ms/trigger': ((after.cpuMs - before.cpuMs) / TRIGGERS).toFixed(2),
        'Azurite CPU ms/trigger': (azuriteMs / TRIGGERS).toFixed(2),
        'requests/trigger': (after.counts.total / TRIGGERS).toFixed(2),
      },
    ]);
    console.log(JSON.stringify(after.counts.byKind));
    console.log(`count right (${instance.context.count}); end: ${uptime()}`);
  } finally {
    await server.stop();
    await azurite.stop();
  }
}

runBench(main);
