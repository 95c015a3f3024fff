/**
 * `npm run bench:flow`: what a `flow.concurrency` policy costs and how fair it is, on an embedded Azurite
 * through the engine (no HTTP: the storage path of an application is what the policy changes).
 *
 * 1. Requests per trigger: one trigger applied to one instance, counted, without and with a policy
 *    (after a warm-up trigger each): the extra requests of the policy.
 * 2. End to end: TRIGGERS triggers applied one after the other, without and with a policy: mean time per
 *    application, and the difference.
 * 3. Fairness: 100 keys, one of them sending 100x the others' load, a policy of limit 1 per key, a pool
 *    of WORKERS applying triggers from one arrival-ordered backlog (a trigger handed back as retryable goes
 *    to the back). Jain's fairness index of applied triggers per key per second over the time the light
 *    keys had work, and the light keys' p95 latency (arrival to applied). The same without a policy, for
 *    comparison. Prints the figures; asserts nothing. Times depend on the machine's load.
 */
import { Engine, FlowQueuedError, type WorkflowDefinitionInput } from '../src/engine';
import { startAzurite } from '../src/host/local/azurite';
import { createAzureStorage } from '../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';
import { runBench } from './support/bench-support';

const TRIGGERS = Number(process.env.BENCH_FLOW_TRIGGERS ?? 100);
const LIGHT_KEYS = 99;
const LIGHT_LOAD = Number(process.env.BENCH_FLOW_LIGHT_LOAD ?? 4);
const HEAVY_FACTOR = 100;
const WORKERS = 16;

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

/** Jain's index: (sum x)^2 / (n * sum x^2); 1 when every key got the same. */
function jain(values: number[]): number {
  const sum = values.reduce((a, b) => a + b, 0);
  const squares = values.reduce((a, b) => a + b * b, 0);
  return squares === 0 ? 1 : (sum * sum) / (values.length * squares);
}

async function main(): Promise<void> {
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
    // No wait in place: a trigger without a slot is handed back at once, so a worker never idles behind the heavy key.
    await engine.createWorkflow(workflow('fair', { key: 'context.customer', limit: 1, maxWait: 'PT0S' }));
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

    // 3. Fairness.
    for (const workflowId of ['free', 'fair']) {
      const keys = Array.from({ length: LIGHT_KEYS + 1 }, (_, index) => `k${index}`);
      // One instance per trigger of the heavy key would be a different test (instances, not keys): each
      // key has a few instances, and its triggers go round them.
      const perKey = 4;
      for (const key of keys) for (let i = 0; i < perKey; i++) await engine.createInstance({ workflowId, instanceId: `${workflowId}-${key}-${i}`, context: { customer: key } });
      type Work = { key: string; instanceId: string; arrived: number; id: string };
      const backlog: Work[] = [];
      const loadOf = (key: string) => (key === 'k0' ? LIGHT_LOAD * HEAVY_FACTOR : LIGHT_LOAD);
      // Arrival order: spread every key's triggers evenly over the backlog.
      const items: { at: number; key: string; n: number }[] = [];
      for (const key of keys) for (let n = 0; n < loadOf(key); n++) items.push({ at: (n + 0.5) / loadOf(key), key, n });
      items.sort((a, b) => a.at - b.at);
      const start = performance.now();
      for (const item of items) backlog.push({ key: item.key, instanceId: `${workflowId}-${item.key}-${item.n % perKey}`, arrived: start, id: `${workflowId}-${item.key}-${item.n}` });
      const applied = new Map<string, number>();
      const lightLatencies: number[] = [];
      let lightLeft = LIGHT_KEYS * LIGHT_LOAD;
      let lightDoneAt = 0;
      const appliedBeforeLightDone = new Map<string, number>();
      await Promise.all(
        Array.from({ length: WORKERS }, async () => {
          for (let work = backlog.shift(); work; work = backlog.shift()) {
            try {
              await engine.applyTrigger(work.instanceId, { id: work.id, name: 'Work', subjects: [work.instanceId] });
            } catch (error) {
              if (error instanceof FlowQueuedError) {
                backlog.push(work);
                continue;
              }
              throw error;
            }
            applied.set(work.key, (applied.get(work.key) ?? 0) + 1);
            if (work.key !== 'k0') {
              lightLatencies.push(performance.now() - work.arrived);
              lightLeft -= 1;
              if (lightLeft === 0) {
                lightDoneAt = performance.now();
                for (const [key, count] of applied) appliedBeforeLightDone.set(key, count);
              }
            }
          }
        }),
      );
      const seconds = (lightDoneAt - start) / 1000;
      const rates = keys.map((key) => (appliedBeforeLightDone.get(key) ?? 0) / seconds);
      console.log(
        `fairness (${workflowId === 'free' ? 'no policy' : 'concurrency limit 1 per key'}): ${keys.length} keys, k0 sends ${HEAVY_FACTOR}x (${loadOf('k0')} vs ${LIGHT_LOAD}), ${WORKERS} workers: ` +
          `Jain's index ${jain(rates).toFixed(3)} over the ${seconds.toFixed(1)} s the light keys had work (k0 ${rates[0]!.toFixed(2)}/s, a light key ${(rates.slice(1).reduce((a, b) => a + b, 0) / LIGHT_KEYS).toFixed(2)}/s); light keys' p95 ${percentile(lightLatencies, 95).toFixed(0)} ms`,
      );
    }
  } finally {
    await azurite.stop();
  }
}

runBench(main);
