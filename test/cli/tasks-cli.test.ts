/**
 * Human tasks from the command line (issue 39, part 5): the real binary against the local server on
 * Azurite, two users signed in by a real issuer on loopback: the inbox, a task, a claim refused to the
 * second user (exit non-zero, 409), a completion with a form parameter that moves the instance.
 */
import { Role } from '../../src/host/http/access';
import { approvalWorkflow } from '../support/human-tasks';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer';
import { startTestHost, type TestHost } from '../support/local-host';
import { signalbox } from './run-signalbox';

let issuer: LocalIssuer;
let test: TestHost;
let env: Record<string, string>;

beforeAll(async () => {
  issuer = await startLocalIssuer({ audience: 'api://signalbox' });
  test = await startTestHost('taskscli', { env: { SIGNALBOX_AUTH_ISSUERS: issuer.issuer, SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox' } });
  env = { SIGNALBOX_URL: `${test.host.url}/api`, NO_COLOR: '1' };
  const { subscriptions: _subscriptions, ...definition } = approvalWorkflow() as Record<string, unknown>;
  const admin = `Bearer ${await issuer.mint({ oid: 'admin', roles: [Role.admin] })}`;
  expect((await test.api.request('PUT', '/api/workflows/expenses', { json: definition, headers: { authorization: admin } })).status).toBe(201);
  const claimant = `Bearer ${await issuer.mint({ oid: 'claire', roles: [Role.sender] })}`;
  expect(
    (await test.api.request('POST', '/api/instances', { json: { workflowId: 'expenses', instanceId: 'c1', context: { amount: 80, claimant: 'claire' } }, headers: { authorization: claimant } }))
      .status,
  ).toBe(201);
});
afterAll(async () => {
  await test.host.stop();
  await issuer.close();
});

it('lists, shows, claims and completes a task; a second claim is refused', async () => {
  const ann = await issuer.mint({ oid: 'ann', name: 'Ann', roles: [Role.sender, Role.reader], groups: ['approvers'] });
  const bob = await issuer.mint({ oid: 'bob', name: 'Bob', roles: [Role.sender, Role.reader], groups: ['approvers'] });
  const inbox = await signalbox(['tasks'], { env: { ...env, SIGNALBOX_TOKEN: ann } });
  expect(inbox.exitCode).toBe(0);
  expect(inbox.stdout).toContain('c1~0  Approve 80 for claire');
  const shown = await signalbox(['task', 'c1~0'], { env: { ...env, SIGNALBOX_TOKEN: ann } });
  expect(shown.stdout).toContain('outcomes: Approve, Reject');
  expect((await signalbox(['claim', 'c1~0'], { env: { ...env, SIGNALBOX_TOKEN: ann } })).stdout).toContain('[claimed]');
  const refused = await signalbox(['claim', 'c1~0'], { env: { ...env, SIGNALBOX_TOKEN: bob } });
  expect(refused.exitCode).not.toBe(0);
  expect(refused.stderr).toContain('claimed by "ann"');
  const completed = await signalbox(['complete', 'c1~0', '--outcome', 'Reject', '--param', 'reason=no receipts', '--comment', 'please resend'], { env: { ...env, SIGNALBOX_TOKEN: ann } });
  expect(completed.exitCode).toBe(0);
  expect(completed.stdout).toContain('decided: Reject by ann');
  expect((await test.api.request('GET', '/api/instances/c1', { headers: { authorization: `Bearer ${bob}` } })).body).toMatchObject({ stateId: 'rejected' });
});
