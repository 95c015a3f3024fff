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
import { createAzureStorage } from '../../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../../src/storage/names';
import { appliedTriggerCounts } from './applied-triggers';
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
  readonly triggersPerCycle: number;
  readonly keys: number;
  readonly instancesPerKey: number;
  readonly limit: number;
  /** Creations sent per cycle under the unique key, spread over `uniqueKeysPerCycle` keys. */
  readonly creationsPerCycle: number;
  readonly uniqueKeysPerCycle: number;
  /** How long the run may take to apply every accepted trigger after the last cycle. */
  readonly drainTimeoutInMs: number;
  readonly log?: (line: string) => void;
}

export interface FlowChaosReport {
  readonly seed: number;
  readonly cycles: number;
  readonly kills: number;
  readonly triggersAccepted: number;
  readonly triggersRefused: number;
  readonly lost: number;
  readonly doubled: number;
  readonly limitViolations: number;
  readonly maxConcurrencySeen: number;
  readonly creationsAccepted: number;
  readonly creationsRefused409: number;
  readonly creations5xx: number;
  readonly maxLiveHolders: number;
  readonly uniqueViolations: number;
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

export async function runFlowChaos(options: FlowChaosOptions): Promise<FlowChaosReport> {
  const random = seededRandom(options.seed);
  const log = options.log ?? (() => {});
  const external = await startInFlightService(options.limit, 2);
  const externalUrl = external.url;
  const prefix = uniquePrefix('chaos');
  const base = { SIGNALBOX_STORAGE: options.connectionString, SIGNALBOX_STORAGE_PREFIX: prefix, SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' };
  const envs = await Promise.all(Array.from({ length: options.servers }, async () => ({ ...base, PORT: String(await freePort()) })));
  const servers: (RunningServer | undefined)[] = [];
  const everyChild: ChildProcess[] = [];
  const start = async (index: number): Promise<void> => {
    const server = await startServerProcess(envs[index]!);
    everyChild.push(server.child);
    const logFile = process.env.FLOW_CHAOS_LOG_DIR ? `${process.env.FLOW_CHAOS_LOG_DIR}/server-${index}-${everyChild.length}.log` : undefined;
    if (logFile) {
      server.child.stdout!.on('data', (chunk: Buffer) => appendFileSync(logFile, chunk));
      server.child.stderr!.on('data', (chunk: Buffer) => appendFileSync(logFile, chunk));
    }
    servers[index] = server;
  };
  try {
    for (let index = 0; index < options.servers; index++) await start(index);
    const anyUrl = (): string => {
      const up = servers.filter((server): server is RunningServer => server !== undefined);
      return up[Math.floor(random() * up.length)]!.url;
    };
    const limited = {
      id: 'chaos-limited',
      displayName: 'Chaos limited',
      initialStateId: 'open',
      flow: { concurrency: { key: 'context.customer', limit: options.limit, maxWait: 'PT5M' } },
      states: {
        open: {
          transitions: [
            {
              id: 'work',
              targetStateId: 'open',
              conditions: [{ type: 'triggerName', name: 'Work' }],
              actions: [{ type: 'invokeExternalService', id: 'call', url: externalUrl, contextItemsToInclude: ['customer'] }],
            },
          ],
        },
      },
    };
    const unique = {
      id: 'chaos-unique',
      displayName: 'Chaos unique',
      initialStateId: 'open',
      flow: { unique: { key: 'customer:{{context.customerId}}' } },
      states: { open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] }, closed: {} },
    };
    for (const workflow of [limited, unique]) {
      const put = await request(servers[0]!.url, 'PUT', `/api/workflows/${workflow.id}`, workflow);
      if (put.status !== 201) throw new Error(`PUT ${workflow.id}: ${put.status} ${JSON.stringify(put.body)}`);
    }
    const instanceIds: string[] = [];
    for (let key = 0; key < options.keys; key++) {
      for (let copy = 0; copy < options.instancesPerKey; copy++) {
        const instanceId = `l-${key}-${copy}`;
        const created = await request(servers[0]!.url, 'POST', '/api/instances', { workflowId: 'chaos-limited', instanceId, context: { customer: `c${key}` } });
        if (created.status !== 201) throw new Error(`create ${instanceId}: ${created.status}`);
        instanceIds.push(instanceId);
      }
    }

    const accepted = new Map<string, string>();
    let triggersRefused = 0;
    let creationsAccepted = 0;
    let creationsRefused409 = 0;
    let creations5xx = 0;
    let uniqueViolations = 0;
    /** Per unique key, the instance answered 201 for it (each key is used in one cycle only and never ended). */
    const holders = new Map<string, string>();
    let kills = 0;
    for (let cycle = 0; cycle < options.cycles; cycle++) {
      const killAfter = Math.floor(random() * options.triggersPerCycle);
      const victim = Math.floor(random() * options.servers);
      const triggers = Array.from({ length: options.triggersPerCycle }, (_, index) => ({
        id: `w-${cycle}-${index}`,
        name: 'Work',
        subjects: [instanceIds[Math.floor(random() * instanceIds.length)]!],
      }));
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
        const trigger = triggers[index]!;
        try {
          const answer = await request(urls[index]!, 'POST', '/api/triggers', trigger);
          if (answer.status === 202 || answer.status === 200) accepted.set(trigger.id, trigger.subjects[0]!);
          else triggersRefused += 1;
        } catch {
          // No answer (the server died under it): nothing was promised.
          triggersRefused += 1;
        }
        sent += 1;
        if (sent === killAfter && !killing) {
          const doomed = servers[victim]!;
          servers[victim] = undefined;
          kills += 1;
          doomed.child.kill('SIGKILL');
          killing = (async () => {
            await new Promise((resolve) => doomed.child.once('exit', resolve));
            await start(victim);
          })();
        }
      };
      const sendCreation = async (index: number): Promise<void> => {
        const creation = creations[index]!;
        try {
          const answer = await request(creationUrls[index]!, 'POST', '/api/instances', creation);
          if (answer.status === 201) {
            creationsAccepted += 1;
            const key = String(creation.context.customerId);
            if (holders.has(key) && holders.get(key) !== creation.instanceId) uniqueViolations += 1;
            holders.set(key, creation.instanceId);
          } else if (answer.status === 409) creationsRefused409 += 1;
          else if (answer.status >= 500) creations5xx += 1;
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
      if (!killing) {
        const doomed = servers[victim]!;
        servers[victim] = undefined;
        kills += 1;
        doomed.child.kill('SIGKILL');
        await new Promise((resolve) => doomed.child.once('exit', resolve));
        await start(victim);
      }
      await killing;
      log(`cycle ${cycle + 1}/${options.cycles}: ${accepted.size} accepted so far, kill of server ${victim} after ${killAfter} sends`);
    }

    const storage = await createAzureStorage({ connection: options.connectionString, names: prefixedStorageNames(prefix), createIfMissing: false });
    const seenCounts = () => appliedTriggerCounts(storage.history, instanceIds, 'w-');
    const deadline = Date.now() + options.drainTimeoutInMs;
    let seen = await seenCounts();
    while ([...accepted.keys()].some((id) => !seen.has(id)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      seen = await seenCounts();
      log(`draining: ${[...accepted.keys()].filter((id) => seen.has(id)).length}/${accepted.size} applied`);
    }
    const lost = [...accepted.keys()].filter((id) => !seen.has(id)).length;
    if (lost > 0) {
      for (let key = 0; key < options.keys; key++) log(`key c${key}: ${JSON.stringify((await request(anyUrl(), 'GET', `/api/flow/chaos-limited/keys/c${key}`)).body)}`);
      log(
        `not applied: ${[...accepted.keys()]
          .filter((id) => !seen.has(id))
          .slice(0, 20)
          .join(', ')}`,
      );
      for (const id of [...accepted.keys()].filter((id) => !seen.has(id)).slice(0, 4))
        log(`operation ${id}: ${JSON.stringify((await request(anyUrl(), 'GET', `/api/operations/${id}`)).body).slice(0, 600)}`);
    }
    const doubled = [...seen.values()].filter((count) => count > 1).length;
    // Every live holder of every unique key, as storage has them now.
    const live = await collectAll((page) => onePage(storage.instances.query({ workflowId: 'chaos-unique' }, page)));
    const perKey = new Map<string, number>();
    for (const instance of live)
      if (!instance.deleting && instance.status !== 'complete' && instance.status !== 'cancelled') perKey.set(String(instance.uniqueKey), (perKey.get(String(instance.uniqueKey)) ?? 0) + 1);
    const maxLiveHolders = Math.max(0, ...perKey.values());
    return {
      seed: options.seed,
      cycles: options.cycles,
      kills,
      triggersAccepted: accepted.size,
      triggersRefused,
      lost,
      doubled,
      limitViolations: external.violations(),
      maxConcurrencySeen: external.maxSeen(),
      creationsAccepted,
      creationsRefused409,
      creations5xx,
      maxLiveHolders,
      uniqueViolations,
    };
  } finally {
    for (const child of everyChild) child.kill('SIGKILL');
    await external.close();
  }
}
