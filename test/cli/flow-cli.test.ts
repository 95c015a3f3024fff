/** `signalbox flow <workflowId> <key>`: the real binary against a real local server on Azurite. */
import { startTestHost, type TestHost } from '../support/local-host';
import { signalbox } from './run-signalbox';

const limited = {
  id: 'flow-cli',
  displayName: 'Flow CLI',
  initialStateId: 'open',
  flow: { concurrency: { key: "'customer:' & context.customer", limit: 2 } },
  states: { open: { transitions: [{ id: 'touch', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Touch' }] }] } },
};

/** At most one order per customer in `picking` (no concurrency policy). */
const picking = {
  id: 'flow-cli-cap',
  displayName: 'Flow CLI capacity',
  initialStateId: 'open',
  states: {
    open: { transitions: [{ id: 'pick', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Pick' }] }] },
    picking: {
      capacity: { key: 'customer:{{context.customer}}', limit: 1, timeout: 'PT2H' },
      transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }],
    },
    done: {},
  },
};

let test: TestHost;
let env: Record<string, string>;

beforeAll(async () => {
  test = await startTestHost('flowcli');
  env = { SIGNALBOX_URL: `${test.host.url}/api` };
  expect((await test.api.request('PUT', '/api/workflows/flow-cli', { json: limited })).status).toBe(201);
  expect((await test.api.request('PUT', '/api/flow/flow-cli/keys/customer%3A42/limit', { json: { limit: 3 } })).status).toBe(200);
  expect((await test.api.request('PUT', '/api/workflows/flow-cli-cap', { json: picking })).status).toBe(201);
  for (const id of ['p1', 'p2']) {
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'flow-cli-cap', instanceId: id, context: { customer: '42' } } })).status).toBe(201);
    const sent = await test.api.request('POST', `/api/instances/${id}/triggers`, { json: { id: `pick-${id}`, name: 'Pick' }, headers: { prefer: 'wait=30' } });
    expect(sent.status).toBeLessThan(300);
  }
});

afterAll(async () => {
  await test?.host.stop();
});

it('prints the key: running over the limit in force, what is queued, and who overrode the limit', async () => {
  const shown = await signalbox(['flow', 'flow-cli', 'customer:42'], { env });
  expect(shown).toMatchObject({ exitCode: 0, stderr: '' });
  expect(shown.stdout).toContain('flow-cli key customer:42: 0/3 running, 0 queued; limit 3 (override by');
  expect(shown.stdout).toContain('the definition says 2)');
  expect(shown.stdout).toMatch(/limit 2 -> 3 by .+ at \d{4}-/);

  const json = await signalbox(['flow', 'flow-cli', 'customer:42', '--json'], { env });
  expect(JSON.parse(json.stdout)).toMatchObject({ workflowId: 'flow-cli', key: 'customer:42', limit: 3, definedLimit: 2, running: [], queued: [] });
});

it('prints each state with capacity under the key: its members over the limit and the triggers waiting for room, with their deadlines', async () => {
  const shown = await signalbox(['flow', 'flow-cli-cap', 'customer:42'], { env });
  expect(shown).toMatchObject({ exitCode: 0, stderr: '' });
  expect(shown.stdout).toContain('flow-cli-cap: no concurrency policy');
  expect(shown.stdout).toContain('state picking, key customer:42: 1/1 in it, 1 waiting for room');
  expect(shown.stdout).toMatch(/ {2}in it: p1 since \d{4}-/);
  expect(shown.stdout).toMatch(/ {2}waiting 1: p2 trigger pick-p2 priority 3 since \d{4}-\S+ until \d{4}-/);
});

it('fails naming the workflow when it does not exist', async () => {
  const missing = await signalbox(['flow', 'nope', 'k'], { env });
  expect(missing.exitCode).not.toBe(0);
  expect(missing.stderr).toContain('nope');
});
