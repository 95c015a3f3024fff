/**
 * Faults you cannot miss: the local server's own log (pino JSON lines, captured here as `npm start`
 * writes them) says at warn or error when an instance faults, when a lifecycle event's delivery is
 * refused and retried, and when an event is dead-lettered, each with the instance, workflow and reason.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConsoleLogger } from '../../src/host/local/logger';
import { startTestHost, type TestHost } from '../support/local-host';

interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [property: string]: unknown;
}

const lines: LogLine[] = [];
const logger = createConsoleLogger({ write: (line) => void lines.push(JSON.parse(line) as LogLine) });
let subscriber: Server;
let subscriberUrl: string;
let test: TestHost;

beforeAll(async () => {
  // Refuses every delivery on /refuse (400: dead-lettered at once), and fails /flaky once (503: retried).
  let flakyCalls = 0;
  subscriber = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url === '/refuse') return void response.writeHead(400).end();
      flakyCalls += 1;
      response.writeHead(flakyCalls === 1 ? 503 : 200).end();
    });
  });
  await new Promise<void>((resolve) => subscriber.listen(0, '127.0.0.1', resolve));
  subscriberUrl = `http://127.0.0.1:${(subscriber.address() as AddressInfo).port}`;
  test = await startTestHost('faultlog', {
    logger,
    env: { SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' },
    engineOptions: { events: { policy: { maxAttempts: 3, firstRetryDelayInMs: 20, maxRetryDelayInMs: 50 } } },
  });
});

afterAll(async () => {
  await test?.host.stop();
  await new Promise((resolve) => subscriber?.close(resolve));
});

async function eventually<T>(what: string, find: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no log line ${what} within 30 s; the log:\n${lines.map((line) => JSON.stringify(line)).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const atWarnOrError = (line: LogLine) => line.level === 'warn' || line.level === 'error';

describe('the local server log', () => {
  it('says at error level when an instance faults at creation, with the instance, workflow and the condition that blocked', async () => {
    const { api } = test;
    const definition = {
      id: 'guarded',
      displayName: 'Guarded',
      initialStateId: 'open',
      states: {
        open: {
          entryConditions: [{ id: 'has-owner', type: 'expression', expression: '$exists(context.owner)' }],
          transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }],
        },
        closed: {},
      },
    };
    expect((await api.request('PUT', '/api/workflows/guarded', { json: definition })).status).toBe(201);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'guarded', instanceId: 'no-owner' } })).body).toMatchObject({ status: 'faulted' });
    const line = await eventually('for the fault', () => lines.find((candidate) => atWarnOrError(candidate) && candidate.instanceId === 'no-owner'));
    expect(line).toMatchObject({ level: 'error', workflowId: 'guarded', stateId: 'open', reason: expect.stringContaining('"has-owner"') });
    expect(line.msg).toContain('faulted');
  });

  it('says at error level when a trigger faults an instance, naming the trigger', async () => {
    const { api } = test;
    const definition = {
      id: 'breaking',
      displayName: 'Breaking',
      initialStateId: 'open',
      states: {
        open: {
          transitions: [
            { id: 'break', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Break' }], actions: [{ type: 'setContext', expressions: { x: '$error("the action failed")' } }] },
          ],
        },
        closed: {},
      },
    };
    await api.request('PUT', '/api/workflows/breaking', { json: definition });
    await api.request('POST', '/api/instances', { json: { workflowId: 'breaking', instanceId: 'breaks' } });
    const sent = await api.request('POST', '/api/instances/breaks/triggers', { json: { id: 'break-1', name: 'Break' } });
    await api.waitForOperation(sent.body.operationId);
    const line = await eventually('for the fault', () => lines.find((candidate) => atWarnOrError(candidate) && candidate.instanceId === 'breaks'));
    expect(line).toMatchObject({ level: 'error', workflowId: 'breaking', triggerId: 'break-1', reason: expect.stringContaining('the action failed') });
  });

  it('says at warn level when a subscriber refuses an event (dead-lettered) or fails it (retried), with the reason', async () => {
    const { api } = test;
    const definition = {
      id: 'announced',
      displayName: 'Announced',
      initialStateId: 'open',
      subscriptions: [
        { id: 'refusing', url: `${subscriberUrl}/refuse`, events: ['created'] },
        { id: 'flaky', url: `${subscriberUrl}/flaky`, events: ['created'] },
      ],
      states: { open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] }, closed: {} },
    };
    expect((await api.request('PUT', '/api/workflows/announced', { json: definition })).status).toBe(201);
    await api.request('POST', '/api/instances', { json: { workflowId: 'announced', instanceId: 'told' } });
    const deadLettered = await eventually('for the dead letter', () => lines.find((line) => atWarnOrError(line) && line.instanceId === 'told' && line.subscriptionId === 'refusing'));
    expect(deadLettered).toMatchObject({ level: 'warn', workflowId: 'announced', reason: 'the subscriber answered 400' });
    expect(deadLettered.msg).toContain('dead-lettered');
    const retried = await eventually('for the retry', () => lines.find((line) => atWarnOrError(line) && line.instanceId === 'told' && line.subscriptionId === 'flaky'));
    expect(retried).toMatchObject({ level: 'warn', workflowId: 'announced', reason: 'the subscriber answered 503' });
  });
});
