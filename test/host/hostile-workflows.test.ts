/**
 * Issue 9 as it was reproduced: against the local server over real loopback HTTP, on Azurite.
 * Item 2: a rejected `PUT /api/workflows` with a large expression kept ~41 MB in the compiled-expression
 * cache. Item 6: a transition raising its own trigger ran ~95 times a second forever; the hop count must
 * survive the host's path (outbox, operation record in Table Storage, the local runner), not only the
 * engine's in-process delivery (test/engine/raised-trigger-safety.test.ts).
 */
import { startTestHost } from '../support/local-host';
import { MAX_TRIGGER_HOPS, expressionCacheStats } from '../../src/engine';
import type { LocalHost } from '../../src/host/local-host';
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

  it(`a transition that raises its own trigger faults the instance after ${MAX_TRIGGER_HOPS} hops instead of looping (item 6)`, async () => {
    const loop = {
      id: 'hostile-loop',
      displayName: 'Loop',
      initialStateId: 'spinning',
      states: {
        spinning: {
          transitions: [
            { id: 'again', targetStateId: 'spinning', conditions: [{ type: 'triggerName', name: 'Spin' }], actions: [{ type: 'raiseTrigger', trigger: { name: 'Spin', subjects: ['{{instance.id}}'] } }] },
          ],
        },
      },
    };
    expect((await api.request('PUT', '/api/workflows/hostile-loop', { json: loop })).status).toBe(201);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'hostile-loop', instanceId: 'spinner' } })).status).toBe(201);
    expect((await api.request('POST', '/api/instances/spinner/triggers', { json: { id: 'spin-0', name: 'Spin' } })).status).toBe(202);

    const faulted = await pollUntil('/api/instances/spinner', (result) => result.body?.status !== 'waiting');
    expect(faulted.body).toMatchObject({ status: 'faulted', stateId: 'spinning', fault: { message: expect.stringContaining(`more than ${MAX_TRIGGER_HOPS} raised triggers`) } });
    const history = await api.request('GET', '/api/instances/spinner/history?maxPageSize=100');
    const events = history.body.items.map((entry: { event: string }) => entry.event);
    expect(events).toEqual(['created', ...Array(MAX_TRIGGER_HOPS).fill('transitioned'), 'faulted']);
    // Nothing runs on: the faulted instance raised nothing more, so its history stays as it is.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await api.request('GET', '/api/instances/spinner/history?maxPageSize=100')).body.items).toHaveLength(events.length);
  });
});
