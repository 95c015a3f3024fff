/** Dry runs (issue 16): the real decision, nothing saved, no lease, no action performed. */
import type { WorkflowDefinitionInput } from '../../src/engine';
import { localHttp } from '../outbound/support';
import { json, startServer, testEngine } from './support';

function workflow(url: string): WorkflowDefinitionInput {
  return {
    id: 'order',
    displayName: 'Order',
    initialStateId: 'draft',
    states: {
      draft: {
        transitions: [
          { id: 'cancel', targetStateId: 'cancelled', conditions: [{ type: 'triggerName', name: 'Cancel' }] },
          {
            id: 'submit',
            targetStateId: 'submitted',
            conditions: [
              { type: 'triggerName', name: 'Submit' },
              { type: 'invokeExternalService', url: `${url}/may-submit`, method: 'GET' },
            ],
            actions: [
              { type: 'setContext', expressions: { submittedBy: 'trigger.parameters.by' } },
              { type: 'invokeExternalService', url: `${url}/notify`, contextItemsToInclude: ['submittedBy'] },
              { type: 'log', message: 'submitted by {{context.submittedBy}}' },
              { type: 'raiseTrigger', trigger: { name: 'Submitted', subjects: ['billing'] } },
            ],
          },
        ],
      },
      submitted: { transitions: [] },
      cancelled: { transitions: [] },
    },
  };
}

async function setUp() {
  const server = await startServer((request, response) => (request.url === '/may-submit' ? json(response, 200, true) : json(response, 200, { contextValuesToSetOrAdd: { notified: true } })));
  const test = testEngine({ http: await localHttp() });
  await test.engine.createWorkflow(workflow(server.url));
  await test.engine.createInstance({ workflowId: 'order', instanceId: 'o1', context: { total: 10 } });
  let leasesTaken = 0;
  const withLease = test.leases.withLease.bind(test.leases);
  test.leases.withLease = ((...args: Parameters<typeof withLease>) => {
    leasesTaken++;
    return withLease(...args);
  }) as typeof withLease;
  return { ...test, server, leasesTaken: () => leasesTaken };
}

