/**
 * Black-box tests of the HTTP API (shared/design/api.md) against the local server over real loopback
 * HTTP, on the Azurite that jest starts. Each file has its own tables.
 */
import { startTestHost } from '../support/local-host';
import type { LocalHost } from '../../src/host/local/local-host';
import { parseMermaid } from '../support/mermaid';
import { httpClient } from './http-client';

const reviewWorkflow = {
  id: 'review',
  displayName: 'Review',
  initialStateId: 'draft',
  states: {
    draft: {
      interests: ['team:{{context.team}}'],
      transitions: [
        {
          id: 'submit',
          targetStateId: 'submitted',
          conditions: [{ type: 'triggerName', name: 'Submit' }],
          actions: [{ type: 'setContext', expressions: { submittedBy: 'trigger.parameters.by' } }],
        },
        {
          id: 'break',
          targetStateId: 'submitted',
          conditions: [{ type: 'triggerName', name: 'Break' }],
          actions: [{ type: 'setContext', expressions: { broken: '$error("the action failed")' } }],
        },
      ],
    },
    submitted: {
      transitions: [{ id: 'approve', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Approve' }] }],
    },
    approved: {},
  },
};

let host: LocalHost;
let api: ReturnType<typeof httpClient>;

beforeAll(async () => {
  ({ host, api } = await startTestHost('api'));
});

afterAll(async () => {
  await host?.stop();
});

async function sendTrigger(trigger: Record<string, unknown>) {
  const accepted = await api.request('POST', '/api/triggers', { json: trigger });
  expect(accepted.status).toBe(202);
  return { accepted, finished: await api.waitForOperation(accepted.body.operationId) };
}

describe('workflows', () => {
  it('creates with PUT (201, version 1, ETag), refuses a blind overwrite (409), versions with If-Match', async () => {
    const created = await api.request('PUT', '/api/workflows/review', { json: reviewWorkflow });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 'review', version: 1, initialStateId: 'draft' });
    const etag1 = created.headers.get('etag');
    expect(etag1).toBeTruthy();
    expect(created.body.etag).toBe(etag1);

    expect((await api.request('PUT', '/api/workflows/review', { json: reviewWorkflow })).status).toBe(409);

    const updated = await api.request('PUT', '/api/workflows/review', { json: { ...reviewWorkflow, displayName: 'Review v2' }, headers: { 'if-match': etag1! } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, displayName: 'Review v2' });
    expect(updated.headers.get('etag')).not.toBe(etag1);

    const stale = await api.request('PUT', '/api/workflows/review', { json: reviewWorkflow, headers: { 'if-match': etag1! } });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('content-type')).toContain('application/problem+json');

    const star = await api.request('PUT', '/api/workflows/review', { json: { ...reviewWorkflow, displayName: 'Review v3' }, headers: { 'if-match': '*' } });
    expect(star.status).toBe(200);
    expect(star.body.version).toBe(3);

    const latest = await api.request('GET', '/api/workflows/review');
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ version: 3, displayName: 'Review v3' });
    expect(latest.headers.get('etag')).toBe(star.headers.get('etag'));

    const first = await api.request('GET', '/api/workflows/review?version=1');
    expect(first.body).toMatchObject({ version: 1, displayName: 'Review' });
    expect((await api.request('GET', '/api/workflows/review?version=9')).status).toBe(404);
  });

  it('answers an unchanged definition with the current version instead of a new one, unless ?force=true', async () => {
    const definition = { ...reviewWorkflow, id: 'unchanged' };
    const created = await api.request('PUT', '/api/workflows/unchanged', { json: definition });
    expect(created.status).toBe(201);
    const etag = created.headers.get('etag')!;

    const again = await api.request('PUT', '/api/workflows/unchanged', { json: definition, headers: { 'if-match': etag } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ version: 1 });
    expect(again.headers.get('etag')).toBe(etag);
    const starred = await api.request('PUT', '/api/workflows/unchanged', { json: definition, headers: { 'if-match': '*' } });
    expect(starred.body).toMatchObject({ version: 1 });

    const forced = await api.request('PUT', '/api/workflows/unchanged?force=true', { json: definition, headers: { 'if-match': etag } });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ version: 2 });
    // A stale ETag is still refused, unchanged body or not.
    expect((await api.request('PUT', '/api/workflows/unchanged', { json: definition, headers: { 'if-match': etag } })).status).toBe(412);
    expect((await api.request('GET', '/api/workflows/unchanged?version=3')).status).toBe(404);
  });

  it('creates with POST (201) and refuses an existing id (409)', async () => {
    const definition = { ...reviewWorkflow, id: 'posted' };
    const created = await api.request('POST', '/api/workflows', { json: definition });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/workflows/posted');
    expect((await api.request('POST', '/api/workflows', { json: definition })).status).toBe(409);
  });

  it('lists workflows with their latest version', async () => {
    const list = await api.request('GET', '/api/workflows');
    expect(list.status).toBe(200);
    const review = list.body.items.find((item: { id: string }) => item.id === 'review');
    expect(review).toEqual({ id: 'review', displayName: 'Review v3', version: 3 });
  });

  it('pages lists with maxPageSize and an opaque continuation token', async () => {
    const first = await api.request('GET', '/api/workflows?maxPageSize=1');
    expect(first.body.items).toHaveLength(1);
    expect(typeof first.body.continuationToken).toBe('string');
    const second = await api.request('GET', `/api/workflows?maxPageSize=1&continuationToken=${encodeURIComponent(first.body.continuationToken)}`);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
    expect((await api.request('GET', '/api/workflows?continuationToken=not-a-token')).status).toBe(400);
  });

  it('answers 404 for an unknown workflow and 400 with every problem for an invalid one', async () => {
    expect((await api.request('GET', '/api/workflows/nope')).status).toBe(404);
    const invalid = await api.request('PUT', '/api/workflows/bad', {
      json: { id: 'bad', displayName: 'Bad', initialStateId: 'missing', states: { a: { transitions: [{ id: 't', targetStateId: 'nowhere' }] } } },
    });
    expect(invalid.status).toBe(400);
    const paths = invalid.body.errors.map((error: { path: string }) => error.path);
    expect(paths).toEqual(expect.arrayContaining(['initialStateId', 'states.a.transitions[0].targetStateId']));
    expect((await api.request('GET', '/api/workflows/bad')).status).toBe(404);
  });

  it('refuses a body whose id differs from the route (400)', async () => {
    const mismatch = await api.request('PUT', '/api/workflows/other', { json: reviewWorkflow });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors[0].path).toBe('id');
  });
});

