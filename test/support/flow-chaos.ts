/**
 * A randomized crash-and-race run of flow control against real local servers (child processes) on one
 * storage account (issue 42): concurrent senders of triggers to instances under a `flow.concurrency` limit
 * and of creations under a `flow.unique` key, while a random server is SIGKILLed at a random moment of each
 * cycle and started again. Checked against a model of what was promised:
 * - no key ever ran more than its limit at once (the external service each application calls counts the
 *   calls in flight per key, at every call: not sampled);
 * - every trigger answered 202 was applied exactly once (each instance's history, read at the end);
 * - no unique key ever had two live holders (every live instance read at the end, and every 201 answered:
 *   two creations answered 201 for one key while the first had not ended is a violation), and no creation
 *   answered a 5xx.
 * Seeded (mulberry32): the same seed makes the same choices of instances, keys and kill points; what the
 * servers do in between is up to the machine, which is the point. The test prints the seed to replay it.
 */
import type { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { collectAll } from '../../src/testing';
import { onePage } from '../../src/engine/ports';
import { freePort } from '../../src/host/local/azurite';
import { createAzureStorage, type AzureStorage } from '../../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../../src/storage/names';
import { appliedTriggerCounts } from './applied-triggers';
import { CapacitySampler, capacityWorkflow, checkRate, concurrencyWorkflow, debounceWorkflow, rateWorkflow, startCallRecorder, uniqueWorkflow, type Incarnation } from './flow-chaos-mechanisms';
import { startInFlightService } from './in-flight-service';
import { startServerProcess } from './server-process';
import { uniquePrefix } from './storage';

export interface FlowChaosOptions {
  readonly connectionString: string;
  readonly seed: number;
  /** Kill cycles: each sends its share of the load and kills one server at a random moment. */
  readonly cycles: number;
  /** Local servers on the one storage account (Azure runs several workers). */
  readonly servers: 1 | 2;
  /** Triggers sent per cycle, each to a mechanism chosen at random (concurrency, capacity, rate, debounce). */
  readonly triggersPerCycle: number;
  /** Customers (keys) of each mechanism, and instances per customer. */
  readonly keys: number;
  readonly instancesPerKey: number;
  /** The concurrency limit and the capacity of the `busy` state, per key. */
  readonly limit: number;
  /** Rate limit per key: `rateLimit` calls per `ratePeriodMs`, bucket `rateBurst`. @default 3 per 1000 ms, burst 3 */
  readonly rateLimit?: number;
  readonly ratePeriodMs?: number;
  readonly rateBurst?: number;
  /** Creations sent per cycle under the unique key, spread over `uniqueKeysPerCycle` keys. */
  readonly creationsPerCycle: number;
  readonly uniqueKeysPerCycle: number;
  /** How long the run may take to apply every accepted trigger after the last cycle. */
  readonly drainTimeoutInMs: number;
  readonly log?: (line: string) => void;
}

/** One mechanism's figures: triggers answered 202, how many were never applied and how many twice. */
export interface MechanismFigures {
  readonly accepted: number;
  readonly lost: number;
  readonly doubled: number;
}

export interface FlowChaosReport {
  readonly seed: number;
  readonly cycles: number;
  readonly kills: number;
  /** Over every mechanism. */
  readonly triggersAccepted: number;
  readonly triggersRefused: number;
  readonly lost: number;
  readonly doubled: number;
  readonly concurrency: MechanismFigures & { readonly limit: number; readonly maxConcurrencySeen: number; readonly limitViolations: number };
  readonly capacity: MechanismFigures & { readonly limit: number; readonly samples: number; readonly maxSampled: number; readonly violations: number };
  readonly rate: MechanismFigures & { readonly limit: string; readonly calls: number; readonly maxInPeriod: number; readonly violations: number };
  readonly debounce: MechanismFigures & { readonly burstsApplied: number };
  readonly unique: { readonly creationsAccepted: number; readonly creationsRefused409: number; readonly creations5xx: number; readonly maxLiveHolders: number; readonly violations: number };
}

/** mulberry32: small, seedable, good enough to choose test inputs. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface RunningServer {
  child: ChildProcess;
  url: string;
}

async function request(baseUrl: string, method: string, path: string, json?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: json !== undefined ? { 'content-type': 'application/json' } : {},
    ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

type Mechanism = 'concurrency' | 'capacity' | 'rate' | 'debounce';

/** Each mechanism's workflow, trigger name, id prefix and instance prefix; chosen per trigger with these weights. */
const MECHANISMS: readonly { readonly mechanism: Mechanism; readonly weight: number; readonly name: string; readonly prefix: string; readonly instances: string; readonly workflowId: string }[] = [
  { mechanism: 'concurrency', weight: 0.35, name: 'Work', prefix: 'w-', instances: 'l', workflowId: 'chaos-limited' },
  { mechanism: 'capacity', weight: 0.25, name: 'Step', prefix: 's-', instances: 'cap', workflowId: 'chaos-capacity' },
  { mechanism: 'rate', weight: 0.2, name: 'Call', prefix: 'r-', instances: 'rt', workflowId: 'chaos-rate' },
  { mechanism: 'debounce', weight: 0.2, name: 'Update', prefix: 'd-', instances: 'db', workflowId: 'chaos-debounce' },
];

function chooseMechanism(random: () => number) {
  let at = random();
  for (const choice of MECHANISMS) {
    if (at < choice.weight) return choice;
    at -= choice.weight;
  }
  return MECHANISMS[0]!;
}

export async function runFlowChaos(options: FlowChaosOptions): Promise<FlowChaosReport> {
  const random = seededRandom(options.seed);
  const log = options.log ?? (() => {});
  const rate = { limit: options.rateLimit ?? 3, periodMs: options.ratePeriodMs ?? 1000, burst: options.rateBurst ?? 3 };
  const external = await startInFlightService(options.limit, 2);
  const recorder = await startCallRecorder();
  const prefix = uniquePrefix('chaos');
  const base = { SIGNALBOX_STORAGE: options.connectionString, SIGNALBOX_STORAGE_PREFIX: prefix, SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' };
  const envs = await Promise.all(Array.from({ length: options.servers }, async () => ({ ...base, PORT: String(await freePort()) })));
  const servers: (RunningServer | undefined)[] = [];
  const lives: (Incarnation | undefined)[] = [];
  const incarnations: Incarnation[] = [];
  const everyChild: ChildProcess[] = [];
  const start = async (index: number): Promise<void> => {
    const life: Incarnation = { startedAt: Date.now() };
    incarnations.push(life);
    lives[index] = life;
    const server = await startServerProcess(envs[index]!);
    everyChild.push(server.child);
    const logFile = process.env.FLOW_CHAOS_LOG_DIR ? `${process.env.FLOW_CHAOS_LOG_DIR}/server-${index}-${everyChild.length}.log` : undefined;
    if (logFile) {
      server.child.stdout!.on('data', (chunk: Buffer) => appendFileSync(logFile, chunk));
      server.child.stderr!.on('data', (chunk: Buffer) => appendFileSync(logFile, chunk));
    }
    servers[index] = server;
  };
  let sampling: NodeJS.Timeout | undefined;
  try {
    for (let index = 0; index < options.servers; index++) await start(index);
    const anyUrl = (): string => {
      const up = servers.filter((server): server is RunningServer => server !== undefined);
      return up[Math.floor(random() * up.length)]!.url;
    };
    const workflows = [
      concurrencyWorkflow(external.url, options.limit),
      uniqueWorkflow(),
      capacityWorkflow(options.limit),
      rateWorkflow(recorder.url, rate.limit, rate.periodMs, rate.burst),
      debounceWorkflow(1000, 5000),
    ];
    for (const workflow of workflows) {
      const put = await request(servers[0]!.url, 'PUT', `/api/workflows/${workflow.id}`, workflow);
      if (put.status !== 201) throw new Error(`PUT ${workflow.id}: ${put.status} ${JSON.stringify(put.body)}`);
    }
    const instancesOf = new Map<Mechanism, string[]>();
    for (const { mechanism, instances, workflowId } of MECHANISMS) {
      const ids: string[] = [];
      for (let key = 0; key < options.keys; key++) {
        for (let copy = 0; copy < options.instancesPerKey; copy++) {
          const instanceId = `${instances}-${key}-${copy}`;
          const created = await request(servers[0]!.url, 'POST', '/api/instances', { workflowId, instanceId, context: { customer: `c${key}` } });
          if (created.status !== 201) throw new Error(`create ${instanceId}: ${created.status}`);
          ids.push(instanceId);
        }
      }
      instancesOf.set(mechanism, ids);
    }
    const storage = await createAzureStorage({ connection: options.connectionString, names: prefixedStorageNames(prefix), createIfMissing: false });
    const capacity = new CapacitySampler(options.limit);
    const sample = async (): Promise<void> => {
      try {
        capacity.add(await collectAll((page) => onePage(storage.instances.query({ workflowId: 'chaos-capacity' }, page))));
      } catch {
        // A sample that could not be read is no sample.
      }
      sampling = setTimeout(() => void sample(), 500);
    };
    void sample();

    /** Each trigger answered 202, by id: its mechanism and instance. */
    const accepted = new Map<string, { readonly mechanism: Mechanism; readonly instanceId: string }>();
    let triggersRefused = 0;
    const unique = { creationsAccepted: 0, creationsRefused409: 0, creations5xx: 0, violations: 0 };
    /** Per unique key, the instance answered 201 for it (each key is used in one cycle only and never ended). */
    const holders = new Map<string, string>();
    let kills = 0;
    const kill = (victim: number): Promise<void> => {
      const doomed = servers[victim]!;
      servers[victim] = undefined;
      kills += 1;
      doomed.child.kill('SIGKILL');
      lives[victim]!.killedAt = Date.now();
      return (async () => {
        await new Promise((resolve) => doomed.child.once('exit', resolve));
        await start(victim);
      })();
    };
    for (let cycle = 0; cycle < options.cycles; cycle++) {
      const killAfter = Math.floor(random() * options.triggersPerCycle);
      const victim = Math.floor(random() * options.servers);
      const triggers = Array.from({ length: options.triggersPerCycle }, (_, index) => {
        const { mechanism, name, prefix: idPrefix } = chooseMechanism(random);
        const ids = instancesOf.get(mechanism)!;
        const id = `${idPrefix}${cycle}-${index}`;
        // An Update names itself: the burst's merged parameters carry every Update of it into the context.
        return { mechanism, trigger: { id, name, subjects: [ids[Math.floor(random() * ids.length)]!], ...(mechanism === 'debounce' ? { parameters: { [id]: true } } : {}) } };
      });
      const creations = Array.from({ length: options.creationsPerCycle }, (_, index) => ({
        workflowId: 'chaos-unique',
        instanceId: `u-${cycle}-${index}`,
        context: { customerId: `${cycle}-${Math.floor(random() * options.uniqueKeysPerCycle)}` },
      }));
      const urls = triggers.map(() => anyUrl());
      const creationUrls = creations.map(() => anyUrl());
      let sent = 0;
      let killing: Promise<void> | undefined;
      const sendTrigger = async (index: number): Promise<void> => {
        const { mechanism, trigger } = triggers[index]!;
        try {
          const answer = await request(urls[index]!, 'POST', '/api/triggers', trigger);
          if (answer.status === 202 || answer.status === 200) accepted.set(trigger.id, { mechanism, instanceId: trigger.subjects[0]! });
          else triggersRefused += 1;
        } catch {
          // No answer (the server died under it): nothing was promised.
          triggersRefused += 1;
        }
        sent += 1;
        if (sent === killAfter && !killing) killing = kill(victim);
      };
      const sendCreation = async (index: number): Promise<void> => {
        const creation = creations[index]!;
        try {
          const answer = await request(creationUrls[index]!, 'POST', '/api/instances', creation);
          if (answer.status === 201) {
            unique.creationsAccepted += 1;
            const key = String(creation.context.customerId);
            if (holders.has(key) && holders.get(key) !== creation.instanceId) unique.violations += 1;
            holders.set(key, creation.instanceId);
          } else if (answer.status === 409) unique.creationsRefused409 += 1;
          else if (answer.status >= 500) unique.creations5xx += 1;
        } catch {
          // No answer: nothing was promised.
        }
      };
      let nextTrigger = 0;
      let nextCreation = 0;
      await Promise.all([
        ...Array.from({ length: 6 }, async () => {
          while (nextTrigger < triggers.length) await sendTrigger(nextTrigger++);
        }),
        ...Array.from({ length: 6 }, async () => {
          while (nextCreation < creations.length) await sendCreation(nextCreation++);
        }),
      ]);
      // A cycle whose kill point was never reached (every send done first) kills at its end.
      await (killing ?? kill(victim));
      log(`cycle ${cycle + 1}/${options.cycles}: ${accepted.size} accepted so far, kill of server ${victim} after ${killAfter} sends`);
    }

    const outcome = new ChaosOutcome(storage, instancesOf, accepted);
    const deadline = Date.now() + options.drainTimeoutInMs;
    await outcome.read();
    while (outcome.unapplied().length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await outcome.read();
      log(`draining: ${accepted.size - outcome.unapplied().length}/${accepted.size} applied`);
    }
    clearTimeout(sampling);
    const lost = outcome.unapplied();
    if (lost.length > 0) {
      for (let key = 0; key < options.keys; key++) log(`key c${key}: ${JSON.stringify((await request(anyUrl(), 'GET', `/api/flow/chaos-limited/keys/c${key}`)).body)}`);
      log(`not applied: ${lost.slice(0, 20).join(', ')}`);
      for (const id of lost.slice(0, 4)) log(`operation ${id}: ${JSON.stringify((await request(anyUrl(), 'GET', `/api/operations/${id}`)).body).slice(0, 600)}`);
    }
    // Every live holder of every unique key, as storage has them now.
    const live = await collectAll((page) => onePage(storage.instances.query({ workflowId: 'chaos-unique' }, page)));
    const perKey = new Map<string, number>();
    for (const instance of live)
      if (!instance.deleting && instance.status !== 'complete' && instance.status !== 'cancelled') perKey.set(String(instance.uniqueKey), (perKey.get(String(instance.uniqueKey)) ?? 0) + 1);
    const figures = (mechanism: Mechanism) => outcome.figures(mechanism);
    const rateVerdict = checkRate(recorder.arrivals(), incarnations, rate.limit, rate.periodMs, rate.burst);
    const report = {
      concurrency: { ...figures('concurrency'), limit: options.limit, maxConcurrencySeen: external.maxSeen(), limitViolations: external.violations() },
      capacity: { ...figures('capacity'), limit: options.limit, samples: capacity.samples, maxSampled: capacity.maxSeen, violations: capacity.violations },
      rate: {
        ...figures('rate'),
        limit: `${rate.limit} per ${rate.periodMs} ms, burst ${rate.burst}, per process`,
        calls: [...recorder.arrivals().values()].reduce((sum, times) => sum + times.length, 0),
        ...rateVerdict,
      },
      debounce: { ...figures('debounce'), burstsApplied: outcome.burstsApplied },
      unique: { ...unique, maxLiveHolders: Math.max(0, ...perKey.values()) },
    };
    return {
      seed: options.seed,
      cycles: options.cycles,
      kills,
      triggersAccepted: accepted.size,
      triggersRefused,
      lost: lost.length,
      doubled: MECHANISMS.reduce((sum, { mechanism }) => sum + report[mechanism].doubled, 0),
      ...report,
    };
  } finally {
    clearTimeout(sampling);
    for (const child of everyChild) child.kill('SIGKILL');
    await external.close();
    await recorder.close();
  }
}

/**
 * What storage says was applied: for concurrency, capacity and rate, how often each trigger stands in its
 * instance's history; for debounce, the Updates merged into its instance's context (each burst is applied
 * under its own `debounce:` id, counted to find one applied twice).
 */
class ChaosOutcome {
  private seen = new Map<string, number>();
  private merged = new Set<string>();
  private bursts = new Map<string, number>();

  constructor(
    private readonly storage: AzureStorage,
    private readonly instancesOf: ReadonlyMap<Mechanism, readonly string[]>,
    private readonly accepted: ReadonlyMap<string, { readonly mechanism: Mechanism; readonly instanceId: string }>,
  ) {}

  async read(): Promise<void> {
    const seen = new Map<string, number>();
    for (const { mechanism, prefix } of MECHANISMS.filter(({ mechanism }) => mechanism !== 'debounce'))
      for (const [id, count] of await appliedTriggerCounts(this.storage.history, this.instancesOf.get(mechanism)!, prefix)) seen.set(id, count);
    this.seen = seen;
    const debounced = this.instancesOf.get('debounce')!;
    this.bursts = await appliedTriggerCounts(this.storage.history, debounced, 'debounce:');
    const merged = new Set<string>();
    for (const instanceId of debounced) {
      const instance = await this.storage.instances.get(instanceId);
      const updates = instance?.context.seen;
      if (updates && typeof updates === 'object' && !Array.isArray(updates)) for (const id of Object.keys(updates)) merged.add(`${instanceId}|${id}`);
    }
    this.merged = merged;
  }

  private applied(id: string, { mechanism, instanceId }: { readonly mechanism: Mechanism; readonly instanceId: string }): boolean {
    return mechanism === 'debounce' ? this.merged.has(`${instanceId}|${id}`) : this.seen.has(id);
  }

  unapplied(): string[] {
    return [...this.accepted].filter(([id, sent]) => !this.applied(id, sent)).map(([id]) => id);
  }

  get burstsApplied(): number {
    return this.bursts.size;
  }

  figures(mechanism: Mechanism): MechanismFigures {
    const ours = [...this.accepted].filter(([, sent]) => sent.mechanism === mechanism);
    const doubled = mechanism === 'debounce' ? [...this.bursts.values()] : ours.map(([id]) => this.seen.get(id) ?? 0);
    return { accepted: ours.length, lost: ours.filter(([id, sent]) => !this.applied(id, sent)).length, doubled: doubled.filter((count) => count > 1).length };
  }
}

/** Every promise the run checks, as counts that must all be 0 (the test's expectation, the bench's exit code). */
export function brokenPromises(report: FlowChaosReport): Record<string, number> {
  return {
    lost: report.lost,
    doubled: report.doubled,
    concurrencyOverLimit: report.concurrency.limitViolations,
    capacityOverLimit: report.capacity.violations,
    rateOverLimit: report.rate.violations,
    creations5xx: report.unique.creations5xx,
    uniqueTwoHolders: report.unique.violations + (report.unique.maxLiveHolders > 1 ? 1 : 0),
  };
}
