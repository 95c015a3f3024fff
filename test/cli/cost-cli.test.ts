/**
 * Decision 0021 in the CLI (the real binary against a real local server): `signalbox cost <workflowId>`
 * prints the workflow's counted requests per day and the estimate with the price table's date; `--json`
 * gives the API's answer; a bad `--since` is refused before anything is sent, one too far back by the server.
 */
import { startTestHost, type TestHost } from '../support/local-host';
import { signalbox } from './run-signalbox';

const counter = {
  id: 'clicost',
  displayName: 'Counter',
  initialStateId: 'counting',
  states: {
    counting: {
      transitions: [
        { id: 'increment', targetStateId: 'counting', conditions: [{ type: 'triggerName', name: 'Increment' }], actions: [{ type: 'setContext', expressions: { count: 'context.count + 1' } }] },
      ],
    },
  },
};

let test: TestHost;
let env: Record<string, string>;

beforeAll(async () => {
  test = await startTestHost('costcli');
  env = { SIGNALBOX_URL: `${test.host.url}/api` };
  expect((await test.api.request('PUT', `/api/workflows/${counter.id}`, { json: counter })).status).toBe(201);
  expect((await test.api.request('POST', '/api/instances', { json: { workflowId: counter.id, instanceId: 'cc-1', context: { count: 0 } } })).status).toBe(201);
  for (const id of ['cc-a', 'cc-b']) {
    const sent = await test.api.request('POST', '/api/triggers', { json: { id, name: 'Increment', subjects: ['cc-1'] } });
    await test.api.waitForOperation(sent.body.operationId);
  }
});

afterAll(async () => {
  await test?.host.stop();
});

describe('signalbox cost', () => {
  it("prints the workflow's operations, requests per day and the estimate, the same as the API's", async () => {
    const since = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const api = (await test.api.request('GET', `/api/workflows/${counter.id}/cost?since=${since}`)).body;
    expect(api.operations).toBe(2);
    const operations = await Promise.all(['cc-a', 'cc-b'].map(async (id) => (await test.api.request('GET', `/api/operations/${id}`)).body));
    const requests = operations.reduce((sum, operation) => sum + Object.values(operation.cost.storage as Record<string, number>).reduce((a, b) => a + b, 0), 0);

    const printed = await signalbox(['cost', counter.id, '--since', since], { env });
    expect(printed.exitCode).toBe(0);
    expect(printed.stdout).toContain(`Workflow ${counter.id} since ${since}: 2 operation(s), estimated ${api.estimate.total.toFixed(6)} USD`);
    const total = printed.stdout.split('\n').find((line) => line.startsWith('total'));
    expect(total?.split(/\s+/).slice(1, 3)).toEqual(['2', String(requests)]);
    expect(printed.stdout + printed.stderr).toContain(`taken on ${api.prices.takenOn}`);

    const json = await signalbox(['cost', counter.id, '--since', since, '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual(api);
  });

  it('refuses a --since that is not a day, and the server one too far back', async () => {
    const bad = await signalbox(['cost', counter.id, '--since', 'last week'], { env });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain('--since');
    const far = await signalbox(['cost', counter.id, '--since', '1999-01-01'], { env });
    expect(far.exitCode).not.toBe(0);
    expect(far.stderr).toContain('since');
  });
});
