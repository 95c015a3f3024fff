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
import { httpClient, type HttpResult } from './http-client';

let host: LocalHost;
let api: ReturnType<typeof httpClient>;

beforeAll(async () => {
  ({ host, api } = await startTestHost('hostile'));
});

afterAll(async () => {
  await host?.stop();
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
});
