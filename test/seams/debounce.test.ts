/**
 * Debounced triggers (`flow.debounce`: a burst of triggers of one name held back on the instance and
 * applied once when it goes quiet: docs/guides/flow-control.md) crossed with every seam: the burst is
 * follow-up work of its own kind, carried by a `timer` outbox row and a due-timer row, applying the
 * burst's latest trigger under a derived id (`debounce:h.<hash of instance, incarnation, due time, latest
 * trigger, name>`). Can it loop, be applied twice after a crash, reach a deleted instance's successor, or
 * be lost while the instance is suspended?
 *
 * In memory, on the manual clock (the engine's in-process timers fire as it is advanced).
 */
import { Engine, MAX_CAUSAL_DEPTH, TriggerOutcome, debounceTimersOf, type Trigger, type WorkflowDefinitionInput } from '../../src/engine';
import type { Actor } from '../../src/engine/model';
import { InMemoryDueTimerIndex, InMemorySearchIndex, ManualClock, createInMemoryPorts } from '../../src/testing';
import { recordingLogger } from '../engine/support';

const PERIOD = 5000;

/** `Update` sets `context.last` and counts; `Echo` debounced too, raising itself again; `Close` ends it. */
function profile(version = 1): WorkflowDefinitionInput {
  return {
    id: 'profile',
    displayName: `Profile v${version}`,
    initialStateId: 'open',
    indexes: [{ name: 'last', type: 'string', expression: 'context.last.name' }],
    subscriptions: [{ id: 'hook', url: 'https://hook.example/' }],
    flow: {
      debounce: [
        { trigger: 'Update', periodMs: PERIOD },
        { trigger: 'Echo', periodMs: PERIOD },
      ],
    },
    states: {
      open: {
        transitions: [
          {
            id: 'update',
            targetStateId: 'open',
            conditions: [{ type: 'triggerName', name: 'Update' }],
            actions: [{ type: 'setContext', expressions: { last: 'trigger.parameters', applied: '($exists(context.applied) ? context.applied : 0) + 1' } }],
          },
          {
            id: 'echo',
            targetStateId: 'open',
            conditions: [{ type: 'triggerName', name: 'Echo' }],
            actions: [{ type: 'raiseTrigger', trigger: { name: 'Echo', subjects: ['{{instance.id}}'] } }],
          },
          { id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] },
        ],
      },
      closed: {},
    },
  };
}

function setup() {
  const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex(), search: new InMemorySearchIndex() };
  const clock = new ManualClock('2026-11-26T10:00:00.000Z');
  let n = 0;
  const start = () => new Engine(ports, { clock, logger: recordingLogger(), newId: () => `gen-${++n}`, events: { http: { send: async () => ({ status: 204, body: undefined }) } } });
  const engine = start();
  const update = (id: string, parameters: Trigger['parameters'] = {}, extra: Partial<Trigger> = {}, target: Engine = engine) =>
    target.applyTrigger('p1', { id, name: 'Update', subjects: ['p1'], parameters, ...extra });
  return { ports, clock, engine, start, update };
}

async function dueRows(ports: { dueTimers: InMemoryDueTimerIndex }) {
  const rows = [];
  for await (const row of ports.dueTimers.listDue(new Date('2100-01-01T00:00:00Z'))) rows.push(row);
  return rows;
}

