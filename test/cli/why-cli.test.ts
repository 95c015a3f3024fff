/** `signalbox why` and `signalbox stuck`: the real binary against a real local server on Azurite. */
import { startTestHost, type TestHost } from '../support/local-host';
import { signalbox } from './run-signalbox';

const ESCAPE = '\u001b';

const claim = {
  id: 'why-cli',
  displayName: 'Why CLI',
  initialStateId: 'submitted',
  states: {
    submitted: {
      transitions: [
        { id: 'approve', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Approve' }] },
        // The cause carries an OSC 52 clipboard write: the terminal must see it as text.
        {
          id: 'break',
          targetStateId: 'paid',
          conditions: [{ type: 'triggerName', name: 'Break' }],
          actions: [{ type: 'setContext', expressions: { x: '$error("bad \u001b]52;c;aGk=\u0007 host")' } }],
        },
      ],
    },
    paid: {},
  },
};

let test: TestHost;
let env: Record<string, string>;

beforeAll(async () => {
  test = await startTestHost('whycli');
  env = { SIGNALBOX_URL: `${test.host.url}/api` };
  expect((await test.api.request('PUT', '/api/workflows/why-cli', { json: claim })).status).toBe(201);
  for (const instanceId of ['cli-a', 'cli-b', 'cli-f']) expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'why-cli', instanceId } })).status).toBe(201);
  expect((await test.api.request('POST', '/api/instances/cli-f/triggers', { json: { name: 'Break' }, headers: { prefer: 'wait=30' } })).status).toBe(200);
});

afterAll(async () => {
  await test?.host.stop();
});

it('why: the primary class, each reason and what to do, with control characters escaped', async () => {
  const waiting = await signalbox(['why', 'cli-a'], { env });
  expect(waiting).toMatchObject({ exitCode: 0, stderr: '' });
  expect(waiting.stdout).toContain('cli-a (why-cli version 1): waitingForTrigger, waiting in state submitted');
  expect(waiting.stdout).toContain('  Approve to paid');

  const faulted = await signalbox(['why', 'cli-f'], { env });
  expect(faulted.exitCode).toBe(0);
  expect(faulted.stdout).toContain('cli-f (why-cli version 1): faulted');
  expect(faulted.stdout).toContain('bad \\u001b]52;c;aGk=\\u0007 host');
  expect(faulted.stdout).toContain('  recover: signalbox recover cli-f --state submitted');
  expect(faulted.stdout).toContain('       or: POST /api/instances/cli-f/recover {"stateId":"submitted"}');
  expect(faulted.stdout).not.toContain(ESCAPE);

  const json = await signalbox(['why', 'cli-f', '--json'], { env });
  expect(json.stdout).not.toContain(ESCAPE);
  const parsed = JSON.parse(json.stdout);
  expect(parsed).toMatchObject({ instanceId: 'cli-f', class: 'faulted' });
  expect(parsed.reasons[0]).toMatchObject({ class: 'faulted', cause: expect.stringContaining('bad \u001b]52;c;aGk=\u0007 host') });

  const missing = await signalbox(['why', 'nobody'], { env });
  expect(missing.exitCode).not.toBe(0);
  expect(missing.stderr).toContain('nobody');
});

it('stuck: counts per class and state with the oldest, fault causes grouped', async () => {
  const run = await signalbox(['stuck', 'why-cli'], { env });
  expect(run).toMatchObject({ exitCode: 0, stderr: '' });
  expect(run.stdout).toContain('why-cli: 3 instance(s) not final');
  expect(run.stdout).toMatch(/ {2}2 waiting for Approve or Break in state submitted, oldest \d+ (s|min) \(cli-[ab]\)/);
  expect(run.stdout).toMatch(/ {2}1 faulted: .*bad \\u001b\]52;c;aGk=\\u0007 host.* \(1\) in state submitted/);
  expect(run.stdout).not.toContain(ESCAPE);
  expect(JSON.parse((await signalbox(['stuck', 'why-cli', '--json'], { env })).stdout)).toMatchObject({ workflowId: 'why-cli', notFinal: 3, truncated: false });
  expect((await signalbox(['stuck', 'no-such-workflow'], { env })).exitCode).not.toBe(0);
});

it('why: a debounced burst, with when it will be applied', async () => {
  const profile = {
    id: 'why-debounce',
    displayName: 'Why debounce',
    initialStateId: 'open',
    flow: { debounce: [{ trigger: 'Update', periodMs: 600_000, maxWaitMs: 3_600_000 }] },
    states: { open: { transitions: [{ id: 'update', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Update' }] }] } },
  };
  expect((await test.api.request('PUT', '/api/workflows/why-debounce', { json: profile })).status).toBe(201);
  expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'why-debounce', instanceId: 'cli-d' } })).status).toBe(201);
  for (let i = 0; i < 2; i++) expect((await test.api.request('POST', '/api/instances/cli-d/triggers', { json: { name: 'Update' }, headers: { prefer: 'wait=30' } })).status).toBe(200);

  const run = await signalbox(['why', 'cli-d'], { env });
  expect(run).toMatchObject({ exitCode: 0, stderr: '' });
  expect(run.stdout).toContain('cli-d (why-debounce version 1): debounced, waiting in state open');
  expect(run.stdout).toMatch(/ {2}2 Update trigger\(s\) since \S+: applied at \S+ unless another comes first, at the latest \S+/);
  const parsed = JSON.parse((await signalbox(['why', 'cli-d', '--json'], { env })).stdout);
  expect(parsed.reasons[0]).toMatchObject({ class: 'debounced', bursts: [{ triggerName: 'Update', coalesced: 2, overdue: false }] });
});
