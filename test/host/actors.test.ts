/**
 * The actor, recorded: a trigger sent with a token, one sent with a key, the trigger it raised and the
 * timer it armed, each on the history entry, the operation, the lifecycle event (`data.actor`) and in
 * what JSONata sees (`actor`), on the local server over Azurite with a real issuer on loopback.
 */
import { Role } from '../../src/host/http/access';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer';
import { startTestHost, type TestHost } from '../support/local-host';

let issuer: LocalIssuer;
let test: TestHost;
const KEY = 'actors-test-key';
const key = { 'x-functions-key': KEY };

const workflow = {
  id: 'actor-trail',
  displayName: 'Actor trail',
  initialStateId: 'draft',
  // Delivery fails (the host is not allowed); the records are what is read here.
  subscriptions: [{ id: 'audit', url: 'https://audit.invalid/hook' }],
  states: {
    draft: {
      transitions: [
        {
          id: 'submit',
          targetStateId: 'submitted',
          conditions: [{ type: 'triggerName', name: 'Submit' }],
          actions: [
            { type: 'setContext', expressions: { submittedBy: 'actor.id', submittedVia: 'actor.via' } },
            { type: 'raiseTrigger', trigger: { name: 'Check', subjects: ['{{instance.id}}'] } },
          ],
        },
      ],
    },
    submitted: {
      transitions: [
        {
          id: 'check',
          targetStateId: 'checked',
          conditions: [{ type: 'triggerName', name: 'Check' }],
          actions: [{ type: 'setContext', expressions: { checkedVia: 'actor.via', checkedFor: 'actor.cause.id' } }],
        },
      ],
    },
    checked: { transitions: [{ id: 'close', targetStateId: 'closed', timer: { after: 'PT0S' } }] },
    closed: {},
  },
};

beforeAll(async () => {
  issuer = await startLocalIssuer({ audience: 'api://signalbox' });
  test = await startTestHost('actors', { env: { SIGNALBOX_AUTH_ISSUERS: issuer.issuer, SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox', SIGNALBOX_API_KEY: KEY } });
  expect((await test.api.request('PUT', `/api/workflows/${workflow.id}`, { json: workflow, headers: key })).status).toBe(201);
});
afterAll(async () => {
  await test.host.stop();
  await issuer.close();
});

async function historyOf(instanceId: string, length: number) {
  for (let poll = 0; poll < 400; poll++) {
    const history = await test.api.request('GET', `/api/instances/${instanceId}/history`, { headers: key });
    if (history.body.items.length >= length) return history.body.items as Array<Record<string, any>>;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the history of ${instanceId} did not reach ${length} entries`);
}

it('records a token user, then system work caused by them (a raised trigger, a timer), everywhere', async () => {
  const alice = { authorization: `Bearer ${await issuer.mint({ oid: 'alice-oid', name: 'Alice', roles: [Role.sender, Role.reader] })}` };
  const created = await test.api.request('POST', '/api/instances', { json: { workflowId: workflow.id, instanceId: 'trail-1' }, headers: alice });
  expect(created.status).toBe(201);
  const sent = await test.api.request('POST', '/api/instances/trail-1/triggers', { json: { name: 'Submit', id: 'submit-1' }, headers: { ...alice, prefer: 'wait=30' } });
  expect(sent.status).toBe(200);
  const aliceActor = { id: 'alice-oid', name: 'Alice', tenantId: issuer.tenantId, roles: [Role.sender, Role.reader], via: 'token' };
  expect(sent.body.actor).toEqual(aliceActor);

  const history = await historyOf('trail-1', 4);
  expect(history.map((entry) => [entry.event, entry.transitionId])).toEqual([
    ['created', null],
    ['transitioned', 'submit'],
    ['transitioned', 'check'],
    ['transitioned', 'close'],
  ]);
  expect(history[0]!.actor).toEqual(aliceActor);
  expect(history[1]!.actor).toEqual(aliceActor);
  const systemForAlice = { id: 'system', name: 'Signalbox', roles: [], via: 'system', cause: aliceActor };
  expect(history[2]!.actor).toEqual(systemForAlice);
  expect(history[3]!.actor).toEqual(systemForAlice);

  const instance = await test.api.request('GET', '/api/instances/trail-1', { headers: alice });
  expect(instance.body.context).toMatchObject({ submittedBy: 'alice-oid', submittedVia: 'token', checkedVia: 'system', checkedFor: 'alice-oid' });

  // The CloudEvents' `data`, as recorded for delivery.
  const events = await test.host.core.engine.listEvents('trail-1');
  const transitioned = events.items.filter((event) => event.type.endsWith('transitioned'));
  expect(transitioned.map((event) => event.data.actor)).toEqual([aliceActor, systemForAlice, systemForAlice]);
});

it('records a key as the actor of what it sends, cancels or recovers', async () => {
  expect((await test.api.request('POST', '/api/instances', { json: { workflowId: workflow.id, instanceId: 'trail-2' }, headers: key })).status).toBe(201);
  expect((await test.api.request('POST', '/api/instances/trail-2/cancel', { headers: key })).status).toBe(200);
  const history = await historyOf('trail-2', 2);
  const keyActor = { id: 'api-key', name: 'API key', roles: [Role.admin], via: 'key' };
  expect(history.map((entry) => entry.actor)).toEqual([keyActor, keyActor]);
});

it('does not let a client set the actor', async () => {
  const alice = { authorization: `Bearer ${await issuer.mint({ oid: 'alice-oid', roles: [Role.sender] })}` };
  const forged = await test.api.request('POST', '/api/triggers', { json: { name: 'Submit', subjects: ['x'], actor: { id: 'boss', via: 'token', roles: [Role.admin] } }, headers: alice });
  expect(forged.status).toBe(400);
  expect(JSON.stringify(forged.body.errors)).toContain('actor');
});
