/**
 * Automatic transitions on the local server (Azurite, real loopback HTTP): the expense claim's choice
 * after an approval, saved as one Table Storage transaction with a history entry and an event record per
 * step; the dry run and the migration report over HTTP.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestHost } from '../support/local-host';
import type { LocalHost } from '../../src/host/local/local-host';
import type { httpClient } from './http-client';

const expenseClaim = JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', 'expense-claim.json'), 'utf8')) as Record<string, unknown>;
/** The example, with a subscriber (never reached: records are written whatever delivery does). */
const audited = { ...expenseClaim, subscriptions: [{ id: 'audit', url: 'https://audit.invalid/hook', events: ['transitioned'] }] };

let host: LocalHost;
let api: ReturnType<typeof httpClient>;

beforeAll(async () => {
  ({ host, api } = await startTestHost('automatic'));
  expect((await api.request('PUT', '/api/workflows/expense-claim', { json: audited })).status).toBe(201);
});

afterAll(async () => {
  await host?.stop();
});

async function send(instanceId: string, id: string, name: string, parameters: Record<string, unknown> = {}) {
  const answer = await api.request('POST', `/api/instances/${instanceId}/triggers`, { json: { id, name, parameters }, headers: { prefer: 'wait=30' } });
  expect(answer.status).toBe(200);
  return answer.body.instances[0];
}

async function submitted(instanceId: string, amount: number) {
  expect((await api.request('POST', '/api/instances', { json: { workflowId: 'expense-claim', instanceId, context: { claimantId: 'ann' } } })).status).toBe(201);
  await send(instanceId, `${instanceId}-update`, 'Update', { amount, description: 'Conference' });
  await send(instanceId, `${instanceId}-submit`, 'Submit', { at: '2026-11-22' });
}

it('routes an approved claim over 1,000 to a second approval in the approval change: one history entry and one event per step', async () => {
  await submitted('big-1', 2500);
  const dryRun = await api.request('POST', '/api/instances/big-1/triggers?dryRun=true', { json: { name: 'Approve', parameters: { by: 'bob' } } });
  expect(dryRun.status).toBe(200);
  expect(dryRun.body.instances[0]).toMatchObject({ outcome: 'transitioned', transitionId: 'approve', toStateId: 'waiting-for-second-approval' });
  expect(dryRun.body.instances[0].events.map((event: { data: { stateId: string } }) => event.data.stateId)).toEqual(['checking-amount', 'waiting-for-second-approval']);

  expect(await send('big-1', 'big-1-approve', 'Approve', { by: 'bob' })).toMatchObject({ outcome: 'transitioned', fromStateId: 'waiting-for-approval', toStateId: 'waiting-for-second-approval' });
  const instance = (await api.request('GET', '/api/instances/big-1')).body;
  expect(instance).toMatchObject({ stateId: 'waiting-for-second-approval', status: 'waiting', timers: [] });
  expect(instance.interests).toEqual(expect.arrayContaining(['directors', 'Approve', 'Reject']));
  const history = (await api.request('GET', '/api/instances/big-1/history')).body.items as Array<Record<string, unknown>>;
  expect(history.slice(-2).map((entry) => [entry.triggerId, entry.transitionId, entry.fromStateId, entry.toStateId])).toEqual([
    ['big-1-approve', 'approve', 'waiting-for-approval', 'checking-amount'],
    ['big-1-approve', 'needs-second-approval', 'checking-amount', 'waiting-for-second-approval'],
  ]);
  // Event ids are `<instanceId>:<incarnation>:<history sequence>:<type>`: one record per step.
  const events = (await api.request('GET', '/api/instances/big-1/events')).body.items as Array<{ id: string; type: string }>;
  expect(events.slice(-2).map((event) => event.id.replace(/^big-1:[^:]+:/, ''))).toEqual(['3:transitioned', '4:transitioned']);
  // Available triggers are those of the state the chain ended in.
  const available = (await api.request('GET', '/api/instances/big-1/available-triggers')).body;
  expect(available.items.map((item: { transitionId: string }) => item.transitionId)).toEqual(['second-approve', 'second-reject']);
});

it('takes `otherwise` to payment for a claim of 1,000 or less', async () => {
  await submitted('small-1', 120);
  expect(await send('small-1', 'small-1-approve', 'Approve', { by: 'bob' })).toMatchObject({ outcome: 'transitioned', toStateId: 'waiting-for-payment' });
  const history = (await api.request('GET', '/api/instances/small-1/history')).body.items as Array<Record<string, unknown>>;
  expect(history.map((entry) => entry.transitionId)).toEqual([null, 'update', 'submit', 'approve', 'ready-for-payment']);
});

it('reports and takes automatic transitions when migrating into a state that has them', async () => {
  await submitted('mig-1', 5000);
  const latest = await api.request('GET', '/api/workflows/expense-claim');
  // Version 2 checks the amount as soon as a claim is submitted.
  const version2 = structuredClone(audited) as unknown as { states: Record<string, { transitions: Array<Record<string, unknown>> }> };
  version2.states['waiting-for-approval']!.transitions.unshift({
    id: 'large-goes-to-directors',
    targetStateId: 'waiting-for-second-approval',
    automatic: true,
    conditions: [{ type: 'expression', expression: 'context.amount > 4000' }],
  });
  const added = await api.request('PUT', '/api/workflows/expense-claim', { json: version2, headers: { 'if-match': latest.headers.get('etag')! } });
  expect(added.body.version).toBe(2);
  const migration = { fromVersion: 1, toVersion: 2, stateMap: {} };
  const report = await api.request('POST', '/api/workflows/expense-claim/migrations', { json: { ...migration, dryRun: true } });
  expect(report.status).toBe(200);
  expect(report.body.rows).toContainEqual({
    fromStateId: 'waiting-for-approval',
    toStateId: 'waiting-for-approval',
    count: 1,
    sample: ['mig-1'],
    automaticTransitions: [{ transitionId: 'large-goes-to-directors', targetStateId: 'waiting-for-second-approval' }],
  });
  const started = await api.request('POST', '/api/workflows/expense-claim/migrations', { json: migration });
  expect(started.status).toBe(202);
  const finished = await api.waitForOperation(started.body.operationId);
  expect(finished.body.summary).toMatchObject({ migrated: 3 });
  expect((await api.request('GET', '/api/instances/mig-1')).body).toMatchObject({ workflowVersion: 2, stateId: 'waiting-for-second-approval' });
  const history = (await api.request('GET', '/api/instances/mig-1/history')).body.items as Array<Record<string, unknown>>;
  expect(history.slice(-2).map((entry) => [entry.event, entry.transitionId, entry.toStateId, entry.operationId])).toEqual([
    ['migrated', null, 'waiting-for-approval', started.body.operationId],
    ['transitioned', 'large-goes-to-directors', 'waiting-for-second-approval', started.body.operationId],
  ]);
});