describe('instances, triggers and operations', () => {
  it('creates an instance (201 + Location), refuses its id again (409) and an unknown workflow (404)', async () => {
    const created = await api.request('POST', '/api/instances', { json: { workflowId: 'review', instanceId: 'claim-1', context: { team: 'blue' } } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/instances/claim-1');
    expect(created.body).toMatchObject({ id: 'claim-1', workflowId: 'review', workflowVersion: 3, stateId: 'draft', status: 'waiting' });
    expect(created.body.interests).toEqual(expect.arrayContaining(['claim-1', 'team:blue', 'Submit']));
    expect(created.body).not.toHaveProperty('appliedTriggerIds');

    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'review', instanceId: 'claim-1' } })).status).toBe(409);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'nope' } })).status).toBe(404);

    const read = await api.request('GET', '/api/instances/claim-1');
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    expect((await api.request('GET', '/api/instances/unknown')).status).toBe(404);
  });

  it('runs a trigger as a long-running operation: 202 with status URL, then 200 with outcomes', async () => {
    await api.request('POST', '/api/instances', { json: { workflowId: 'review', instanceId: 'claim-2', context: { team: 'blue' } } });
    const { accepted, finished } = await sendTrigger({ id: 'submit-blue-1', name: 'Submit', subjects: ['team:blue'], parameters: { by: 'ann' } });
    expect(accepted.body).toEqual({ operationId: 'submit-blue-1', status: 'notStarted', statusUrl: '/api/operations/submit-blue-1' });
    expect(accepted.headers.get('location')).toBe('/api/operations/submit-blue-1');
    expect(accepted.headers.get('operation-location')).toBe('/api/operations/submit-blue-1');
    expect(Number(accepted.headers.get('retry-after'))).toBeGreaterThan(0);

    expect(finished.status).toBe(200);
    expect(finished.body).toMatchObject({ id: 'submit-blue-1', triggerId: 'submit-blue-1', status: 'succeeded', candidates: 2 });
    expect(finished.body.summary).toMatchObject({ transitioned: 2, noTransition: 0, faulted: 0 });
    const outcomes = finished.body.instances.map((result: { instanceId: string; outcome: string; toStateId: string }) => [result.instanceId, result.outcome, result.toStateId]).sort();
    expect(outcomes).toEqual([
      ['claim-1', 'transitioned', 'submitted'],
      ['claim-2', 'transitioned', 'submitted'],
    ]);

    const instance = await api.request('GET', '/api/instances/claim-1');
    expect(instance.body).toMatchObject({ stateId: 'submitted', status: 'waiting', context: { team: 'blue', submittedBy: 'ann' } });
  });

  // Issue 9 changed this: a repeat with another body was answered 202 with the first operation; it is now
  // refused (409, naming the difference), as the Idempotency-Key draft does. A true repeat is still 202.
  it('answers a repeated trigger id with the first operation and applies it once; refuses it with another body (409)', async () => {
    const different = await api.request('POST', '/api/triggers', { json: { id: 'submit-blue-1', name: 'Submit', subjects: ['team:blue'], parameters: { by: 'bob' } } });
    expect(different.status).toBe(409);
    expect(different.body.detail).toContain('first difference at parameters.by');
    const again = await api.request('POST', '/api/triggers', { json: { id: 'submit-blue-1', subjects: ['team:blue', 'team:blue'], parameters: { by: 'ann' }, name: 'Submit' } });
    expect(again.status).toBe(202);
    expect(again.body.operationId).toBe('submit-blue-1');
    const operation = await api.waitForOperation('submit-blue-1');
    expect(operation.body.summary.transitioned).toBe(2);
    const history = await api.request('GET', '/api/instances/claim-1/history');
    expect(history.body.items.filter((item: { triggerId: string }) => item.triggerId === 'submit-blue-1')).toHaveLength(1);
    expect((await api.request('GET', '/api/instances/claim-1')).body.context.submittedBy).toBe('ann');
  });

  it('reports noTransition for an instance whose state has no transition for the trigger', async () => {
    const { finished } = await sendTrigger({ name: 'Submit', subjects: ['claim-1'] });
    expect(finished.body.summary).toMatchObject({ noTransition: 1, transitioned: 0 });
    // Changed by issue 16: the result says why (the trace names the false condition).
    expect(finished.body.instances).toEqual([
      { instanceId: 'claim-1', outcome: 'noTransition', fromStateId: 'submitted', trace: [{ path: 'states.submitted.transitions[0].conditions[0]', type: 'triggerName', result: false }] },
    ]);
  });

  it('sends an instance-scoped trigger whose subject is the instance', async () => {
    const accepted = await api.request('POST', '/api/instances/claim-1/triggers', { json: { name: 'Approve' } });
    expect(accepted.status).toBe(202);
    const finished = await api.waitForOperation(accepted.body.operationId);
    expect(finished.body.instances).toEqual([
      {
        instanceId: 'claim-1',
        outcome: 'transitioned',
        transitionId: 'approve',
        fromStateId: 'submitted',
        toStateId: 'approved',
        trace: [{ path: 'states.submitted.transitions[0].conditions[0]', type: 'triggerName', result: true }],
      },
    ]);
    expect((await api.request('GET', '/api/instances/claim-1')).body).toMatchObject({ stateId: 'approved', status: 'complete' });
    expect((await api.request('POST', '/api/instances/nobody/triggers', { json: { name: 'Approve' } })).status).toBe(404);
  });

  it('lists history oldest first', async () => {
    const history = await api.request('GET', '/api/instances/claim-1/history');
    expect(history.status).toBe(200);
    expect(history.body.items.map((item: { toStateId: string }) => item.toStateId)).toEqual(['draft', 'submitted', 'approved']);
    expect(history.body.items[1]).toMatchObject({ triggerId: 'submit-blue-1', transitionId: 'submit', fromStateId: 'draft', toStateId: 'submitted', status: 'waiting' });
    expect(Date.parse(history.body.items[0].at)).not.toBeNaN();
    expect((await api.request('GET', '/api/instances/nobody/history')).status).toBe(404);
  });

  it('queries instances by workflow, state, status and subject', async () => {
    const byState = await api.request('GET', '/api/instances?workflowId=review&stateId=submitted');
    expect(byState.body.items.map((item: { id: string }) => item.id)).toEqual(['claim-2']);
    const complete = await api.request('GET', '/api/instances?status=complete');
    expect(complete.body.items.map((item: { id: string }) => item.id)).toEqual(['claim-1']);
    const bySubject = await api.request('GET', '/api/instances?subject=claim-2');
    expect(bySubject.body.items.map((item: { id: string }) => item.id)).toEqual(['claim-2']);
  });

  it('reports a fault on the operation, keeps the instance faulted, and recovers it', async () => {
    await api.request('POST', '/api/instances', { json: { workflowId: 'review', instanceId: 'claim-3', context: { team: 'red' } } });
    const { finished } = await sendTrigger({ name: 'Break', subjects: ['claim-3'] });
    expect(finished.body.summary.faulted).toBe(1);
    expect(finished.body.instances[0]).toMatchObject({ instanceId: 'claim-3', outcome: 'faulted' });
    expect(finished.body.instances[0].error).toContain('the action failed');

    const faulted = await api.request('GET', '/api/instances/claim-3');
    expect(faulted.body).toMatchObject({ status: 'faulted', stateId: 'draft' });
    expect(faulted.body.fault).toMatchObject({ triggerId: finished.body.triggerId });

    const ignored = await sendTrigger({ name: 'Submit', subjects: ['claim-3'] });
    expect(ignored.finished.body.instances).toEqual([{ instanceId: 'claim-3', outcome: 'notActive' }]);

    expect((await api.request('POST', '/api/instances/claim-3/recover', { json: { stateId: 'nowhere' } })).status).toBe(400);
    const recovered = await api.request('POST', '/api/instances/claim-3/recover', { json: { stateId: 'draft' } });
    expect(recovered.status).toBe(200);
    expect(recovered.body).toMatchObject({ status: 'waiting', stateId: 'draft' });
    expect(recovered.body).not.toHaveProperty('fault');
    expect((await api.request('POST', '/api/instances/claim-3/recover', { json: { stateId: 'draft' } })).status).toBe(409);
    expect((await api.request('POST', '/api/instances/nobody/recover', { json: { stateId: 'draft' } })).status).toBe(404);
  });

  it('cancels an instance once (200, then 409)', async () => {
    const cancelled = await api.request('POST', '/api/instances/claim-3/cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await api.request('POST', '/api/instances/claim-3/cancel')).status).toBe(409);
    expect((await api.request('POST', '/api/instances/claim-1/cancel')).status).toBe(409); // complete
    expect((await api.request('POST', '/api/instances/nobody/cancel')).status).toBe(404);
  });

  it('answers 404 for an unknown operation', async () => {
    const missing = await api.request('GET', '/api/operations/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
  });
});