describe('debounced triggers across the seams', () => {
  it('causal depth × debounced triggers: a burst whose transition raises its own name again loops no further than the causal depth limit', async () => {
    const { engine, clock } = setup();
    await engine.createWorkflow(profile());
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    expect(await engine.applyTrigger('p1', { id: 'echo-1', name: 'Echo', subjects: ['p1'] })).toMatchObject({ outcome: TriggerOutcome.debounced });
    for (let round = 0; round <= MAX_CAUSAL_DEPTH + 1; round++) await clock.advanceBy(PERIOD);
    const looped = await engine.getInstance('p1');
    expect(looped.status).toBe('faulted');
    expect(looped.fault?.message).toContain(`${MAX_CAUSAL_DEPTH}`);
    // It stopped: nothing further is scheduled.
    const faultedAt = looped.historyLength;
    await clock.advanceBy(10 * PERIOD);
    expect((await engine.getInstance('p1')).historyLength).toBe(faultedAt);
  });

  it('applied once × debounced triggers: a held trigger delivered again is a duplicate, and the burst applied once even when its timer fires twice (a crash after the save)', async () => {
    const { engine, clock, update } = setup();
    await engine.createWorkflow(profile());
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    await update('u1', { name: 'a' });
    await update('u2', { name: 'b' });
    expect(await update('u1', { name: 'a' })).toMatchObject({ outcome: TriggerOutcome.duplicate, applied: { outcome: 'debounced' } });
    const held = await engine.getInstance('p1');
    const [timer] = debounceTimersOf(held);
    await clock.advanceBy(PERIOD);
    expect((await engine.getInstance('p1')).context).toEqual({ last: { name: 'b' }, applied: 1 });
    // The same timer again, as a redelivery after a crash would bring it: the burst is gone, nothing applies.
    expect(await engine.fireTimer(timer!)).toMatchObject({ outcome: TriggerOutcome.notInterested });
    expect((await engine.getInstance('p1')).context).toEqual({ last: { name: 'b' }, applied: 1 });
  });

  it('applied once × debounced triggers (suspended, then resumed): a burst due while suspended is not lost, and applies once after the resume', async () => {
    const { engine, clock, update } = setup();
    await engine.createWorkflow(profile());
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    await update('u1', { name: 'a' });
    const before = await engine.getInstance('p1');
    await engine.suspend('p1');
    await clock.advanceBy(3 * PERIOD); // fired while suspended: notActive, still held
    expect((await engine.getInstance('p1')).debounces).toEqual(before.debounces);
    await engine.resume('p1');
    await clock.advanceBy(1);
    expect((await engine.getInstance('p1')).context).toEqual({ last: { name: 'a' }, applied: 1 });
    // The schedule spent while suspended is stale.
    expect(await engine.fireTimer(debounceTimersOf(before)[0]!)).toMatchObject({ outcome: TriggerOutcome.notInterested });
  });

  it("incarnations × debounced triggers, deletion and re-creation: a deleted instance's burst never reaches the instance created again with its id", async () => {
    const { engine, clock, ports, update } = setup();
    await engine.createWorkflow(profile());
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    await update('u1', { name: 'old' });
    const old = await engine.getInstance('p1');
    const [oldTimer] = debounceTimersOf(old);
    await engine.deleteInstance('p1', { force: true });
    expect(await dueRows(ports)).toEqual([]);
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    expect(await engine.fireTimer(oldTimer!)).toMatchObject({ outcome: TriggerOutcome.notInterested });
    await clock.advanceBy(2 * PERIOD);
    expect((await engine.getInstance('p1')).context).toEqual({});
    // The new instance's burst of the same trigger id has another timer.
    await update('u1', { name: 'new' });
    expect(debounceTimersOf(await engine.getInstance('p1'))[0]!.timerId).not.toBe(oldTimer!.timerId);
  });

  it('incarnations × debounced triggers and migrations: a migrated instance keeps its burst, which applies on the new version', async () => {
    const { engine, clock, update } = setup();
    const v1 = await engine.createWorkflow(profile(1));
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    await update('u1', { name: 'a' });
    await engine.addWorkflowVersion(profile(2), { ifMatch: v1.etag });
    expect((await engine.migrationsAndBulkActions.migrate('p1', { workflowId: 'profile', fromVersion: 1, toVersion: 2, stateMap: {} })).outcome).toBe('migrated');
    await clock.advanceBy(PERIOD);
    expect(await engine.getInstance('p1')).toMatchObject({ workflowVersion: 2, context: { last: { name: 'a' }, applied: 1 } });
  });

  it('event order × debounced triggers: holding a trigger emits nothing; the change the burst makes emits its event after the earlier ones', async () => {
    const { engine, clock, update } = setup();
    await engine.createWorkflow(profile());
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    await update('u1');
    await update('u2');
    const types = async () => (await engine.listEvents('p1', { maxPageSize: 100 })).items.map((event) => `${event.sequence}:${event.type}`);
    expect(await types()).toEqual(['0:created']);
    await clock.advanceBy(PERIOD);
    expect(await types()).toEqual(['0:created', '1:transitioned']);
  });

  it('due-timer rows × debounced triggers: one row per burst from the save on, moved with each trigger of the burst, gone once applied', async () => {
    const { engine, clock, ports, update } = setup();
    await engine.createWorkflow(profile());
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    await update('u1');
    expect((await dueRows(ports)).map((row) => [row.debounce, row.dueAt])).toEqual([[{ triggerName: 'Update', triggerId: 'u1' }, '2026-11-26T10:00:05.000Z']]);
    await clock.advanceBy(1000);
    await update('u2');
    expect((await dueRows(ports)).map((row) => [row.debounce, row.dueAt])).toEqual([[{ triggerName: 'Update', triggerId: 'u2' }, '2026-11-26T10:00:06.000Z']]);
    await clock.advanceBy(PERIOD);
    expect(await dueRows(ports)).toEqual([]);
  });

  it('crash resumption × debounced triggers: a burst held just before the crash is applied once after the restart', async () => {
    const { engine, clock, ports, start, update } = setup();
    await engine.createWorkflow(profile());
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    const stopped = async (): Promise<void> => {
      throw new Error('the process stopped');
    };
    const crashing = engine.withDelivery({ trigger: stopped, timer: stopped, startInstance: stopped, cancelChildren: stopped });
    expect(await update('u1', { name: 'a' }, {}, crashing)).toMatchObject({ outcome: TriggerOutcome.debounced });
    expect(await dueRows(ports)).toHaveLength(1); // written before the save
    expect(clock.pendingTimers).toBe(0); // the in-process arm was lost

    const restarted = start();
    await restarted.relayLeftovers();
    await restarted.relayLeftovers();
    await clock.advanceBy(PERIOD);
    expect((await restarted.getInstance('p1')).context).toEqual({ last: { name: 'a' }, applied: 1 });
    expect(await dueRows(ports)).toEqual([]);
  });

  it('actor × debounced triggers: the burst is applied for the sender of its latest trigger', async () => {
    const { engine, clock, update } = setup();
    const alice: Actor = { id: 'alice', name: 'Alice', roles: ['Signalbox.Sender'], via: 'token' };
    const bob: Actor = { id: 'bob', name: 'Bob', roles: ['Signalbox.Sender'], via: 'token' };
    await engine.createWorkflow(profile());
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    await update('u1', {}, { actor: alice });
    await update('u2', {}, { actor: bob });
    await clock.advanceBy(PERIOD);
    const entries = (await engine.getHistory('p1')).items.map((entry) => [entry.transitionId ?? entry.event, entry.actor?.id]);
    expect(entries).toEqual([
      ['created', undefined],
      ['update', 'bob'],
    ]);
  });

  it('search rows × debounced triggers: holding a trigger writes no rows; the burst, applied, indexes what it changed', async () => {
    const { engine, clock, ports, update } = setup();
    await engine.createWorkflow(profile());
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    const writes = ports.search.writes;
    await update('u1', { name: 'ann' });
    expect(ports.search.writes).toBe(writes);
    await clock.advanceBy(PERIOD);
    expect((await engine.searchInstances({ workflowId: 'profile', filter: "last = 'ann'" })).items.map((instance) => instance.id)).toEqual(['p1']);
  });
});
