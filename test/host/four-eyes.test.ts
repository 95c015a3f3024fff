/**
 * Four eyes, end to end: the expense claim's `approve` transition may not be taken by the claimant
 * (`actors.expression`). Over HTTP on the local server and Azurite, with users signed in by a real
 * issuer on loopback: the claimant's Approve is `noTransition` with the rule's reason in the trace (not a
 * fault), the available triggers say the same for each user, and another user approves.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Role } from '../../src/host/http/access';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer';
import { startTestHost, type TestHost } from '../support/local-host';

let issuer: LocalIssuer;
let test: TestHost;
const expenseClaim = JSON.parse(readFileSync(join(__dirname, '../../examples/expense-claim.json'), 'utf8')) as Record<string, unknown>;
const bearer = async (oid: string, roles: string[]) => ({ authorization: `Bearer ${await issuer.mint({ oid, name: oid, roles })}` });

beforeAll(async () => {
  issuer = await startLocalIssuer({ audience: 'api://signalbox' });
  test = await startTestHost('foureyes', { env: { SIGNALBOX_AUTH_ISSUERS: issuer.issuer, SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox' } });
  const { $schema: _schema, ...definition } = expenseClaim;
  expect((await test.api.request('PUT', '/api/workflows/expense-claim', { json: definition, headers: await bearer('admin', [Role.admin]) })).status).toBe(201);
});
afterAll(async () => {
  await test.host.stop();
  await issuer.close();
});

it('refuses the claimant as approver (noTransition, traced), and lets another user approve', async () => {
  const ann = await bearer('ann-oid', [Role.sender]);
  const bob = await bearer('bob-oid', [Role.sender]);
  const send = async (headers: Record<string, string>, id: string, name: string) =>
    (await test.api.request('POST', '/api/instances/claim-4e/triggers', { json: { id, name }, headers: { ...headers, prefer: 'wait=30' } })).body.instances[0];

  expect(
    (await test.api.request('POST', '/api/instances', { json: { workflowId: 'expense-claim', instanceId: 'claim-4e', context: { claimantId: 'ann-oid', amount: 120 } }, headers: ann })).status,
  ).toBe(201);
  expect(await send(ann, 'submit-4e', 'Submit')).toMatchObject({ outcome: 'transitioned', toStateId: 'waiting-for-approval' });

  const own = await send(ann, 'approve-by-ann', 'Approve');
  expect(own.outcome).toBe('noTransition');
  expect(own.trace[0]).toEqual({ path: 'states["waiting-for-approval"].transitions[0].actors', type: 'actor', result: false, detail: expect.stringContaining('"ann-oid"') });

  const forAnn = await test.api.request('GET', '/api/instances/claim-4e/available-triggers', { headers: ann });
  expect(forAnn.body.actor).toBe('ann-oid');
  expect(forAnn.body.items.map((item: { transitionId: string }) => item.transitionId)).not.toContain('approve');
  expect(forAnn.body.refused).toEqual([{ transitionId: 'approve', reason: expect.stringContaining('ann-oid') }]);
  const forBob = await test.api.request('GET', '/api/instances/claim-4e/available-triggers', { headers: bob });
  expect(forBob.body.items.map((item: { transitionId: string }) => item.transitionId)).toContain('approve');
  // Asking for someone else is for operators.
  expect((await test.api.request('GET', '/api/instances/claim-4e/available-triggers?actor=ann-oid', { headers: bob })).status).toBe(403);
  const askedByOperator = await test.api.request('GET', '/api/instances/claim-4e/available-triggers?actor=ann-oid', { headers: await bearer('ops', [Role.operator]) });
  expect(askedByOperator.body).toMatchObject({ actor: 'ann-oid', refused: [{ transitionId: 'approve' }] });

  expect(await send(bob, 'approve-by-bob', 'Approve')).toMatchObject({ outcome: 'transitioned', toStateId: 'waiting-for-payment' });
  const history = await test.api.request('GET', '/api/instances/claim-4e/history', { headers: bob });
  // Approve, then the amount check's automatic step to payment, both in Bob's change.
  expect(history.body.items.slice(-2)).toMatchObject([
    { transitionId: 'approve', actor: { id: 'bob-oid', via: 'token' } },
    { transitionId: 'ready-for-payment', fromStateId: 'checking-amount', toStateId: 'waiting-for-payment', actor: { id: 'bob-oid', via: 'token' } },
  ]);
});
