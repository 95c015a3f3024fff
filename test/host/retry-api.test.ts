/**
 * Retrying faults over HTTP (issue 38, section 3), on the local server over real loopback with Azurite: an
 * action whose service is not there yet faults the instance; `POST /api/instances/{id}/retry` (an
 * operation) applies the trigger again once the service is up, exactly once; `POST
 * /api/operations/{id}/retry-faulted` retries every instance one trigger's operation faulted.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestHost, type TestHost } from '../support/local-host';

let service: Server;
const serviceState = { up: false, calls: 0 };
let test: TestHost;

beforeAll(async () => {
  // Not deployed yet (404, which is not retried in place) until `up`; then it approves.
  service = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      serviceState.calls += 1;
      if (!serviceState.up) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ contextValuesToSetOrAdd: { approved: true } }));
    });
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}/approve`;
  test = await startTestHost('retryapi', { env: { SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' } });
  const definition = {
    id: 'payouts',
    displayName: 'Payouts',
    initialStateId: 'requested',
    states: {
      requested: {
        interests: ['batch:{{context.batch}}'],
        transitions: [
          {
            id: 'approve',
            targetStateId: 'approved',
            conditions: [{ type: 'triggerName', name: 'Approve' }],
            actions: [{ type: 'invokeExternalService', url }],
          },
        ],
      },
      approved: {},
    },
  };
  expect((await test.api.request('PUT', '/api/workflows/payouts', { json: definition })).status).toBe(201);
});

afterAll(async () => {
  await test?.host.stop();
  await new Promise((resolve) => service?.close(resolve));
});

async function started(instanceId: string, batch = 'b0') {
  expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'payouts', instanceId, context: { batch } } })).status).toBe(201);
}

async function finished(response: { status: number; body: { operationId: string } }) {
  expect(response.status).toBe(202);
  const operation = await test.api.waitForOperation(response.body.operationId);
  expect(operation.status).toBe(200);
  return operation.body;
}

describe('POST /api/instances/{id}/retry', () => {
  it('applies the faulted trigger again once the service is up, exactly once; why names the command', async () => {
    const { api } = test;
    serviceState.up = false;
    await started('p1');
    const sent = await finished(await api.request('POST', '/api/instances/p1/triggers', { json: { id: 'approve-p1', name: 'Approve' } }));
    expect(sent.instances).toMatchObject([{ instanceId: 'p1', outcome: 'faulted' }]);
    expect((await api.request('GET', '/api/instances/p1')).body).toMatchObject({ status: 'faulted', fault: { triggerId: 'approve-p1', retryable: true } });
    const why = await api.request('GET', '/api/instances/p1/waiting');
    expect(why.body.reasons[0]).toMatchObject({ class: 'faulted', retry: { cli: 'signalbox retry p1', http: { method: 'POST', path: '/api/instances/p1/retry' } } });

    // Still down: the retry is an operation whose one result is the fault again.
    const stillDown = await finished(await api.request('POST', '/api/instances/p1/retry'));
    expect(stillDown).toMatchObject({ bulk: { action: 'retry', filter: { subject: 'p1', faultTriggerId: 'approve-p1' } }, summary: { faulted: 1 } });

    serviceState.up = true;
    const callsBefore = serviceState.calls;
    const retried = await finished(await api.request('POST', '/api/instances/p1/retry'));
    expect(retried.instances).toMatchObject([{ instanceId: 'p1', outcome: 'transitioned', transitionId: 'approve', toStateId: 'approved' }]);
    expect(serviceState.calls).toBe(callsBefore + 1);
    expect((await api.request('GET', '/api/instances/p1')).body).toMatchObject({ status: 'complete', stateId: 'approved', context: { approved: true } });
    const history = (await api.request('GET', '/api/instances/p1/history')).body.items;
    expect(history.map((entry: { event: string }) => entry.event)).toEqual(['created', 'faulted', 'faulted', 'transitioned']);
    expect(history[3]).toMatchObject({ triggerId: 'approve-p1', operationId: retried.id, retriedBy: { id: 'anonymous' } });

    // Once: a second retry is refused, naming why, and the original trigger again is a duplicate.
    const again = await api.request('POST', '/api/instances/p1/retry');
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/is complete, not faulted: only a faulted instance can be retried/);
    // A client sending the original again finds its first operation (the instance's record answers a redelivery: engine tests).
    const repeated = await finished(await api.request('POST', '/api/instances/p1/triggers', { json: { id: 'approve-p1', name: 'Approve' } }));
    expect(repeated).toMatchObject({ id: 'approve-p1', instances: [{ instanceId: 'p1', outcome: 'faulted' }] });
    expect(serviceState.calls).toBe(callsBefore + 1);
    expect((await api.request('GET', '/api/instances/p1/history')).body.items).toHaveLength(4);
  });

  it('answers 404 for no instance and 409 for a fault that has no trigger to retry', async () => {
    const { api } = test;
    expect((await api.request('POST', '/api/instances/nobody/retry')).status).toBe(404);
    const strict = {
      id: 'strict',
      displayName: 'Strict',
      initialStateId: 'open',
      states: { open: { entryConditions: [{ type: 'expression', expression: '$exists(context.owner)' }], transitions: [{ id: 'close', targetStateId: 'closed' }] }, closed: {} },
    };
    expect((await api.request('PUT', '/api/workflows/strict', { json: strict })).status).toBe(201);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'strict', instanceId: 's1' } })).body).toMatchObject({ status: 'faulted' });
    const refused = await api.request('POST', '/api/instances/s1/retry');
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body.detail).toMatch(/faulted while being created or recovered.*recover it into a state instead/);
  });
});

describe('POST /api/operations/{id}/retry-faulted', () => {
  it("retries every instance one trigger's operation faulted, once", async () => {
    const { api } = test;
    serviceState.up = false;
    await started('q1', 'b1');
    await started('q2', 'b1');
    const sent = await finished(await api.request('POST', '/api/triggers', { json: { id: 'approve-b1', name: 'Approve', subjects: ['batch:b1'] } }));
    expect(sent.summary).toMatchObject({ faulted: 2 });
    // Finished, but not a success: the operation says so, counts them, and a list can find it by that.
    expect(sent).toMatchObject({ status: 'succeeded', outcome: 'completedWithFaults', faulted: 2 });
    const withFaults = (await api.request('GET', '/api/operations?outcome=completedWithFaults')).body.items.map((operation: { id: string }) => operation.id);
    expect(withFaults).toContain('approve-b1');
    expect((await api.request('GET', '/api/operations?outcome=succeeded')).body.items.map((operation: { id: string }) => operation.id)).not.toContain('approve-b1');

    serviceState.up = true;
    const retried = await finished(await api.request('POST', '/api/operations/approve-b1/retry-faulted'));
    expect(retried).toMatchObject({ bulk: { action: 'retry', filter: { workflowId: 'payouts', status: 'faulted', faultTriggerId: 'approve-b1' } }, summary: { transitioned: 2 } });
    for (const id of ['q1', 'q2']) expect((await api.request('GET', `/api/instances/${id}`)).body).toMatchObject({ status: 'complete', stateId: 'approved' });

    // Nothing left faulted by it: a second one finds none.
    const second = await finished(await api.request('POST', '/api/operations/approve-b1/retry-faulted'));
    expect(second).toMatchObject({ candidates: 0, summary: { transitioned: 0 } });
    const none = await api.request('POST', '/api/operations/nope/retry-faulted');
    expect(none.status).toBe(404);
  });
});
