/** Helpers for the engine tests: a fake clock, effects, an engine on in-memory ports, a local HTTP server. */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  Engine,
  InMemoryTriggerDispatcher,
  builtInRegistry,
  createInMemoryPorts,
  validateDefinition,
  type EngineLogger,
  type EngineOptions,
  type Effects,
  type Instance,
  type Trigger,
  type WorkflowDefinition,
  type WorkflowDefinitionInput,
} from '../../src/engine';
import { InMemoryLeaseProvider } from '../../src/leasing/in-memory-lease-provider';

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

let ids = 0;
export function testEffects(overrides: Partial<Effects> = {}): Effects & { log: ReturnType<typeof recordingLogger> } {
  const log = recordingLogger();
  return {
    now: new FakeClock().now,
    newId: () => `id-${++ids}`,
    http: { send: () => Promise.reject(new Error('no HTTP expected in this test')) },
    registry: builtInRegistry(),
    ...overrides,
    log: (overrides.log as ReturnType<typeof recordingLogger>) ?? log,
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
    appliedTriggerIds: [],
    pendingTriggers: [],
    historyLength: 1,
    ...overrides,
  };
}

let triggers = 0;
export function trigger(name: string, extra: Partial<Trigger> = {}): Trigger {
  return { id: `t${++triggers}`, name, subjects: ['i1'], ...extra };
}

export function testEngine(options: EngineOptions & { withDispatcher?: boolean } = {}) {
  const clock = new FakeClock();
  const ports = createInMemoryPorts({ now: clock.now });
  const leases = new InMemoryLeaseProvider({ maxWaitInMs: 1000 });
  const logger = recordingLogger();
  const { withDispatcher = true, ...engineOptions } = options;
  let n = 0;
  const engine = new Engine(
    { workflows: ports.workflows, instances: ports.instances, history: ports.history, interests: ports.interests, leases, ...(withDispatcher ? { dispatcher: ports.dispatcher } : {}) },
    { clock, logger, newId: () => `gen-${++n}`, ...engineOptions },
  );
  return { engine, clock, leases, logger, ...ports, dispatcher: ports.dispatcher as InMemoryTriggerDispatcher };
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

export { InMemoryTriggerDispatcher };
