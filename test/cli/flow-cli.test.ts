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

let test: TestHost;
let env: Record<string, string>;

beforeAll(async () => {
  test = await startTestHost('flowcli');
  env = { SIGNALBOX_URL: `${test.host.url}/api` };
  expect((await test.api.request('PUT', '/api/workflows/flow-cli', { json: limited })).status).toBe(201);
  expect((await test.api.request('PUT', '/api/flow/flow-cli/keys/customer%3A42/limit', { json: { limit: 3 } })).status).toBe(200);
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

it('fails naming the workflow when it does not exist', async () => {
  const missing = await signalbox(['flow', 'nope', 'k'], { env });
  expect(missing.exitCode).not.toBe(0);
  expect(missing.stderr).toContain('nope');
});