describe('dry run', () => {
  it('answers what the trigger would do, writes nothing, takes no lease and performs no action', async () => {
    const { engine, instances, server, delivery, logger, leasesTaken } = await setUp();
    try {
      const before = await engine.getInstance('o1');
      const writes = instances.writes;
      const logged = logger.lines.length;

      const result = await engine.dryRunTrigger('o1', { id: 'dry-1', name: 'Submit', subjects: ['o1'], parameters: { by: 'ann' } });

      expect(result).toMatchObject({ instanceId: 'o1', outcome: 'transitioned', transitionId: 'submit', fromStateId: 'draft', toStateId: 'submitted' });
      // Conditions are evaluated for real, the external one included.
      expect(result.trace).toEqual([
        { path: 'states.draft.transitions[0].conditions[0]', type: 'triggerName', result: false },
        { path: 'states.draft.transitions[1].conditions[0]', type: 'triggerName', result: true },
        { path: 'states.draft.transitions[1].conditions[1]', type: 'invokeExternalService', result: true, detail: `GET ${server.url}/may-submit answered true` },
      ]);
      // setContext and templates applied to a copy; the external action's answer is not (it was not called).
      expect(result.contextAfter).toEqual({ total: 10, submittedBy: 'ann' });
      expect(result.actions.map((action) => action.type)).toEqual(['setContext', 'invokeExternalService', 'log', 'raiseTrigger']);
      expect(result.actions[1]).toMatchObject({ request: { method: 'POST', url: `${server.url}/notify`, body: expect.objectContaining({ context: { submittedBy: 'ann' } }) } });
      expect(result.actions[2]).toMatchObject({ log: { level: 'info', message: 'submitted by ann' } });
      expect(result.actions[3]).toMatchObject({ trigger: { name: 'Submitted', subjects: ['billing'] } });
      expect(result.raisedTriggers).toEqual([expect.objectContaining({ name: 'Submitted', subjects: ['billing'] })]);
      expect(result.events).toEqual([]);

      expect(server.requests.map((request) => request.url)).toEqual(['/may-submit']);
      expect(instances.writes).toBe(writes);
      expect(leasesTaken()).toBe(0);
      expect(delivery.calls).toBe(0);
      expect(logger.lines.slice(logged).filter((line) => line.message.includes('submitted by'))).toEqual([]);
      expect(await engine.getInstance('o1')).toEqual(before);
      // The trigger id was not used up: the real trigger with the same id still applies.
      expect((await engine.applyTrigger('o1', { id: 'dry-1', name: 'Submit', subjects: ['o1'], parameters: { by: 'ann' } })).outcome).toBe('transitioned');
      expect((await engine.getInstance('o1')).context).toEqual({ total: 10, submittedBy: 'ann', notified: true });
    } finally {
      await server.close();
    }
  });

  it('a trigger that would do nothing leaves the context as it is and lists no action', async () => {
    const { engine, server } = await setUp();
    try {
      const result = await engine.dryRunTrigger('o1', { id: 'dry-2', name: 'Ship', subjects: ['o1'] });
      expect(result).toMatchObject({ outcome: 'noTransition', contextAfter: { total: 10 }, actions: [], raisedTriggers: [] });
      expect(result.trace?.map((entry) => entry.result)).toEqual([false, false, 'skipped']);
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('a broadcast dry run decides for every candidate, and refuses an unknown instance', async () => {
    const { engine, server } = await setUp();
    try {
      await engine.createInstance({ workflowId: 'order', instanceId: 'o2' });
      const { instances, truncated } = await engine.dryRunPublish({ id: 'dry-3', name: 'Cancel', subjects: ['o1', 'o2'] });
      expect(truncated).toBe(false);
      expect(instances.map((result) => [result.instanceId, result.outcome, result.toStateId])).toEqual([
        ['o1', 'transitioned', 'cancelled'],
        ['o2', 'transitioned', 'cancelled'],
      ]);
      expect((await engine.getInstance('o2')).stateId).toBe('draft');
      await expect(engine.dryRunTrigger('nobody', { id: 'dry-4', name: 'Cancel', subjects: ['nobody'] })).rejects.toMatchObject({ name: 'NotFoundError' });
    } finally {
      await server.close();
    }
  });
});

describe('dry run of a trigger that would fault', () => {
  it('reports the fault and its trace, and lists no raised trigger (a fault drops them)', async () => {
    const { engine, instances } = testEngine();
    await engine.createWorkflow({
      id: 'breaks',
      displayName: 'Breaks',
      initialStateId: 'a',
      states: {
        a: {
          transitions: [
            {
              id: 'go',
              targetStateId: 'b',
              conditions: [{ type: 'triggerName', name: 'Go' }],
              actions: [
                { type: 'raiseTrigger', trigger: { name: 'Raised', subjects: ['x'] } },
                { type: 'setContext', expressions: { broken: '$error("no")' } },
              ],
            },
          ],
        },
        b: {},
      },
    });
    await engine.createInstance({ workflowId: 'breaks', instanceId: 'k1' });
    const writes = instances.writes;
    const result = await engine.dryRunTrigger('k1', { id: 'dry-k', name: 'Go', subjects: ['k1'] });
    expect(result).toMatchObject({ outcome: 'faulted', transitionId: 'go', error: expect.stringContaining('no'), raisedTriggers: [] });
    expect(result.actions.map((action) => action.type)).toEqual(['raiseTrigger', 'setContext']);
    expect(instances.writes).toBe(writes);
    expect((await engine.getInstance('k1')).status).toBe('waiting');
  });
});

describe('dry run of a workflow with subscriptions', () => {
  it('lists the lifecycle events the save would record for its subscribers, and records none', async () => {
    const { engine, instances } = testEngine();
    await engine.createWorkflow({
      id: 'quote',
      displayName: 'Quote',
      initialStateId: 'open',
      subscriptions: [
        { id: 'audit', url: 'https://audit.example/hook', contextItemsToInclude: ['amount'] },
        { id: 'closing', url: 'https://crm.example/hook', events: ['completed'] },
      ],
      states: {
        open: { transitions: [{ id: 'accept', targetStateId: 'accepted', conditions: [{ type: 'triggerName', name: 'Accept' }] }] },
        accepted: {},
      },
    });
    await engine.createInstance({ workflowId: 'quote', instanceId: 'q1', context: { amount: 5, secret: 's' } });
    const writes = instances.writes;

    const result = await engine.dryRunTrigger('q1', { id: 'dry-e', name: 'Accept', subjects: ['q1'] });

    expect(result.outcome).toBe('transitioned');
    expect(result.events.map((event) => [event.type, event.subscriptionIds])).toEqual([
      ['transitioned', ['audit']],
      ['completed', ['audit', 'closing']],
    ]);
    expect(result.events[0]!.data).toMatchObject({ instanceId: 'q1', previousStateId: 'open', stateId: 'accepted', context: { amount: 5 } });
    expect(result.events[0]!.data.context).not.toHaveProperty('secret');
    expect(instances.writes).toBe(writes);
    // A trigger that changes nothing publishes nothing.
    expect((await engine.dryRunTrigger('q1', { id: 'dry-f', name: 'Reject', subjects: ['q1'] })).events).toEqual([]);
  });
});
