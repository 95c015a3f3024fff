/** `signalbox instances --filter/--order-by/--count/--group-by`: the real binary against a real local server. */
import { startTestHost, type TestHost } from '../support/local-host';
import { signalbox } from './run-signalbox';

const orders = {
  id: 'cliorders',
  displayName: 'Orders',
  initialStateId: 'review',
  indexes: [{ name: 'amount', type: 'number', expression: 'context.amount' }],
  states: { review: { transitions: [{ id: 'ship', targetStateId: 'shipped', conditions: [{ type: 'triggerName', name: 'Ship' }] }] }, shipped: {} },
};

let test: TestHost;
let env: Record<string, string>;

beforeAll(async () => {
  test = await startTestHost('searchcli');
  env = { SIGNALBOX_URL: `${test.host.url}/api` };
  expect((await test.api.request('PUT', `/api/workflows/${orders.id}`, { json: orders })).status).toBe(201);
  for (let index = 1; index <= 4; index++) {
    expect(
      (await test.api.request('POST', '/api/instances', { json: { workflowId: orders.id, instanceId: `o-${index}`, businessKey: `PO-${index}`, context: { amount: index * 5000 } } })).status,
    ).toBe(201);
  }
  const sent = await test.api.request('POST', '/api/triggers', { json: { name: 'Ship', subjects: ['o-4'] } });
  await test.api.waitForOperation(sent.body.operationId);
}, 120_000);

afterAll(async () => {
  await test?.host.stop();
});

describe('signalbox instances --filter', () => {
  it('lists the matches in order, with their business keys', async () => {
    const run = await signalbox(['instances', '--workflow', orders.id, '--filter', "amount > 7000 and stateId = 'review'", '--order-by', 'amount desc'], { env });
    expect(run.exitCode).toBe(0);
    const ids = run.stdout.split('\n').filter((line) => line.startsWith('o-'));
    expect(ids.map((line) => line.split(/\s+/)[0])).toEqual(['o-3', 'o-2']);
    expect(run.stdout).toContain('PO-3');
  });

  it('counts, grouped by state', async () => {
    const total = await signalbox(['instances', '--workflow', orders.id, '--count', '--filter', 'amount >= 10000'], { env });
    expect(total.stdout.trim()).toBe('3');
    const grouped = await signalbox(['instances', '--workflow', orders.id, '--group-by', 'stateId', '--json'], { env });
    expect(JSON.parse(grouped.stdout)).toEqual({
      count: 4,
      countedFrom: 'index',
      groups: [
        { key: 'review', count: 3 },
        { key: 'shipped', count: 1 },
      ],
    });
  });

  it('a bad filter fails with the position, and --filter needs --workflow', async () => {
    const bad = await signalbox(['instances', '--workflow', orders.id, '--filter', 'amout > 1'], { env });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain('position 1: unknown field "amout"');
    const noWorkflow = await signalbox(['instances', '--filter', 'amount > 1'], { env });
    expect(noWorkflow.exitCode).not.toBe(0);
    expect(noWorkflow.stderr).toContain('need --workflow');
  });
});

describe('signalbox instances --count on a version without indexes', () => {
  it('says why the count is 0, and the reindex that fixes it writes the rows', async () => {
    const plain = {
      id: 'cliplain',
      displayName: 'Plain',
      initialStateId: 'open',
      states: { open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] }, closed: {} },
    };
    expect((await test.api.request('PUT', `/api/workflows/${plain.id}`, { json: plain })).status).toBe(201);
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: plain.id, instanceId: 'p-1' } })).status).toBe(201);
    const counted = await signalbox(['instances', '--workflow', plain.id, '--count'], { env });
    expect(counted.exitCode).toBe(0);
    expect(counted.stdout).toBe('0\n');
    expect(counted.stderr).toContain('0 counted from the search index, but cliplain has instances: version 1 declares no `indexes`');
    expect(counted.stderr).toContain('signalbox bulk reindex --workflow cliplain --workflow-version 1 --wait');
    const reindexed = await signalbox(['bulk', 'reindex', '--workflow', plain.id, '--workflow-version', '1', '--wait', '--no-progress'], { env });
    expect(reindexed.exitCode).toBe(0);
    const after = await signalbox(['instances', '--workflow', plain.id, '--count'], { env });
    expect(after).toMatchObject({ exitCode: 0, stdout: '1\n', stderr: '' });
    // A workflow whose instances are indexed says nothing more about a count of 0.
    const none = await signalbox(['instances', '--workflow', orders.id, '--count', '--filter', 'amount > 1000000'], { env });
    expect(none).toMatchObject({ exitCode: 0, stdout: '0\n', stderr: '' });
  });
});
