/**
 * Retrying a fault (issue 38, section 3): an action whose service was down faults the instance; once the
 * service is back, a retry applies the trigger that faulted again, under its own id, exactly once, to the
 * instance as the trigger first found it. Engine level, on the in-memory stores with a real HTTP service
 * on loopback.
 */
import { ConflictError, type WorkflowDefinitionInput } from '../../src/engine';
import type { Actor } from '../../src/engine/model';
import { localHttp } from '../outbound/support';
import { json, startServer, testEngine } from './support';

/** A service that is down (503) until `up` is set, counting the calls it got. */
async function flakyService() {
  const state = { up: false, calls: 0, decide: true };
  const server = await startServer((request, response) => {
    if (request.url.startsWith('/decide')) return json(response, 200, state.decide);
    state.calls++;
    if (!state.up) return json(response, 503, { error: 'down' });
    json(response, 200, { contextValuesToSetOrAdd: { approved: true } });
  });
  return { server, state };
}

/** `a` --Approve--> `b`: the transition counts its attempts in the context, then calls the service. */
function approvals(url: string, extra: { decideUrl?: string; timer?: boolean } = {}): WorkflowDefinitionInput {
  return {
    id: 'approvals',
    displayName: 'Approvals',
    initialStateId: 'a',
    states: {
      a: {
        transitions: [
          {
            id: 'approve',
            targetStateId: 'b',
            conditions: [{ type: 'triggerName', name: 'Approve' }, ...(extra.decideUrl ? [{ type: 'invokeExternalService', url: extra.decideUrl, method: 'POST', interests: [] }] : [])] as never,
            actions: [
              { type: 'setContext', expressions: { attempts: '$exists(context.attempts) ? context.attempts + 1 : 1' } },
              { type: 'invokeExternalService', url },
            ] as never,
          },
          ...(extra.timer ? [{ id: 'remind', targetStateId: 'b', timer: { after: 'PT1H' } }] : []),
        ],
      },
      b: { transitions: [{ id: 'close', targetStateId: 'c', conditions: [{ type: 'triggerName', name: 'Close' }] }] },
      c: {},
    },
  };
}

const alice: Actor = { id: 'alice', name: 'Alice', roles: ['Signalbox.Sender'], via: 'token' };
const operator: Actor = { id: 'olga', name: 'Olga', roles: ['Signalbox.Operator'], via: 'token' };

async function faultedInstance(extra: { decide?: boolean; timer?: boolean } = {}) {
  const service = await flakyService();
  const harness = testEngine({ http: await localHttp() });
  const { engine } = harness;
  await engine.createWorkflow(approvals(`${service.server.url}/approve`, { ...(extra.decide ? { decideUrl: `${service.server.url}/decide` } : {}), ...(extra.timer ? { timer: true } : {}) }));
  await engine.createInstance({ workflowId: 'approvals', instanceId: 'i1' });
  const first = await engine.applyTrigger('i1', { id: 't1', name: 'Approve', subjects: ['i1'], parameters: { note: 'ok' }, actor: alice });
  expect(first.outcome).toBe('faulted');
  return { ...harness, service };
}

