/**
 * The flow-control mechanisms of the chaos run (flow-chaos.ts), each a workflow and what its model checks:
 * - concurrency: `flow.concurrency` per customer; the external service counts the calls in flight per key at
 *   every call (exact, not sampled; in-flight-service.ts).
 * - capacity: a state `busy` with `capacity` per customer, entered and left by `Step` triggers (idle -> busy ->
 *   idle) and left by a timer after 2 s, so the queue behind a full key always moves; storage is sampled while
 *   the run goes on, and a key over its limit in two samples in a row with the same members is a violation (one
 *   sample alone may mix instances read before and after a change: a scan is not a snapshot).
 * - rate: `flow.rateLimits` per customer; every call's arrival is recorded, and no key has more calls in any
 *   period than the server processes alive in it could send: each worker keeps its own buckets (the guide says
 *   N workers let N x limit through), and a restarted process starts with a full bucket, so the bound is the
 *   incarnations alive in that period x (burst + limit), plus one period's limit for delivery jitter.
 * - debounce: `flow.debounce` of `Update`, merging each burst's parameters; each Update names itself in its
 *   parameters, and the burst's application merges them into the context: every Update answered 202 must be in
 *   the context at the end (none lost), and no burst id applied twice.
 * - unique (flow-chaos.ts): creations under `flow.unique`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CAPACITY_BUSY_STATE = 'busy';

export function concurrencyWorkflow(serviceUrl: string, limit: number) {
  return {
    id: 'chaos-limited',
    displayName: 'Chaos limited',
    initialStateId: 'open',
    flow: { concurrency: { key: 'context.customer', limit, maxWait: 'PT5M' } },
    states: {
      open: {
        transitions: [
          {
            id: 'work',
            targetStateId: 'open',
            conditions: [{ type: 'triggerName', name: 'Work' }],
            actions: [{ type: 'invokeExternalService', id: 'call', url: serviceUrl, contextItemsToInclude: ['customer'] }],
          },
        ],
      },
    },
  };
}

export function uniqueWorkflow() {
  return {
    id: 'chaos-unique',
    displayName: 'Chaos unique',
    initialStateId: 'open',
    flow: { unique: { key: 'customer:{{context.customerId}}' } },
    states: { open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] }, closed: {} },
  };
}

export function capacityWorkflow(limit: number) {
  const step = { type: 'triggerName', name: 'Step' };
  return {
    id: 'chaos-capacity',
    displayName: 'Chaos capacity',
    initialStateId: 'idle',
    states: {
      idle: { transitions: [{ id: 'enter', targetStateId: CAPACITY_BUSY_STATE, conditions: [step] }] },
      [CAPACITY_BUSY_STATE]: {
        capacity: { key: 'customer:{{context.customer}}', limit, timeout: 'P1D' },
        transitions: [
          { id: 'leave', targetStateId: 'idle', conditions: [step] },
          { id: 'done', targetStateId: 'idle', timer: { after: 'PT2S' } },
        ],
      },
    },
  };
}

export function rateWorkflow(serviceUrl: string, limit: number, periodMs: number, burst: number) {
  return {
    id: 'chaos-rate',
    displayName: 'Chaos rate',
    initialStateId: 'open',
    flow: { rateLimits: [{ key: 'context.customer', limit, periodMs, burst }] },
    states: {
      open: {
        transitions: [
          {
            id: 'call',
            targetStateId: 'open',
            conditions: [{ type: 'triggerName', name: 'Call' }],
            // A slot further than the attempt's time limit fails it as a timeout: room for a queue behind a kill.
            actions: [{ type: 'invokeExternalService', id: 'call', url: serviceUrl, timeoutMs: 120_000, contextItemsToInclude: ['customer'] }],
          },
        ],
      },
    },
  };
}

export function debounceWorkflow(periodMs: number, maxWaitMs: number) {
  return {
    id: 'chaos-debounce',
    displayName: 'Chaos debounce',
    initialStateId: 'open',
    flow: { debounce: [{ trigger: 'Update', periodMs, maxWaitMs, merge: '$merge([previous.parameters, trigger.parameters])' }] },
    states: {
      open: {
        transitions: [
          {
            id: 'update',
            targetStateId: 'open',
            conditions: [{ type: 'triggerName', name: 'Update' }],
            actions: [{ type: 'setContext', id: 'merge', expressions: { seen: '$merge([context.seen ? context.seen : {}, trigger.parameters])' } }],
          },
        ],
      },
    },
  };
}

/** Records every call's arrival per key (`context.customer`), for the rate check. Answers `{}` at once. */
export interface CallRecorder {
  readonly url: string;
  readonly arrivals: () => ReadonlyMap<string, readonly number[]>;
  close(): Promise<void>;
}

export async function startCallRecorder(): Promise<CallRecorder> {
  const arrivals = new Map<string, number[]>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      const key = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { context: { customer: string } }).context.customer;
      arrivals.set(key, [...(arrivals.get(key) ?? []), at]);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rate`,
    arrivals: () => arrivals,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A server process's life: from its spawn to its kill (absent while it lives). */
export interface Incarnation {
  readonly startedAt: number;
  killedAt?: number;
}

export interface RateVerdict {
  /** The most calls of one key in one period. */
  readonly maxInPeriod: number;
  /** Periods (one per call that starts it) whose calls exceed what the processes alive in it could send. */
  readonly violations: number;
}

/** Every period that starts at a call: its calls against the incarnations alive in it x (burst + limit), plus `limit` of jitter. */
export function checkRate(arrivals: ReadonlyMap<string, readonly number[]>, incarnations: readonly Incarnation[], limit: number, periodMs: number, burst: number): RateVerdict {
  let maxInPeriod = 0;
  let violations = 0;
  for (const times of arrivals.values()) {
    const sorted = [...times].sort((a, b) => a - b);
    let end = 0;
    for (let start = 0; start < sorted.length; start++) {
      const from = sorted[start]!;
      while (end < sorted.length && sorted[end]! < from + periodMs) end++;
      const count = end - start;
      maxInPeriod = Math.max(maxInPeriod, count);
      // A process spawned up to a period before the window may have taken its tokens then and sent them late.
      const alive = incarnations.filter((life) => life.startedAt < from + periodMs && (life.killedAt === undefined || life.killedAt >= from - periodMs)).length;
      if (count > alive * (burst + limit) + limit) violations += 1;
    }
  }
  return { maxInPeriod, violations };
}

/** Capacity samples: per key, the members seen in `busy`; a key over the limit in two samples in a row with the same members is a violation. */
export class CapacitySampler {
  private previousOver = new Map<string, string>();
  samples = 0;
  maxSeen = 0;
  violations = 0;

  constructor(private readonly limit: number) {}

  add(instances: readonly { readonly id: string; readonly stateId: string; readonly context?: { readonly customer?: unknown } }[]): void {
    this.samples += 1;
    const members = new Map<string, string[]>();
    for (const instance of instances) {
      if (instance.stateId !== CAPACITY_BUSY_STATE) continue;
      const key = String(instance.context?.customer);
      members.set(key, [...(members.get(key) ?? []), instance.id]);
    }
    const over = new Map<string, string>();
    for (const [key, ids] of members) {
      this.maxSeen = Math.max(this.maxSeen, ids.length);
      if (ids.length <= this.limit) continue;
      const set = ids.sort().join(',');
      if (this.previousOver.get(key) === set) this.violations += 1;
      over.set(key, set);
    }
    this.previousOver = over;
  }
}
