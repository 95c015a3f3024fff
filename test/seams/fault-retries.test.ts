/**
 * Retries of faults (issue 38, section 3: the trigger that faulted an instance applied again, exactly once,
 * as a bulk `retry` of one instance or many) crossed with the seams: can a retry be applied twice after a
 * crash, reach a deleted instance's successor, or lose what the instance held (its timers, a trigger
 * raised by the retried transition) while it waits? Its rows are `bulk actions` rows (a retry is a bulk
 * action); in memory, with the service the action calls on loopback.
 */
import type { WorkflowDefinitionInput } from '../../src/engine';
import type { Actor } from '../../src/engine/model';
import { localHttp } from '../outbound/support';
import { json, startServer, testEngine } from '../engine/support';

const alice: Actor = { id: 'alice', name: 'Alice', roles: ['Signalbox.Sender'], via: 'token' };
const olga: Actor = { id: 'olga', name: 'Olga', roles: ['Signalbox.Operator'], via: 'token' };

/** `open` --Ship--> `shipped`: calls the carrier, then raises `Shipped`; `open` also has a reminder timer. */
function shipments(url: string): WorkflowDefinitionInput {
  return {
    id: 'shipments',
    displayName: 'Shipments',
    initialStateId: 'open',
    states: {
      open: {
        transitions: [
          {
            id: 'ship',
            targetStateId: 'shipped',
            conditions: [{ type: 'triggerName', name: 'Ship' }],
            actions: [
              { type: 'invokeExternalService', url },
              { type: 'raiseTrigger', trigger: { name: 'Shipped', subjects: ['ledger'] } },
            ],
          },
          { id: 'remind', targetStateId: 'open', timer: { after: 'P1D' } },
        ],
      },
      shipped: {},
    },
  };
}

async function setUp() {
  const carrier = { up: false, calls: 0 };
  const server = await startServer((_request, response) => {
    carrier.calls++;
    json(response, carrier.up ? 200 : 503, {});
  });
  const harness = testEngine({ http: await localHttp() });
  await harness.engine.createWorkflow(shipments(`${server.url}/ship`));
  const fault = async (instanceId: string, triggerId: string) => {
    await harness.engine.createInstance({ workflowId: 'shipments', instanceId });
    expect((await harness.engine.applyTrigger(instanceId, { id: triggerId, name: 'Ship', subjects: [instanceId], actor: alice })).outcome).toBe('faulted');
  };
  return { ...harness, carrier, server, fault };
}

const retryOf = (engine: ReturnType<typeof testEngine>['engine'], faultTriggerId?: string) =>
  engine.migrationsAndBulkActions.parseBulk({ action: 'retry', filter: { workflowId: 'shipments', ...(faultTriggerId ? { faultTriggerId } : {}) } });

it('applied once × bulk actions (retry): run again after a crash that lost its result, the retry reports what it did, applying the trigger and raising its trigger once', async () => {
  const { engine, carrier, server, fault, delivery } = await setUp();
  try {
    await fault('s1', 'ship-1');
    carrier.up = true;
    const bulk = { ...(await retryOf(engine)), actor: olga };
    expect(await engine.migrationsAndBulkActions.applyBulk('s1', bulk, { operationId: 'retry-op' })).toMatchObject({ outcome: 'transitioned' });
    const callsAfterFirst = carrier.calls;
    // The operation resumed after a crash offers s1 again; a client sends the original again; another retry comes.
    expect(await engine.migrationsAndBulkActions.applyBulk('s1', bulk, { operationId: 'retry-op' })).toMatchObject({ outcome: 'transitioned', toStateId: 'shipped' });
    expect(await engine.applyTrigger('s1', { id: 'ship-1', name: 'Ship', subjects: ['s1'] })).toMatchObject({ outcome: 'duplicate', applied: { outcome: 'transitioned' } });
    await expect(engine.retryFault('s1')).rejects.toThrow(/not faulted/);
    expect(carrier.calls).toBe(callsAfterFirst);
    expect(delivery.delivered.filter((trigger) => trigger.name === 'Shipped')).toHaveLength(1);
    expect((await engine.getHistory('s1')).items.map((entry) => entry.event)).toEqual(['created', 'faulted', 'transitioned']);
  } finally {
    await server.close();
  }
});