describe('retrying a fault', () => {
  it('applies the faulted trigger again once the service is back: once, from the context the trigger found', async () => {
    const { engine, service } = await faultedInstance();
    try {
      const faulted = await engine.getInstance('i1');
      expect(faulted).toMatchObject({ status: 'faulted', stateId: 'a', context: { attempts: 1 }, fault: { triggerId: 't1' } });
      expect(faulted.faultedTrigger).toMatchObject({ trigger: { id: 't1', name: 'Approve', parameters: { note: 'ok' }, actor: alice }, stateId: 'a', status: 'waiting', context: {} });
      const callsWhileDown = service.state.calls;

      service.state.up = true;
      const retried = await engine.retryFault('i1', { actor: operator, operationId: 'op-retry' });
      expect(retried).toMatchObject({ instanceId: 'i1', outcome: 'transitioned', transitionId: 'approve', fromStateId: 'a', toStateId: 'b' });
      expect(service.state.calls).toBe(callsWhileDown + 1);
      const after = await engine.getInstance('i1');
      // The action's context change applied once: the retry started from the context before the trigger.
      expect(after).toMatchObject({ status: 'waiting', stateId: 'b', context: { attempts: 1, approved: true } });
      expect(after.fault).toBeUndefined();
      expect(after.faultedTrigger).toBeUndefined();
      const history = (await engine.getHistory('i1')).items;
      expect(history.map((entry) => entry.event)).toEqual(['created', 'faulted', 'transitioned']);
      // The entry is the trigger's (its id and sender), naming who retried it and the retry's operation.
      expect(history[2]).toMatchObject({ triggerId: 't1', transitionId: 'approve', actor: alice, retriedBy: operator, operationId: 'op-retry' });

      // Exactly once: a second retry is refused, the original's redelivery is a duplicate, and nothing calls again.
      await expect(engine.retryFault('i1')).rejects.toThrow(/is waiting, not faulted: only a faulted instance can be retried/);
      expect(await engine.applyTrigger('i1', { id: 't1', name: 'Approve', subjects: ['i1'], parameters: { note: 'ok' } })).toMatchObject({
        outcome: 'duplicate',
        applied: { outcome: 'transitioned', toStateId: 'b' },
      });
      expect(service.state.calls).toBe(callsWhileDown + 1);
      expect((await engine.getHistory('i1')).items).toHaveLength(3);
    } finally {
      await service.server.close();
    }
  });

  it('a retry while the service is still down faults again, and can be retried again', async () => {
    const { engine, service } = await faultedInstance();
    try {
      expect((await engine.retryFault('i1')).outcome).toBe('faulted');
      const again = await engine.getInstance('i1');
      expect(again).toMatchObject({ status: 'faulted', stateId: 'a', context: { attempts: 1 }, faultedTrigger: { trigger: { id: 't1' }, context: {} } });
      service.state.up = true;
      expect((await engine.retryFault('i1')).outcome).toBe('transitioned');
      expect(await engine.getInstance('i1')).toMatchObject({ stateId: 'b', context: { attempts: 1, approved: true } });
      expect((await engine.getHistory('i1')).items.map((entry) => entry.event)).toEqual(['created', 'faulted', 'faulted', 'transitioned']);
    } finally {
      await service.server.close();
    }
  });

  it('a retry whose trigger no longer takes its transition ends the fault where the trigger found it, its timers armed again', async () => {
    const { engine, service, delivery } = await faultedInstance({ decide: true, timer: true });
    try {
      expect((await engine.getInstance('i1')).timers).toEqual([]);
      const scheduled = delivery.timers.length;
      service.state.decide = false;
      expect(await engine.retryFault('i1')).toMatchObject({ outcome: 'noTransition', fromStateId: 'a' });
      const back = await engine.getInstance('i1');
      expect(back).toMatchObject({ status: 'waiting', stateId: 'a', context: {} });
      expect(back.timers).toEqual([{ transitionId: 'remind', dueAt: '2026-01-01T01:00:00.000Z' }]);
      // Handed to the scheduler again, under the retry's entry (a new timer id).
      expect(delivery.timers.slice(scheduled)).toMatchObject([{ instanceId: 'i1', transitionId: 'remind', stateEntry: 2 }]);
      const history = (await engine.getHistory('i1')).items;
      expect(history[2]).toMatchObject({ event: 'retried', triggerId: 't1', fromStateId: 'a', toStateId: 'a', status: 'waiting' });
      // The trigger was applied (it moved nothing): a late repeat is a duplicate, not a second chance.
      service.state.decide = true;
      service.state.up = true;
      expect(await engine.applyTrigger('i1', { id: 't1', name: 'Approve', subjects: ['i1'] })).toMatchObject({ outcome: 'duplicate', applied: { outcome: 'noTransition' } });
      expect((await engine.getInstance('i1')).stateId).toBe('a');
    } finally {
      await service.server.close();
    }
  });

  it('refuses, naming why, what cannot be retried: a waiting instance, a fault of its creation', async () => {
    const { engine } = testEngine();
    await engine.createWorkflow({
      id: 'strict',
      displayName: 'Strict',
      initialStateId: 'a',
      states: { a: { entryConditions: [{ type: 'expression', expression: '$exists(context.amount)' }], transitions: [{ id: 'go', targetStateId: 'b' }] }, b: {} },
    });
    await engine.createInstance({ workflowId: 'strict', instanceId: 'born-faulted' });
    await expect(engine.retryFault('born-faulted')).rejects.toBeInstanceOf(ConflictError);
    await expect(engine.retryFault('born-faulted')).rejects.toThrow(/faulted while being created or recovered, not while applying a trigger: there is no trigger to retry; recover/);
    await engine.createInstance({ workflowId: 'strict', instanceId: 'fine', context: { amount: 1 } });
    await expect(engine.retryFault('fine')).rejects.toThrow(/is waiting, not faulted/);
    await expect(engine.retryFault('nobody')).rejects.toMatchObject({ code: 'notFound' });
  });

  it('a recovery clears what a retry would re-apply', async () => {
    const { engine, service } = await faultedInstance();
    try {
      const recovered = await engine.recover('i1', 'a');
      expect(recovered.faultedTrigger).toBeUndefined();
      await expect(engine.retryFault('i1')).rejects.toThrow(/not faulted/);
    } finally {
      await service.server.close();
    }
  });

  it('a bulk retry re-applies the faults of one trigger only, each once', async () => {
    const { engine, service } = await faultedInstance();
    try {
      await engine.createInstance({ workflowId: 'approvals', instanceId: 'i2' });
      expect((await engine.applyTrigger('i2', { id: 't2', name: 'Approve', subjects: ['i2'] })).outcome).toBe('faulted');
      service.state.up = true;
      const bulk = await engine.migrationsAndBulkActions.parseBulk({ action: 'retry', filter: { workflowId: 'approvals', faultTriggerId: 't1' } });
      expect(bulk.filter).toMatchObject({ status: 'faulted', faultTriggerId: 't1' });
      expect(await engine.migrationsAndBulkActions.applyBulk('i1', bulk, { operationId: 'bulk-1' })).toMatchObject({ outcome: 'transitioned' });
      expect(await engine.migrationsAndBulkActions.applyBulk('i2', bulk, { operationId: 'bulk-1' })).toMatchObject({ outcome: 'skipped' });
      // The same operation offering i1 again (resumed after a crash) changes nothing and reports what its retry did.
      expect(await engine.migrationsAndBulkActions.applyBulk('i1', bulk, { operationId: 'bulk-1' })).toMatchObject({ outcome: 'transitioned', toStateId: 'b' });
      // Another operation finds nothing to retry.
      expect(await engine.migrationsAndBulkActions.applyBulk('i1', bulk, { operationId: 'bulk-2' })).toMatchObject({ outcome: 'skipped' });
      expect((await engine.getInstance('i2')).status).toBe('faulted');
      expect((await engine.getHistory('i1')).items).toHaveLength(3);
    } finally {
      await service.server.close();
    }
  });

  it("a child's notification that faulted its parent is applied again as itself, in its place", async () => {
    const service = await flakyService();
    try {
      const { engine } = testEngine({ http: await localHttp(), inProcess: true });
      await engine.createWorkflow({ id: 'kid', displayName: 'Kid', initialStateId: 'born', states: { born: {} } });
      await engine.createWorkflow({
        id: 'parent',
        displayName: 'Parent',
        initialStateId: 'raising',
        states: {
          raising: {
            entryActions: [{ type: 'startInstance', workflowId: 'kid', instanceId: 'kid-1' }] as never,
            transitions: [
              {
                id: 'grown',
                targetStateId: 'proud',
                conditions: [{ type: 'triggerName', name: 'ChildCompleted' }],
                actions: [{ type: 'invokeExternalService', url: `${service.server.url}/approve` }] as never,
              },
            ],
          },
          proud: {},
        },
      });
      await engine.createInstance({ workflowId: 'parent', instanceId: 'p1' });
      const faulted = await engine.getInstance('p1');
      expect(faulted).toMatchObject({ status: 'faulted', faultedTrigger: { trigger: { name: 'ChildCompleted', recipient: { instanceId: 'p1' } } } });
      service.state.up = true;
      expect(await engine.retryFault('p1')).toMatchObject({ outcome: 'transitioned', toStateId: 'proud' });
      const history = (await engine.getHistory('p1')).items;
      expect(history.at(-1)).toMatchObject({ event: 'transitioned', triggerId: faulted.fault!.triggerId });
    } finally {
      await service.server.close();
    }
  });

  it('a bulk retry refuses a filter for another status', async () => {
    const { engine } = testEngine();
    await engine.createWorkflow(approvals('http://127.0.0.1:1/x'));
    await expect(engine.migrationsAndBulkActions.parseBulk({ action: 'retry', filter: { workflowId: 'approvals', status: 'waiting' } })).rejects.toMatchObject({
      code: 'validation',
      issues: [{ path: 'filter.status' }],
    });
  });
});
