/** Helpers for the engine tests: a fake clock, effects, an engine on in-memory ports, a local HTTP server. */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  Engine,
  builtInRegistry,
  decideTrigger,
  validateDefinition,
  type Decision,
  type DueTimer,
  type EngineLogger,
  type EngineOptions,
  type Effects,
  type FlowStore,
  type HistoryEntry,
  type Instance,
  type InstanceResult,
  type Registry,
  type Trigger,
  type TriggerOutcome,
  type WorkflowDefinition,
  type WorkflowDefinitionInput,
} from '../../src/engine';
import { capacityRows } from '../../src/engine/admission';
import { createInMemoryPorts } from '../../src/testing';

export class FakeClock {
  private ms: number;
  constructor(start = '2026-01-01T00:00:00.000Z') {
    this.ms = Date.parse(start);
  }
  now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  properties?: Record<string, unknown>;
}

export function recordingLogger(): EngineLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (message, properties) => lines.push({ level: 'info', message, ...(properties ? { properties } : {}) }),
    warn: (message, properties) => lines.push({ level: 'warn', message, ...(properties ? { properties } : {}) }),
    error: (message, properties) => lines.push({ level: 'error', message, ...(properties ? { properties } : {}) }),
  };
}

/** Effects for a decision, plus the registry it is decided with and a recorder of the lines it logs. */
export type TestEffects = Effects & { readonly registry: Registry; readonly log: ReturnType<typeof recordingLogger> };

export function testEffects(overrides: Partial<Effects> & { registry?: Registry } = {}): TestEffects {
  const { registry = builtInRegistry(), ...effects } = overrides;
  return {
    now: new FakeClock().now,
    http: { send: () => Promise.reject(new Error('no HTTP expected in this test')) },
    ...effects,
    registry,
    log: recordingLogger(),
  };
}

/** A Decision seen the way these tests read it: outcome, the instance after, the entry, the raised triggers. */
export interface Processed {
  readonly outcome: TriggerOutcome;
  /** The instance to save, or the one given when nothing changed. */
  readonly instance: Instance;
  readonly historyEntry?: HistoryEntry;
  readonly raisedTriggers: readonly Trigger[];
  readonly result: InstanceResult;
  readonly decision: Decision;
}

/** decideTrigger with the effects' registry; the decision's log lines go to `effects.log`, as the runtime would emit them. */
export async function processTrigger(def: WorkflowDefinition, instance: Instance, t: Trigger, effects: TestEffects = testEffects()): Promise<Processed> {
  const decision = await decideTrigger(def, instance, t, effects, effects.registry);
  for (const line of decision.logs) effects.log[line.level](line.message, { ...line.properties });
  return {
    outcome: decision.result.outcome as TriggerOutcome,
    instance: decision.change?.instance ?? instance,
    ...(decision.change ? { historyEntry: decision.change.historyEntry } : {}),
    raisedTriggers: (decision.change?.outbox ?? []).flatMap((row) => (row.kind === 'trigger' ? [row.payload] : [])),
    result: decision.result,
    decision,
  };
}

export function definition(input: WorkflowDefinitionInput): WorkflowDefinition {
  return validateDefinition(input);
}

/** A waiting instance in `stateId`, interested in its id and `interests`. */
export function instanceIn(def: WorkflowDefinition, stateId: string, overrides: Partial<Instance> = {}): Instance {
  return {
    id: 'i1',
    workflowId: def.id,
    workflowVersion: 1,
    stateId,
    status: 'waiting',
    context: {},
    interests: ['i1'],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    appliedTriggers: [],
    outbox: [],
    historyLength: 1,
    ...overrides,
  };
}

let triggers = 0;
export function trigger(name: string, extra: Partial<Trigger> = {}): Trigger {
  return { id: `t${++triggers}`, name, subjects: ['i1'], ...extra };
}

/** Records the triggers the relay delivers (as a host's submitter would receive them), optionally failing. */
export class RecordingDelivery {
  /** Distinct triggers, in the order first delivered. */
  readonly delivered: Trigger[] = [];
  /** Every delivery, repeats included. */
  calls = 0;
  /** Set to make the next deliveries fail. */
  failWith?: Error;
  private readonly seen = new Set<string>();

