/**
 * Issue 9 as it was reproduced: against the local server over real loopback HTTP, on Azurite.
 * Item 2: a rejected `PUT /api/workflows` with a large expression kept ~41 MB in the compiled-expression
 * cache. Item 6: a transition raising its own trigger ran ~95 times a second forever; the hop count must
 * survive the host's path (outbox, operation record in Table Storage, the local runner), not only the
 * engine's in-process delivery (test/engine/raised-trigger-safety.test.ts).
 * Issue 22, group 1: a workflow starting itself from its initial state made `POST /api/instances` never
 * answer while instances grew without end; the causal depth must survive the local host's child starts.
 */
import { startTestHost } from '../support/local-host';
import { MAX_CAUSAL_DEPTH, expressionCacheStats } from '../../src/engine';
import type { LocalHost } from '../../src/host/local/local-host';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpClient, type HttpResult } from './http-client';

let host: LocalHost;
let api: ReturnType<typeof httpClient>;

/** An external service that holds every call until the test lets it go (issue 42, defect 3). */
let held: Server;
let letGo!: () => void;
const released = new Promise<void>((resolve) => (letGo = resolve));
let callsHeld = 0;
let callsAbandoned = 0;

beforeAll(async () => {
  held = createServer((request, response) => {
    request.resume();
    callsHeld += 1;
    let answered = false;
    // Given up by its caller (the call's timeout) before the test let it go.
    response.on('close', () => {
      if (!answered) callsAbandoned += 1;
    });
    void released.then(() => {
      answered = true;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  ({ host, api } = await startTestHost('hostile', { env: { SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' } }));
});

afterAll(async () => {
  letGo();
  await host?.stop();
  await new Promise((resolve) => held.close(resolve));
});

async function pollUntil(path: string, done: (result: HttpResult) => boolean, maxPolls = 600): Promise<HttpResult> {
  let result = await api.request('GET', path);
  for (let poll = 0; poll < maxPolls && !done(result); poll += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    result = await api.request('GET', path);
  }
  return result;
}

describe('hostile workflows on the local server (issue 9)', () => {
  it('a rejected PUT /api/workflows with a large expression leaves nothing in the expression cache (item 2)', async () => {
    // About 400 KB of expression that JSONata parses, in a definition refused for its initial state.
    const large = `[${Array.from({ length: 30_000 }, (_, index) => `context.v${index}`).join(', ')}]`;
    const before = expressionCacheStats();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const refused = await api.request('PUT', '/api/workflows/hostile-cache', {
        json: { id: 'hostile-cache', displayName: 'h', initialStateId: 'missing', states: { a: { entryConditions: [{ type: 'expression', expression: large }] } } },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'initialStateId' })]);
    }
    expect(expressionCacheStats()).toEqual(before);
    expect((await api.request('GET', '/api/workflows/hostile-cache')).status).toBe(404);
  });

  it(`a transition that raises its own trigger faults the instance at causal depth ${MAX_CAUSAL_DEPTH} instead of looping (item 6)`, async () => {
    const loop = {
      id: 'hostile-loop',
      displayName: 'Loop',
      initialStateId: 'spinning',
      states: {
        spinning: {
          transitions: [
            {
              id: 'again',
              targetStateId: 'spinning',
              conditions: [{ type: 'triggerName', name: 'Spin' }],
              actions: [{ type: 'raiseTrigger', trigger: { name: 'Spin', subjects: ['{{instance.id}}'] } }],
            },
          ],
        },
      },
    };
    expect((await api.request('PUT', '/api/workflows/hostile-loop', { json: loop })).status).toBe(201);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'hostile-loop', instanceId: 'spinner' } })).status).toBe(201);
    expect((await api.request('POST', '/api/instances/spinner/triggers', { json: { id: 'spin-0', name: 'Spin' } })).status).toBe(202);

    const faulted = await pollUntil('/api/instances/spinner', (result) => result.body?.status !== 'waiting');
    expect(faulted.body).toMatchObject({
      status: 'faulted',
      stateId: 'spinning',
      fault: { message: expect.stringContaining(`causal depth limit: raising trigger "Spin" would be follow-up work at causal depth ${MAX_CAUSAL_DEPTH + 1}`) },
    });
    const history = await api.request('GET', '/api/instances/spinner/history?maxPageSize=100');
    const events = history.body.items.map((entry: { event: string }) => entry.event);
    expect(events).toEqual(['created', ...Array(MAX_CAUSAL_DEPTH).fill('transitioned'), 'faulted']);
    // Nothing runs on: the faulted instance raised nothing more, so its history stays as it is.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await api.request('GET', '/api/instances/spinner/history?maxPageSize=100')).body.items).toHaveLength(events.length);
  });

  it('a workflow whose initial state starts an instance of itself: the PUT warns, POST /api/instances answers, and the instances stop growing at the causal depth limit (issue 22)', async () => {
    const selfStarting = {
      id: 'hostile-self-start',
      displayName: 'Starts itself',
      initialStateId: 'born',
      states: {
        born: {
          entryActions: [{ type: 'startInstance', workflowId: 'hostile-self-start' }],
          transitions: [{ id: 'stop', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Stop' }] }],
        },
        done: {},
      },
    };
    const put = await api.request('PUT', '/api/workflows/hostile-self-start', { json: selfStarting });
    expect(put.status).toBe(201);
    expect(put.body.warnings).toEqual([expect.objectContaining({ path: 'states.born.entryActions[0]', code: 'startsItself' })]);

    // Before the fix this request never answered: a deadline turns that into a failure rather than a hang.
    let deadline: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      api.request('POST', '/api/instances', { json: { workflowId: 'hostile-self-start', instanceId: 'adam' } }),
      new Promise<never>((_, reject) => (deadline = setTimeout(() => reject(new Error('POST /api/instances did not answer within 60 s')), 60_000))),
    ]).finally(() => clearTimeout(deadline));
    expect(answered.status).toBe(201);

    const list = async () => (await api.request('GET', '/api/instances?workflowId=hostile-self-start&maxPageSize=1000')).body.items as { id: string; status: string; fault?: { message: string } }[];
    let instances = await list();
    for (let poll = 0; poll < 600 && !instances.some((instance) => instance.status === 'faulted'); poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      instances = await list();
    }
    // Generations 0 (the client's) to MAX_CAUSAL_DEPTH; the last could not start another and faulted.
    expect(instances).toHaveLength(MAX_CAUSAL_DEPTH + 1);
    const faulted = instances.filter((instance) => instance.status === 'faulted');
    expect(faulted).toHaveLength(1);
    expect(faulted[0]!.fault!.message).toContain('starting an instance of workflow "hostile-self-start"');
    // Growth has stopped: nothing is left to start another.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await list()).toHaveLength(MAX_CAUSAL_DEPTH + 1);
  }, 120_000);

  it('POST /api/instances answers once the instance is saved: its children are created after the answer (issue 42, defect 3)', async () => {
    const url = `http://127.0.0.1:${(held.address() as AddressInfo).port}/slow`;
    const slowChild = {
      id: 'hostile-slow-child',
      displayName: 'Slow child',
      initialStateId: 'calling',
      states: { calling: { entryActions: [{ type: 'invokeExternalService', id: 'call', url }] } },
    };
    const parent = { id: 'hostile-parent', displayName: 'Parent', initialStateId: 'open', states: { open: { entryActions: [{ type: 'startInstance', workflowId: 'hostile-slow-child' }] } } };
    expect((await api.request('PUT', '/api/workflows/hostile-slow-child', { json: slowChild })).status).toBe(201);
    expect((await api.request('PUT', '/api/workflows/hostile-parent', { json: parent })).status).toBe(201);
    // The child's entry call is held until the parent's creation has answered: before the fix, the answer waited
    // for the child's creation, which waited for the call, so neither ever came (the deadline turns that into a failure).
    let deadline: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      api.request('POST', '/api/instances', { json: { workflowId: 'hostile-parent', instanceId: 'parent-1' } }),
      new Promise<never>((_, reject) => (deadline = setTimeout(() => reject(new Error('POST /api/instances did not answer while its child was being created')), 60_000))),
    ]).finally(() => clearTimeout(deadline));
    expect(answered.status).toBe(201);
    // Answered while the child's call was still held: before the fix the answer came only once the call had
    // timed out (10 s) and faulted the child.
    expect(callsAbandoned).toBe(0);
    letGo();
    // The child is created all the same, once, after the answer.
    const children = await pollUntil('/api/instances?workflowId=hostile-slow-child', (result) => result.body?.items?.length > 0 && result.body.items[0].status !== 'initializing');
    expect(children.body.items).toHaveLength(1);
    expect(children.body.items[0]).toMatchObject({ parent: { instanceId: 'parent-1' }, status: 'complete' });
    expect(callsHeld).toBe(1);
  });
});
