/**
 * Issue 24 in the CLI (the real binary against a real local server): `signalbox operations list`, newest
 * first with what each operation was, and `recover --context` repairing the data an instance faulted on.
 */
import { startTestHost, type TestHost } from '../support/local-host';
import { signalbox } from './run-signalbox';

const repairable = {
  id: 'clirepair',
  displayName: 'Repairable',
  initialStateId: 'review',
  states: {
    review: {
      entryConditions: [{ type: 'expression', expression: '$exists(context.amount) and context.amount > 0' }],
      transitions: [{ id: 'approve', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Approve' }] }],
    },
    paid: {},
  },
};

let test: TestHost;
let env: Record<string, string>;

beforeAll(async () => {
  test = await startTestHost('opscli');
  env = { SIGNALBOX_URL: `${test.host.url}/api` };
  expect((await test.api.request('PUT', `/api/workflows/${repairable.id}`, { json: repairable })).status).toBe(201);
});

afterAll(async () => {
  await test?.host.stop();
});

describe('signalbox operations list', () => {
  it('lists operations newest first with what each was; --kind filters; --json gives the page', async () => {
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: repairable.id, instanceId: 'cl-1', context: { amount: 5 } } })).status).toBe(201);
    const sent = await test.api.request('POST', '/api/triggers', { json: { id: 'cl-approve', name: 'Approve', subjects: ['cl-1'] } });
    await test.api.waitForOperation(sent.body.operationId);
    const bulk = await test.api.request('POST', '/api/instances/bulk', { json: { action: 'cancel', filter: { workflowId: repairable.id, stateId: 'review' } } });
    await test.api.waitForOperation(bulk.body.operationId);

    const listed = await signalbox(['operations', 'list'], { env });
    expect(listed.exitCode).toBe(0);
    const lines = listed.stdout.split('\n');
    const bulkLine = lines.findIndex((line) => line.includes(bulk.body.operationId));
    const triggerLine = lines.findIndex((line) => line.includes('cl-approve'));
    expect(bulkLine).toBeGreaterThan(0);
    expect(triggerLine).toBeGreaterThan(bulkLine);
    expect(lines[triggerLine]).toContain('Approve → cl-1');
    expect(lines[triggerLine]).toContain('transitioned 1');
    expect(lines[bulkLine]).toContain('cancel clirepair (stateId=review)');

    const triggers = await signalbox(['operations', 'list', '--kind', 'trigger', '--json'], { env });
    const page = JSON.parse(triggers.stdout) as { items: { id: string; kind: string }[] };
    expect(page.items.map((item) => item.id)).toEqual(['cl-approve']);

    const badKind = await signalbox(['operations', 'list', '--kind', 'everything'], { env });
    expect(badKind.exitCode).not.toBe(0);
    expect(badKind.stderr).toContain('Allowed choices are trigger, migration, bulk');
  });
});

describe('signalbox recover --context', () => {
  it('says a recovery on the same bad data faults again, and repairs the data with a merge patch', async () => {
    const created = await test.api.request('POST', '/api/instances', { json: { workflowId: repairable.id, instanceId: 'cl-2', context: { amount: -1 } } });
    expect(created.body.status).toBe('faulted');

    const again = await signalbox(['recover', 'cl-2', '--state', 'review'], { env });
    expect(again.stdout).toMatch(/^cl-2: still faulted in state review: /);

    const repaired = await signalbox(['recover', 'cl-2', '--state', 'review', '--context', '{"amount":120}'], { env });
    expect(repaired).toMatchObject({ exitCode: 0, stdout: 'cl-2: recovered to state review (waiting)\n' });
    expect((await test.api.request('GET', '/api/instances/cl-2')).body.context).toEqual({ amount: 120 });

    const notAnObject = await signalbox(['recover', 'cl-2', '--state', 'review', '--context', '[1]'], { env });
    expect(notAnObject.exitCode).not.toBe(0);
    expect(notAnObject.stderr).toContain('--context');
  });
});