describe('raised triggers', () => {
  it('dispatches a trigger raised by an action as its own operation, through the same path', async () => {
    const relay = {
      id: 'relay',
      displayName: 'Relay',
      initialStateId: 'ready',
      states: {
        ready: {
          transitions: [
            {
              id: 'go',
              targetStateId: 'sent',
              conditions: [{ type: 'triggerName', name: 'Go' }],
              actions: [{ type: 'raiseTrigger', trigger: { name: 'Ping', subjects: ['{{context.partner}}'], parameters: { from: '{{instance.id}}' } } }],
            },
          ],
        },
        sent: {},
      },
    };
    const pong = {
      id: 'pong',
      displayName: 'Pong',
      initialStateId: 'waiting',
      states: {
        waiting: {
          transitions: [
            { id: 'pinged', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Ping' }], actions: [{ type: 'setContext', expressions: { from: 'trigger.parameters.from' } }] },
          ],
        },
        done: {},
      },
    };
    expect((await api.request('PUT', '/api/workflows/relay', { json: relay })).status).toBe(201);
    expect((await api.request('PUT', '/api/workflows/pong', { json: pong })).status).toBe(201);
    await api.request('POST', '/api/instances', { json: { workflowId: 'pong', instanceId: 'pong-1' } });
    await api.request('POST', '/api/instances', { json: { workflowId: 'relay', instanceId: 'relay-1', context: { partner: 'pong-1' } } });

    const { finished } = await sendTrigger({ id: 'go-1', name: 'Go', subjects: ['relay-1'] });
    expect(finished.body.instances).toEqual([
      {
        instanceId: 'relay-1',
        outcome: 'transitioned',
        transitionId: 'go',
        fromStateId: 'ready',
        toStateId: 'sent',
        trace: [{ path: 'states.ready.transitions[0].conditions[0]', type: 'triggerName', result: true }],
      },
    ]);

    let partner = await api.request('GET', '/api/instances/pong-1');
    for (let poll = 0; poll < 400 && partner.body.status !== 'complete'; poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      partner = await api.request('GET', '/api/instances/pong-1');
    }
    expect(partner.body).toMatchObject({ stateId: 'done', status: 'complete', context: { from: 'relay-1' } });
    const history = await api.request('GET', '/api/instances/pong-1/history');
    const raisedTriggerId = history.body.items[1].triggerId;
    expect(raisedTriggerId).not.toBe('go-1');
    const raisedOperation = await api.waitForOperation(raisedTriggerId);
    expect(raisedOperation.body).toMatchObject({ status: 'succeeded', candidates: 1, summary: { transitioned: 1 } });
  });
});

describe('health and OpenAPI', () => {
  it('reports health when storage answers', async () => {
    const health = await api.request('GET', '/api/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
  });

  it('serves an OpenAPI 3.1 document naming every route', async () => {
    const document = await api.request('GET', '/api/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe('3.1.0');
    // Issue 12: paths are relative to the server URL `/api`, so azd's SIGNALBOX_API_BASE_URL is a base URL.
    expect(document.body.servers[0]).toEqual({ url: '/api', description: expect.any(String) });
    expect(Object.keys(document.body.paths)).toEqual(expect.arrayContaining(['/workflows/{workflowId}', '/instances/{instanceId}/history', '/triggers', '/operations/{operationId}', '/health']));
    expect(document.body.paths['/triggers'].post.responses['202']).toBeDefined();
    // Condition and action fields are described per type (a discriminated union), and the references resolve inside the document.
    const conditionTypes = Object.keys(document.body.components.schemas.condition.discriminator.mapping);
    expect(conditionTypes).toEqual(expect.arrayContaining(['triggerName', 'expression', 'invokeExternalService', 'all']));
    const refs = [...JSON.stringify(document.body).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const target = ref.split('/').reduce((node: any, key) => node?.[key], document.body);
      expect({ ref, found: target !== undefined }).toEqual({ ref, found: true });
    }
  });
});

describe('explain: validate, diagrams and available triggers', () => {
  const explained = {
    id: 'explained',
    displayName: 'Explained',
    initialStateId: 'draft',
    states: {
      draft: {
        displayName: 'Draft "one"',
        transitions: [
          {
            id: 'submit',
            targetStateId: 'submitted',
            conditions: [
              { type: 'triggerName', name: 'Submit' },
              { type: 'triggerParameter', parameter: 'by', test: 'exists' },
            ],
          },
          { id: 'withdraw', targetStateId: 'withdrawn', conditions: [{ type: 'not', condition: { type: 'triggerName', name: 'Submit' } }] },
        ],
      },
      submitted: { displayName: 'Submitted', transitions: [{ id: 'approve', targetStateId: 'withdrawn', conditions: [{ type: 'triggerName', name: 'Approve' }] }] },
      withdrawn: { displayName: 'Withdrawn' },
    },
  };
  const withIsland = { ...explained, id: 'with-island', states: { ...explained.states, island: { displayName: 'Island' } } };

  it('validate answers warnings and errors with 200 and stores nothing', async () => {
    const checked = await api.request('POST', '/api/workflows/validate', { json: withIsland });
    expect(checked.status).toBe(200);
    expect(checked.body).toEqual({ valid: true, errors: [], warnings: [{ path: 'states.island', code: 'unreachableState', message: expect.stringContaining('"island"') }] });
    expect((await api.request('GET', '/api/workflows/with-island')).status).toBe(404);

    const invalid = await api.request('POST', '/api/workflows/validate', { json: { ...withIsland, initialStateId: 'nowhere' } });
    expect(invalid.status).toBe(200);
    expect(invalid.body).toMatchObject({ valid: false, warnings: [] });
    expect(invalid.body.errors.map((error: { path: string }) => error.path)).toEqual(['initialStateId']);
    expect((await api.request('GET', '/api/workflows/with-island')).status).toBe(404);

    expect((await api.request('POST', '/api/workflows/validate', { body: 'not json', headers: { 'content-type': 'application/json' } })).status).toBe(400);
  });

  it('PUT and POST of a workflow answer with warnings and store it anyway', async () => {
    const put = await api.request('PUT', '/api/workflows/with-island', { json: withIsland });
    expect(put.status).toBe(201);
    expect(put.body.warnings).toEqual([{ path: 'states.island', code: 'unreachableState', message: expect.any(String) }]);
    expect((await api.request('GET', '/api/workflows/with-island')).status).toBe(200);
    const posted = await api.request('POST', '/api/workflows', { json: explained });
    expect(posted.status).toBe(201);
    expect(posted.body.warnings).toEqual([]);
  });

  it('draws a workflow as a Mermaid state diagram, highlighting an instance state', async () => {
    const diagram = await api.request('GET', '/api/workflows/explained/diagram');
    expect(diagram.status).toBe(200);
    expect(diagram.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const [parsed] = await parseMermaid([diagram.text]);
    expect(
      parsed!.states
        .filter((state) => state.descriptions.length)
        .map((state) => state.descriptions[0])
        .sort(),
    ).toEqual(['Draft "one"', 'Submitted', 'Withdrawn']);
    expect(parsed!.relations.map((relation) => relation.label).sort()).toEqual(['', '', 'Approve', 'Submit', 'any trigger except Submit']);

    await api.request('POST', '/api/instances', { json: { workflowId: 'explained', instanceId: 'explained-1' } });
    const highlighted = await api.request('GET', '/api/workflows/explained/diagram?instanceId=explained-1&version=1');
    expect(highlighted.status).toBe(200);
    expect(highlighted.text).toContain('class s0 current');
    expect(diagram.text).not.toContain('current');

    expect((await api.request('GET', '/api/workflows/nope/diagram')).status).toBe(404);
    expect((await api.request('GET', '/api/workflows/explained/diagram?version=7')).status).toBe(404);
    expect((await api.request('GET', '/api/workflows/explained/diagram?instanceId=nobody')).status).toBe(404);
    const otherWorkflow = await api.request('GET', '/api/workflows/with-island/diagram?instanceId=explained-1');
    expect(otherWorkflow.status).toBe(400);
    expect(otherWorkflow.body.errors[0].path).toBe('instanceId');
    expect((await api.request('GET', '/api/workflows/explained/diagram?colour=red')).status).toBe(400);
  });

  it('lists the triggers an instance can act on now, and none once it is inactive', async () => {
    await api.request('POST', '/api/instances', { json: { workflowId: 'explained', instanceId: 'explained-2' } });
    const available = await api.request('GET', '/api/instances/explained-2/available-triggers');
    expect(available.status).toBe(200);
    expect(available.body).toEqual({
      status: 'waiting',
      stateId: 'draft',
      // An open local server's caller: every transition without an `actors` rule is theirs.
      actor: 'anonymous',
      items: [
        { transitionId: 'submit', triggerNames: ['Submit'], parameters: [{ name: 'by', test: 'exists' }], targetStateId: 'submitted' },
        { transitionId: 'withdraw', triggerNames: ['*'], exceptTriggerNames: ['Submit'], parameters: [], targetStateId: 'withdrawn' },
      ],
    });
    expect((await api.request('POST', '/api/instances/explained-2/cancel')).status).toBe(200);
    const cancelled = await api.request('GET', '/api/instances/explained-2/available-triggers');
    expect(cancelled.body).toEqual({ status: 'cancelled', stateId: 'draft', actor: 'anonymous', items: [] });
    expect((await api.request('GET', '/api/instances/nobody/available-triggers')).status).toBe(404);
  });

  it('declares its routes in the OpenAPI document', async () => {
    const { body } = await api.request('GET', '/api/openapi.json');
    expect(body.paths['/workflows/validate'].post.responses['200']).toBeDefined();
    expect(body.paths['/workflows/{workflowId}/diagram'].get.responses['404']).toBeDefined();
    expect(body.paths['/instances/{instanceId}/available-triggers'].get.responses['200']).toBeDefined();
  });
});
