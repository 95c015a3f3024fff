/**
 * `npm run bench:flow`: what a `flow.concurrency` policy costs and how fair it is, on an embedded Azurite.
 *
 * 1. Requests per trigger: one trigger applied to one instance, counted, without and with a policy
 *    (after a warm-up trigger each): the extra requests of the policy (through the engine: the storage
 *    path of an application is what the policy changes).
 * 2. End to end: TRIGGERS triggers applied one after the other, without and with a policy: mean time per
 *    application, and the difference (through the engine).
 * 3. Fairness, through a local server's real runner (16 workers): 100 keys with 4 instances each, one key
 *    (k0) sending 100x the others' load, open loop: over WINDOW seconds each light key sends LIGHT_LOAD
 *    triggers and k0 100 times as many, evenly spread, each submitted to the runner as the API would. With
 *    a policy of limit 1 per key, and without one for comparison. Figures over the window:
 *    - Jain's fairness index on normalised throughput, as Jain, Chiu and Hawe (1984) define it for
 *      fairness against an optimal allocation: x_i = key i's applied rate / its max-min fair share, where
 *      the shares are the max-min fair allocation (water-filling) of the total applied rate among the keys
 *      by their offered rates; J = (sum x)^2 / (n sum x^2). A light key that got all it asked for and k0
 *      getting the rest score 1 each. The raw index of applied rates is printed too: it rates k0's
 *      larger (fair) share as unfairness, so it is low whenever k0 is served at all.
 *    - the light keys' p95 (arrival to applied), and triggers not applied by the end (drained afterwards:
 *      none may be lost).
 * Prints the figures and the load average; asserts nothing. Times depend on the machine's load.
 *
 *    - the storage requests the run made per trigger (a deterministic measure of the work the runner did).
 *    Each entry of BENCH_FLOW_RUNNERS runs it on a fresh server: `hints` (the runner's key hints, the
 *    default) or `no-hints` (every trigger loads its instance first, as before them), so that
 *    `no-hints,hints,no-hints,hints` compares the two interleaved in one run.
 *
 *   BENCH_FLOW_TRIGGERS (default 100), BENCH_FLOW_LIGHT_LOAD (default 4), BENCH_FLOW_WINDOW_S (default 40),
 *   BENCH_FLOW_SECTIONS (default "1,2,3"), BENCH_FLOW_RUNNERS (default "hints"), BENCH_FLOW_POLICIES
 *   (default "fair,free": with the policy, and without)
 */
import { loadavg } from 'node:os';
import { Engine, type WorkflowDefinitionInput } from '../src/engine';
import { startAzurite } from '../src/host/local/azurite';
import { startLocalHost } from '../src/host/local/local-host';
import { silentLogger } from '../src/host/local/logger';
import { createAzureStorage } from '../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';
import { runBench } from './support/bench-support';

const TRIGGERS = Number(process.env.BENCH_FLOW_TRIGGERS ?? 100);
const LIGHT_KEYS = 99;
const LIGHT_LOAD = Number(process.env.BENCH_FLOW_LIGHT_LOAD ?? 4);
const HEAVY_FACTOR = 100;
const WORKERS = 16;
const WINDOW_S = Number(process.env.BENCH_FLOW_WINDOW_S ?? 40);
const SECTIONS = new Set((process.env.BENCH_FLOW_SECTIONS ?? '1,2,3').split(','));
const RUNNERS = (process.env.BENCH_FLOW_RUNNERS ?? 'hints').split(',');
const POLICIES = (process.env.BENCH_FLOW_POLICIES ?? 'fair,free').split(',');

