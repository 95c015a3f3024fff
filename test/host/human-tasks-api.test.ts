/**
 * Human tasks over HTTP (issue 39, part 4), on the local server and Azurite, with two users signed in by a
 * real issuer on loopback: both see the task in their inbox, one claims, the other's claim is 409, four
 * eyes is 403, a form that does not match is 400 naming the field, completing moves the instance as the
 * deciding user, and a closed task answers 409 naming why.
 */
import { Role } from '../../src/host/http/access';
import { approvalWorkflow } from '../support/human-tasks';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer';
import { startTestHost, type TestHost } from '../support/local-host';

let issuer: LocalIssuer;
let test: TestHost;
const bearer = async (oid: string, roles: string[], groups: string[] = []) => ({ authorization: `Bearer ${await issuer.mint({ oid, name: oid, roles, groups })}` });

beforeAll(async () => {
  issuer = await startLocalIssuer({ audience: 'api://signalbox' });
  test = await startTestHost('tasksapi', { env: { SIGNALBOX_AUTH_ISSUERS: issuer.issuer, SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox' } });
  const { subscriptions: _subscriptions, ...definition } = approvalWorkflow() as Record<string, unknown>;
  expect((await test.api.request('PUT', '/api/workflows/expenses', { json: definition, headers: await bearer('admin', [Role.admin]) })).status).toBe(201);
});
afterAll(async () => {
  await test.host.stop();
  await issuer.close();
});

it('serves the inbox, claim races, four eyes, forms and completion to two users', async () => {
  const ann = await bearer('ann', [Role.sender, Role.reader], ['approvers']);
  const bob = await bearer('bob', [Role.sender, Role.reader], ['approvers']);
  const claire = await bearer('claire', [Role.sender, Role.reader], ['approvers']);
  expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'expenses', instanceId: 'x1', context: { amount: 120, claimant: 'claire' } }, headers: claire })).status).toBe(201);

  const inbox = await test.api.request('GET', '/api/tasks?workflowId=expenses', { headers: bob });
  expect(inbox.status).toBe(200);
  expect(inbox.body.items).toEqual([expect.objectContaining({ taskId: 'x1~0', title: 'Approve 120 for claire', stateId: 'review', escalated: false })]);
  expect((await test.api.request('GET', '/api/tasks?limit=0', { headers: bob })).body.errors).toEqual([expect.objectContaining({ path: 'limit' })]);

  const task = await test.api.request('GET', '/api/tasks/x1~0', { headers: ann });
  expect(task.body).toMatchObject({ id: 'x1~0', status: 'open', outcomes: [{ name: 'Approve' }, { name: 'Reject', parameters: { required: ['reason'] } }] });

  const [first, second] = await Promise.all([test.api.request('POST', '/api/tasks/x1~0/claim', { headers: ann }), test.api.request('POST', '/api/tasks/x1~0/claim', { headers: bob })]);
  expect([first.status, second.status].sort()).toEqual([200, 409]);
  const winner = first.status === 200 ? ann : bob;
  const loser = first.status === 200 ? bob : ann;
  expect((first.status === 409 ? first : second).headers.get('content-type')).toContain('application/problem+json');
  expect((await test.api.request('POST', '/api/tasks/x1~0/release', { headers: loser })).status).toBe(403);
  expect((await test.api.request('POST', '/api/tasks/x1~0/release', { headers: winner })).status).toBe(200);

  const ownClaim = await test.api.request('POST', '/api/tasks/x1~0/complete', { json: { outcome: 'Approve' }, headers: claire });
  expect(ownClaim.status).toBe(403);
  expect(ownClaim.body.detail).toMatch(/Four eyes/);
  const badForm = await test.api.request('POST', '/api/tasks/x1~0/complete', { json: { outcome: 'Reject', parameters: { reason: 'no' } }, headers: bob });
  expect(badForm.status).toBe(400);
  expect(badForm.body.errors).toEqual([expect.objectContaining({ path: 'parameters.reason' })]);
  expect((await test.api.request('POST', '/api/tasks/x1~0/complete', { json: { outcome: 'Approve', extra: 1 }, headers: bob })).status).toBe(400);

  const done = await test.api.request('POST', '/api/tasks/x1~0/complete', { json: { outcome: 'Reject', parameters: { reason: 'no receipts' }, comment: 'send receipts' }, headers: bob });
  expect(done.status).toBe(200);
  expect(done.body).toMatchObject({ status: 'decided', resolution: { outcome: 'Reject', by: { id: 'bob' } } });
  const instance = await test.api.request('GET', '/api/instances/x1', { headers: bob });
  expect(instance.body).toMatchObject({ stateId: 'rejected', status: 'complete' });
  const history = await test.api.request('GET', '/api/instances/x1/history', { headers: bob });
  expect(history.body.items.at(-1)).toMatchObject({ transitionId: 'reject', actor: { id: 'bob' } });

  const late = await test.api.request('POST', '/api/tasks/x1~0/complete', { json: { outcome: 'Approve' }, headers: ann });
  expect(late.status).toBe(409);
  expect(late.body.detail).toMatch(/is closed/);
  expect((await test.api.request('GET', '/api/tasks', { headers: ann })).body.items).toEqual([]);
});