it('crash resumption × bulk actions (retry): a retry whose save failed leaves the fault as it was, and the next retry applies the trigger once', async () => {
  const { engine, carrier, server, fault, instances } = await setUp();
  try {
    await fault('s1', 'ship-1');
    carrier.up = true;
    instances.beforeSave = async () => {
      throw new Error('storage went away');
    };
    await expect(engine.retryFault('s1')).rejects.toThrow(/storage went away/);
    instances.beforeSave = undefined;
    expect(await engine.getInstance('s1')).toMatchObject({ status: 'faulted', faultedTrigger: { trigger: { id: 'ship-1' } } });
    expect((await engine.retryFault('s1')).outcome).toBe('transitioned');
    expect((await engine.getHistory('s1')).items.map((entry) => entry.event)).toEqual(['created', 'faulted', 'transitioned']);
  } finally {
    await server.close();
  }
});

it("incarnations × bulk actions (retry), deletion, re-creation: a retry of a deleted instance's fault never reaches the instance created again with its id", async () => {
  const { engine, carrier, server, fault } = await setUp();
  try {
    await fault('s1', 'ship-1');
    const bulk = await retryOf(engine, 'ship-1');
    await engine.deleteInstance('s1', { force: true });
    await engine.createInstance({ workflowId: 'shipments', instanceId: 's1' });
    carrier.up = true;
    // The bulk retry of the old fault, its turn coming now, and a retry asked of the new instance.
    expect(await engine.migrationsAndBulkActions.applyBulk('s1', bulk, { operationId: 'late' })).toMatchObject({ outcome: 'skipped' });
    await expect(engine.retryFault('s1')).rejects.toThrow(/is waiting, not faulted/);
    expect(await engine.getInstance('s1')).toMatchObject({ status: 'waiting', stateId: 'open' });
    expect((await engine.getHistory('s1')).items.map((entry) => entry.event)).toEqual(['created']);
  } finally {
    await server.close();
  }
});

it('crash resumption × bulk actions (retry), timers: a retry that moved nothing hands the timers the fault disarmed to the scheduler again, none lost', async () => {
  const { engine, server, delivery, instances } = await setUp();
  try {
    await engine.createInstance({ workflowId: 'shipments', instanceId: 's1' });
    const armed = (await engine.getInstance('s1')).timers;
    // Faulted by a trigger no transition of `open` takes when it is retried (as after a fix to the data a
    // condition reads): written directly, as a fault of it would have recorded it, with the timers it disarmed.
    const { etag: _etag, ...stored } = (await instances.get('s1'))!;
    const faulted = { ...stored, status: 'faulted' as const, timers: [], fault: { message: 'carrier down', triggerId: 'other-1', at: stored.updatedAt } };
    await instances.save(
      {
        ...faulted,
        faultedTrigger: { trigger: { id: 'other-1', name: 'Other', subjects: ['s1'] }, workflowVersion: 1, stateId: 'open', status: 'waiting', stateEntry: stored.stateEntry!, timers: stored.timers! },
      },
      {},
      { ifMatch: (await instances.get('s1'))!.etag },
    );
    const scheduled = delivery.timers.length;
    expect(await engine.retryFault('s1')).toMatchObject({ outcome: 'noTransition' });
    expect((await engine.getInstance('s1')).timers).toEqual(armed);
    expect(delivery.timers.slice(scheduled)).toMatchObject([{ instanceId: 's1', transitionId: 'remind' }]);
  } finally {
    await server.close();
  }
});

it('actor × bulk actions (retry): the retried trigger keeps its sender, the entry names who retried it', async () => {
  const { engine, carrier, server, fault, delivery } = await setUp();
  try {
    await fault('s1', 'ship-1');
    carrier.up = true;
    await engine.migrationsAndBulkActions.applyBulk('s1', { ...(await retryOf(engine)), actor: olga }, { operationId: 'retry-op' });
    const entry = (await engine.getHistory('s1')).items.at(-1);
    expect(entry).toMatchObject({ triggerId: 'ship-1', actor: alice, retriedBy: olga, operationId: 'retry-op' });
    // Its follow-up work is the sender's, through the system.
    expect(delivery.delivered.find((trigger) => trigger.name === 'Shipped')?.actor).toMatchObject({ via: 'system', cause: { id: 'alice' } });
  } finally {
    await server.close();
  }
});