function workflow(id: string, concurrency?: object): WorkflowDefinitionInput {
  return {
    id,
    displayName: id,
    initialStateId: 'open',
    ...(concurrency ? { flow: { concurrency } } : {}),
    states: {
      open: {
        transitions: [
          { id: 'work', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Work' }], actions: [{ type: 'setContext', expressions: { n: '$exists(context.n) ? context.n + 1 : 1' } }] },
        ],
      },
    },
  } as WorkflowDefinitionInput;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Jain's index: (sum x)^2 / (n * sum x^2); 1 when every x is the same. */
function jain(values: number[]): number {
  const sum = values.reduce((a, b) => a + b, 0);
  const squares = values.reduce((a, b) => a + b * b, 0);
  return squares === 0 ? 1 : (sum * sum) / (values.length * squares);
}

/**
 * The max-min fair allocation of `total` among demands (water-filling): the smallest demands are met in
 * full, the rest share what is left equally. Each share is at most its demand.
 */
function maxMinShares(demands: readonly number[], total: number): number[] {
  const shares = demands.map(() => 0);
  let left = total;
  let open = demands.map((_, index) => index).sort((a, b) => demands[a]! - demands[b]!);
  while (open.length > 0 && left > 1e-12) {
    const level = left / open.length;
    const smallest = demands[open[0]!]! - shares[open[0]!]!;
    const step = Math.min(level, smallest);
    for (const index of open) shares[index]! += step;
    left -= step * open.length;
    open = open.filter((index) => demands[index]! - shares[index]! > 1e-12);
  }
  return shares;
}

async function main(): Promise<void> {
  if (SECTIONS.has('1') || SECTIONS.has('2')) await costs();
  if (SECTIONS.has('3'))
    for (const runner of RUNNERS) {
      if (runner !== 'hints' && runner !== 'no-hints') throw new Error(`BENCH_FLOW_RUNNERS: hints or no-hints, not ${runner}`);
      await fairness(runner === 'hints');
    }
}

/** Sections 1 and 2, through the engine. */
async function costs(): Promise<void> {
  const azurite = await startAzurite();
  const counter = createRequestCounter();
  const storage = await createAzureStorage({ connection: azurite.connectionString, names: prefixedStorageNames('flowbench'), requestCounter: counter });
  const engine = new Engine(
    {
      workflows: storage.workflows,
      instances: storage.instances,
      history: storage.history,
      outbox: storage.outbox,
      events: storage.events,
      interests: storage.interests,
      leases: storage.leases,
      flow: storage.flow,
    },
    { leaseDurationInSeconds: 15, flowSlotTtlInMs: 15_000, logger: { info: () => {}, warn: () => {}, error: () => {} } },
  );
  try {
    await engine.createWorkflow(workflow('free'));
    await engine.createWorkflow(workflow('limited', { key: 'context.customer', limit: 1 }));
    await engine.createInstance({ workflowId: 'free', instanceId: 'free-1', context: { customer: 'c1' } });
    await engine.createInstance({ workflowId: 'limited', instanceId: 'limited-1', context: { customer: 'c1' } });

    // 1. Requests per trigger.
    let sequence = 0;
    const apply = (instanceId: string) => engine.applyTrigger(instanceId, { id: `t-${++sequence}`, name: 'Work', subjects: [instanceId] });
    const requestsOf = async (instanceId: string): Promise<{ total: number; byKind: Readonly<Record<string, number>> }> => {
      await apply(instanceId);
      await new Promise((resolve) => setTimeout(resolve, 300));
      counter.reset();
      await apply(instanceId);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return counter.counts();
    };
    const free = await requestsOf('free-1');
    const limited = await requestsOf('limited-1');
    console.log(`requests per application: without a policy ${free.total}, with concurrency ${limited.total} (+${limited.total - free.total})`);
    console.log(`  without: ${JSON.stringify(free.byKind)}`);
    console.log(`  with:    ${JSON.stringify(limited.byKind)}`);

    // 2. End to end, one after the other.
    const timed = async (instanceId: string): Promise<number> => {
      const started = performance.now();
      for (let index = 0; index < TRIGGERS; index++) await apply(instanceId);
      return (performance.now() - started) / TRIGGERS;
    };
    const freeMs = await timed('free-1');
    const limitedMs = await timed('limited-1');
    console.log(`end to end, ${TRIGGERS} applications one after the other: ${freeMs.toFixed(1)} ms without a policy, ${limitedMs.toFixed(1)} ms with (+${(limitedMs - freeMs).toFixed(1)} ms)`);
  } finally {
    await azurite.stop();
  }
}

/** Section 3: through a local server's runner, open loop over WINDOW_S seconds. */
async function fairness(keyHints: boolean): Promise<void> {
  const azurite = await startAzurite();
  const counter = createRequestCounter();
  const host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: azurite.connectionString },
    port: 0,
    storageNames: prefixedStorageNames(`flowfair${Date.now().toString(36)}`),
    logger: silentLogger,
    requestCounter: counter,
    runner: { keyHints },
  });
  const runtime = (await host.tenantRuntime('default'))!;
  const { engine } = host.core;
  try {
    await engine.createWorkflow(workflow('free'));
    await engine.createWorkflow(workflow('fair', { key: 'context.customer', limit: 1 }));
    for (const workflowId of POLICIES) {
      const keys = Array.from({ length: LIGHT_KEYS + 1 }, (_, index) => `k${index}`);
      const perKey = 4;
      const instanceOf = (key: string, n: number) => `${workflowId}-${key}-${n % perKey}`;
      for (const key of keys) for (let i = 0; i < perKey; i++) await engine.createInstance({ workflowId, instanceId: instanceOf(key, i), context: { customer: key } });
      const loadOf = (key: string) => (key === 'k0' ? LIGHT_LOAD * HEAVY_FACTOR : LIGHT_LOAD);
      // Arrivals: every key's triggers evenly over the window.
      const items: { atMs: number; key: string; n: number }[] = [];
      for (const key of keys) for (let n = 0; n < loadOf(key); n++) items.push({ atMs: ((n + 0.5) / loadOf(key)) * WINDOW_S * 1000, key, n });
      items.sort((a, b) => a.atMs - b.atMs);
      const appliedAt = new Map<string, number[]>();
      const lightLatencies: number[] = [];
      const done: Promise<void>[] = [];
      counter.reset();
      const start = performance.now();
      for (const item of items) {
        const wait = start + item.atMs - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const arrived = performance.now();
        const instanceId = instanceOf(item.key, item.n);
        done.push(
          runtime.services.triggers.submit({ id: `${workflowId}-${item.key}-${item.n}`, name: 'Work', subjects: [instanceId] }, undefined, { instanceId }).then(async (operation) => {
            await runtime.runner.whenDone(operation.id);
            const at = performance.now();
            appliedAt.set(item.key, [...(appliedAt.get(item.key) ?? []), at - start]);
            if (item.key !== 'k0') lightLatencies.push(at - arrived);
          }),
        );
      }
      const windowEnd = Math.max(WINDOW_S * 1000, performance.now() - start);
      const appliedInWindow = keys.map((key) => (appliedAt.get(key) ?? []).filter((at) => at <= windowEnd).length);
      // Drained: every trigger applied (the instances' counts say so), none lost.
      await Promise.all(done);
      const requests = counter.counts().total;
      let counted = 0;
      for (const key of keys) for (let i = 0; i < perKey; i++) counted += Number((await engine.getInstance(instanceOf(key, i))).context.n ?? 0);
      const seconds = windowEnd / 1000;
      const rates = appliedInWindow.map((count) => count / seconds);
      const demands = keys.map((key) => loadOf(key) / seconds);
      const shares = maxMinShares(
        demands,
        rates.reduce((a, b) => a + b, 0),
      );
      const normalised = rates.map((rate, index) => (shares[index]! > 0 ? rate / shares[index]! : 1));
      const lightRates = rates.slice(1);
      console.log(
        `fairness (${workflowId === 'free' ? 'no policy' : 'concurrency limit 1 per key'}, ${keyHints ? 'key hints' : 'no key hints'}): ${keys.length} keys, k0 sends ${HEAVY_FACTOR}x (${loadOf('k0')} vs ${LIGHT_LOAD} over ${WINDOW_S} s), runner of ${WORKERS} workers: ` +
          `Jain's index on normalised throughput (applied rate / max-min fair share) ${jain(normalised).toFixed(3)}, raw ${jain(rates).toFixed(3)}, over ${seconds.toFixed(1)} s ` +
          `(k0 ${rates[0]!.toFixed(2)}/s of a fair ${shares[0]!.toFixed(2)}/s; light keys ${(lightRates.reduce((a, b) => a + b, 0) / LIGHT_KEYS).toFixed(3)}/s each of ${(LIGHT_LOAD / seconds).toFixed(3)}/s asked, ` +
          `${appliedInWindow.slice(1).reduce((a, b) => a + b, 0)}/${LIGHT_KEYS * LIGHT_LOAD} applied in the window); light keys' p95 ${percentile(lightLatencies, 95).toFixed(0)} ms, p50 ${percentile(lightLatencies, 50).toFixed(0)} ms; ` +
          `after draining ${counted}/${items.length} applied, ${(requests / items.length).toFixed(1)} storage requests per trigger; load ${loadavg()
            .map((load) => load.toFixed(1))
            .join(' ')}`,
      );
    }
  } finally {
    await host.stop();
    await azurite.stop();
  }
}

runBench(main);
