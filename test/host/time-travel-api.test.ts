/**
 * Time travel over HTTP on the local server and Azurite: GET /api/instances/{id}/history/{sequence} answers
 * the instance as it was after that entry (state, status, version, the context rebuilt from the records'
 * patches, the entry with its record); a sequence that is not a whole number is a 400 naming `sequence`, an
 * entry or instance that does not exist a 404, both problem+json.
 */
import { startTestHost } from '../support/local-host';
import type { LocalHost } from '../../src/host/local/local-host';
import { httpClient } from './http-client';

const orders = {
  id: 'orders',
  displayName: 'Orders',
  initialStateId: 'draft',
  states: {
    draft: {
      transitions: [
        {
          id: 'submit',
          targetStateId: 'review',
          conditions: [{ type: 'triggerName', name: 'Submit' }],
          actions: [{ type: 'setContext', expressions: { amount: 'trigger.parameters.amount' }, remove: ['note'] }],
        },
      ],
    },
    review: { transitions: [{ id: 'approve', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Approve' }], actions: [{ type: 'setContext', values: { approved: true } }] }] },
    done: {},
  },
};

let host: LocalHost;
let api: ReturnType<typeof httpClient>;

beforeAll(async () => {
  ({ host, api } = await startTestHost('timetravel'));
  expect((await api.request('PUT', '/api/workflows/orders', { json: orders })).status).toBe(201);
  expect((await api.request('POST', '/api/instances', { json: { workflowId: 'orders', instanceId: 'o1', context: { note: 'n', lines: [1, 2] } } })).status).toBe(201);
  for (const [name, parameters] of [
    ['Submit', { amount: 7 }],
    ['Approve', {}],
  ] as const) {
    const sent = await api.request('POST', '/api/instances/o1/triggers', { json: { name, parameters } });
    expect(sent.status).toBe(202);
    await api.waitForOperation((sent.body as { operationId: string }).operationId);
  }
});

afterAll(async () => {
  await host?.stop();
});

describe('GET /api/instances/{id}/history/{sequence}', () => {
  it('answers the instance as it was after each entry', async () => {
    const created = await api.request('GET', '/api/instances/o1/history/0');
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ instanceId: 'o1', sequence: 0, event: 'created', stateId: 'draft', status: 'waiting', workflowVersion: 1, context: { note: 'n', lines: [1, 2] } });
    const submitted = await api.request('GET', '/api/instances/o1/history/1');
    expect(submitted.body).toMatchObject({
      stateId: 'review',
      context: { lines: [1, 2], amount: 7 },
      entry: { sequence: 1, transitionId: 'submit', record: { detail: 'full', trigger: { name: 'Submit', parameters: { amount: 7 } } } },
    });
    expect((submitted.body as { context: object }).context).not.toHaveProperty('note');
    expect((submitted.body as { entry: { record: { contextChange: unknown[] } } }).entry.record.contextChange).toEqual(
      expect.arrayContaining([
        { op: 'remove', path: '/note' },
        { op: 'add', path: '/amount', value: 7 },
      ]),
    );
    const done = await api.request('GET', '/api/instances/o1/history/2');
    const now = await api.request('GET', '/api/instances/o1');
    expect(done.body).toMatchObject({ stateId: 'done', status: 'complete', context: (now.body as { context: object }).context });
  });

  it('answers 404 problem+json for an entry or an instance that does not exist', async () => {
    for (const path of ['/api/instances/o1/history/99', '/api/instances/nobody/history/0']) {
      const answer = await api.request('GET', path);
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it('answers 400 problem+json naming the sequence when it is not a whole number', async () => {
    for (const sequence of ['abc', '-1', '1.5']) {
      const answer = await api.request('GET', `/api/instances/o1/history/${sequence}`);
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.stringify(answer.body)).toContain('sequence');
    }
  });
});
