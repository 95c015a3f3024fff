/**
 * Explain over HTTP (issue 16), on the local server and Azurite: a dry run changes neither the instance,
 * its history nor its ETag; a real trigger's operation record names the false condition in its trace.
 */
import { startTestHost } from '../support/local-host';
import type { LocalHost } from '../../src/host/local/local-host';
import { httpClient } from './http-client';

const approvalWorkflow = {
  id: 'approval',
  displayName: 'Approval',
  initialStateId: 'draft',
  states: {
    draft: {
      transitions: [
        {
          id: 'submit',
          targetStateId: 'submitted',
          conditions: [
            { type: 'triggerName', name: 'Submit' },
            { type: 'expression', expression: 'context.amount < 1000' },
          ],
          actions: [
            { type: 'setContext', expressions: { submittedBy: 'trigger.parameters.by' } },
            { type: 'raiseTrigger', trigger: { name: 'Submitted', subjects: ['audit'] } },
          ],
        },
      ],
    },
    submitted: {},
  },
};

let host: LocalHost;
let api: ReturnType<typeof httpClient>;

beforeAll(async () => {
  ({ host, api } = await startTestHost('dryrun'));
  expect((await api.request('PUT', '/api/workflows/approval', { json: approvalWorkflow })).status).toBe(201);
});

afterAll(async () => {
  await host?.stop();
});

async function createInstance(instanceId: string, amount: number) {
  const created = await api.request('POST', '/api/instances', { json: { workflowId: 'approval', instanceId, context: { amount } } });
  expect(created.status).toBe(201);
  return created;
}

describe('dry run over HTTP', () => {
  it('answers 200 with what would happen and changes neither the instance, its history nor its ETag', async () => {
    const created = await createInstance('small', 10);
    const historyBefore = await api.request('GET', '/api/instances/small/history');

    const dry = await api.request('POST', '/api/instances/small/triggers?dryRun=true', { json: { name: 'Submit', parameters: { by: 'ann' } } });
    expect(dry.status).toBe(200);
    expect(dry.body.truncated).toBe(false);
    expect(dry.body.instances).toHaveLength(1);
    expect(dry.body.instances[0]).toMatchObject({
      instanceId: 'small',
      outcome: 'transitioned',
      transitionId: 'submit',
      toStateId: 'submitted',
      contextAfter: { amount: 10, submittedBy: 'ann' },
      raisedTriggers: [{ name: 'Submitted', subjects: ['audit'] }],
      actions: [{ type: 'setContext' }, { type: 'raiseTrigger', trigger: { name: 'Submitted', subjects: ['audit'] } }],
      events: [],
    });
    expect(dry.body.instances[0].trace.map((entry: { result: unknown }) => entry.result)).toEqual([true, true]);

    const after = await api.request('GET', '/api/instances/small');
    expect(after.headers.get('etag')).toBe(created.headers.get('etag'));
    expect(after.body).toEqual(created.body);
    expect((await api.request('GET', '/api/instances/small/history')).body).toEqual(historyBefore.body);
  });

  it('a broadcast dry run answers for each candidate and changes nothing', async () => {
    await createInstance('b1', 1);
    await createInstance('b2', 5000);
    const dry = await api.request('POST', '/api/triggers?dryRun=true', { json: { name: 'Submit', subjects: ['b1', 'b2'], parameters: { by: 'bob' } } });
    expect(dry.status).toBe(200);
    const byId = Object.fromEntries(dry.body.instances.map((result: { instanceId: string; outcome: string }) => [result.instanceId, result.outcome]));
    expect(byId).toEqual({ b1: 'transitioned', b2: 'noTransition' });
    expect((await api.request('GET', '/api/instances/b1')).body.stateId).toBe('draft');
  });

  it('a dry run of an unknown instance is 404, and a bad dryRun value is a 400 naming it', async () => {
    expect((await api.request('POST', '/api/instances/nobody/triggers?dryRun=true', { json: { name: 'Submit' } })).status).toBe(404);
    const bad = await api.request('POST', '/api/instances/small/triggers?dryRun=yes', { json: { name: 'Submit' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.errors)).toContain('dryRun');
  });
});

describe('traces over HTTP', () => {
  it('the operation record of a trigger that did nothing names the false condition', async () => {
    await createInstance('large', 5000);
    const accepted = await api.request('POST', '/api/instances/large/triggers', { json: { name: 'Submit' } });
    expect(accepted.status).toBe(202);
    const finished = await api.waitForOperation(accepted.body.operationId);
    expect(finished.status).toBe(200);
    expect(finished.body.instances).toEqual([
      {
        instanceId: 'large',
        outcome: 'noTransition',
        fromStateId: 'draft',
        trace: [
          { path: 'states.draft.transitions[0].conditions[0]', type: 'triggerName', result: true },
          { path: 'states.draft.transitions[0].conditions[1]', type: 'expression', result: false, detail: 'context.amount < 1000 → false' },
        ],
      },
    ]);
  });
});