  /** Timers handed to the host's scheduler (armed timers), in order. */
  readonly timers: DueTimer[] = [];

  readonly handlers = {
    trigger: async (row: { payload: Trigger }) => {
      this.calls++;
      if (this.failWith) throw this.failWith;
      if (this.seen.has(row.payload.id)) return;
      this.seen.add(row.payload.id);
      this.delivered.push(structuredClone(row.payload) as Trigger);
    },
    timer: async (row: { payload: DueTimer }) => {
      this.timers.push(structuredClone(row.payload));
    },
  };
}

/**
 * An engine on in-memory ports. By default raised triggers are recorded by `delivery` (as a host's
 * submitter would receive them); with `inProcess: true` they are published in-process, the library default.
 */
export function testEngine(options: EngineOptions & { inProcess?: boolean; maxInstanceBytes?: number } = {}) {
  const clock = new FakeClock();
  const { inProcess = false, maxInstanceBytes, ...engineOptions } = options;
  const { leases, ...ports } = createInMemoryPorts({ maxLeaseWaitInMs: 1000, ...(maxInstanceBytes !== undefined ? { maxInstanceBytes } : {}) });
  const logger = recordingLogger();
  let n = 0;
  const base = new Engine({ ...ports, leases }, { clock, logger, newId: () => `gen-${++n}`, ...engineOptions });
  const delivery = new RecordingDelivery();
  const engine = inProcess ? base : base.withDelivery(delivery.handlers);
  return { engine, clock, leases, logger, ...ports, delivery };
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** A real HTTP server on 127.0.0.1 (https with `tls`); `handle` answers each request (after the body is read). */
export async function startServer(handle: (request: RecordedRequest, response: ServerResponse) => void, options: { tls?: { key: string; cert: string } } = {}) {
  const requests: RecordedRequest[] = [];
  const listener: RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
      requests.push(recorded);
      handle(recorded, res);
    });
  };
  const server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(response: ServerResponse, status: number, body?: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(body === undefined ? undefined : JSON.stringify(body));
}

/**
 * A flow store that pauses the first row write counting `instanceId` as a member (the moment a change holds a
 * place in a state with capacity, before it goes on) to run the work set by `whileCounted`, once: the way a
 * test puts other triggers between a change taking a place and giving it back.
 */
export function flowPausingWhenCounted(flow: FlowStore, instanceId: string): { readonly flow: FlowStore; whileCounted(work: () => Promise<unknown>): void } {
  let pending: (() => Promise<unknown>) | undefined;
  return {
    flow: {
      getRow: flow.getRow.bind(flow),
      listRows: flow.listRows.bind(flow),
      putRow: async (workflowId, kind, key, value, options) => {
        const etag = await flow.putRow(workflowId, kind, key, value, options);
        const members = kind.prefix === capacityRows.prefix ? capacityRows.schema.parse(value).members : [];
        if (pending && members.some((member) => member.instanceId === instanceId)) {
          const work = pending;
          pending = undefined;
          await work();
        }
        return etag;
      },
    },
    whileCounted(work) {
      pending = work;
    },
  };
}

/**
 * Orders that may pass through a state with capacity (one per customer in `picking`): `Go` takes an order
 * through `sorting` into `picking`, and an express one (`context.express`) on to `done` in the same change,
 * so it holds its place only for a moment; `Pick` enters `picking` directly.
 */
export function passingOrdersWorkflow(): WorkflowDefinitionInput {
  return {
    id: 'passing',
    displayName: 'Passing orders',
    initialStateId: 'open',
    states: {
      open: {
        transitions: [
          { id: 'go', targetStateId: 'sorting', conditions: [{ type: 'triggerName', name: 'Go' }] },
          { id: 'pick', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Pick' }] },
        ],
      },
      sorting: { transitions: [{ id: 'toPicking', targetStateId: 'picking', automatic: true }] },
      picking: {
        capacity: { key: 'customer:{{context.customer}}', limit: 1 },
        transitions: [{ id: 'express', targetStateId: 'done', automatic: true, conditions: [{ type: 'expression', expression: 'context.express = true' }] }],
      },
      done: {},
    },
  } as WorkflowDefinitionInput;
}
