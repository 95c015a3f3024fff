/**
 * `npm run bench:flow-chaos`: the randomized crash-and-race run of flow control (test/support/flow-chaos.ts)
 * at a larger size than the suite's: two local servers on an embedded Azurite, 20 kill cycles by default.
 * Prints, per mechanism (concurrency, capacity, rate, debounce, unique), triggers accepted, lost, doubled, the
 * most seen at once (in flight, sampled in the state, calls in a period, live holders) and the violations, with
 * the kills, the seed and the load.
 *
 *   BENCH_CHAOS_SEED, BENCH_CHAOS_CYCLES (20), BENCH_CHAOS_SERVERS (2), BENCH_CHAOS_TRIGGERS (80 per cycle, over
 *   the four trigger mechanisms), BENCH_CHAOS_KEYS (4), BENCH_CHAOS_LIMIT (2), BENCH_CHAOS_CREATIONS (30 per cycle)
 */
import { loadavg } from 'node:os';
import { startAzurite } from '../src/host/local/azurite';
import { brokenPromises, runFlowChaos } from '../test/support/flow-chaos';

async function main(): Promise<void> {
  const seed = Number(process.env.BENCH_CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const azurite = await startAzurite();
  const started = Date.now();
  try {
    const report = await runFlowChaos({
      connectionString: azurite.connectionString,
      seed,
      cycles: Number(process.env.BENCH_CHAOS_CYCLES ?? 20),
      servers: process.env.BENCH_CHAOS_SERVERS === '1' ? 1 : 2,
      triggersPerCycle: Number(process.env.BENCH_CHAOS_TRIGGERS ?? 80),
      keys: Number(process.env.BENCH_CHAOS_KEYS ?? 4),
      instancesPerKey: 4,
      limit: Number(process.env.BENCH_CHAOS_LIMIT ?? 2),
      creationsPerCycle: Number(process.env.BENCH_CHAOS_CREATIONS ?? 30),
      uniqueKeysPerCycle: 4,
      drainTimeoutInMs: Number(process.env.BENCH_CHAOS_DRAIN_MS ?? 180_000),
      log: (line) => console.info(`${new Date().toISOString()} ${line}`),
    });
    console.info(
      `load average ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}; ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    console.info(JSON.stringify(report, null, 2));
    const broken = brokenPromises(report);
    console.info(`broken promises: ${JSON.stringify(broken)}`);
    if (Object.values(broken).some((count) => count > 0)) process.exitCode = 1;
  } finally {
    await azurite.stop();
  }
}

void main();
