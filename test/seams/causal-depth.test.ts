/**
 * Seams: the causal budget (src/engine/decide/causal-budget.ts: one causal depth for all follow-up work, and the
 * bound on self-caused changes per minute) crossed with each kind of follow-up work. In-memory engine: the
 * behaviour is the engine's. The local server's and the durable path's rows are in
 * test/host/hostile-workflows.test.ts and test/functions/timer-orchestrator.test.ts.
 */
import {
  Engine,
  MAX_CAUSAL_BUDGET,
  MAX_CAUSAL_DEPTH,
  MAX_SELF_CAUSED_CHANGES_PER_MINUTE,
  type DueTimer,
  type ExternalRequest,
  type ExternalResponse,
  type Trigger,
  type WorkflowDefinitionInput,
} from '../../src/engine';
import { ManualClock, createInMemoryPorts } from '../../src/testing';
import { recordingLogger, testEngine } from '../engine/support';

const spinner: WorkflowDefinitionInput = {
  id: 'spinner',
  displayName: 'Spinner',
  initialStateId: 'spinning',
  subscriptions: [{ id: 'audit', url: 'https://audit.example/hook', events: ['faulted'] }],
  states: {
    spinning: {
      transitions: [
        { id: 'again', targetStateId: 'spinning', conditions: [{ type: 'triggerName', name: 'Spin' }], actions: [{ type: 'raiseTrigger', trigger: { name: 'Spin', subjects: ['{{instance.id}}'] } }] },
      ],
    },
  },
};

/** A PT0S timer loop (and a way out), in version `version` of workflow `id`. */
function ticker(after = 'PT0S', id = 'ticker'): WorkflowDefinitionInput {
  return {
    id,
    displayName: 'Ticker',
    initialStateId: 'tick',
    states: {
      tick: {
        transitions: [
          { id: 'again', targetStateId: 'tick', timer: { after }, actions: [{ type: 'setContext', values: { ticked: true } }] },
          { id: 'rest', targetStateId: 'resting', conditions: [{ type: 'triggerName', name: 'Rest' }] },
        ],
      },
      resting: { transitions: [{ id: 'wake', targetStateId: 'tick', conditions: [{ type: 'triggerName', name: 'Wake' }] }] },
    },
  };
}

/** Delivers the raised triggers recorded by `delivery` to their subject, as a host would, at most `cap`. */
async function pumpTriggers(engine: Engine, delivered: Trigger[], cap = 200): Promise<Trigger[]> {
  const applied: Trigger[] = [];
  while (delivered.length > applied.length && applied.length < cap) {
    const trigger = delivered[applied.length]!;
    applied.push(trigger);
    await engine.applyTrigger(trigger.subjects[0]!, trigger);
  }
  return applied;
}

async function pumpTimers(engine: Engine, timers: DueTimer[], cap = 200): Promise<DueTimer[]> {
  const fired: DueTimer[] = [];
  while (timers.length > 0 && fired.length < cap) {
    const timer = timers.shift()!;
    fired.push(timer);
    await engine.fireTimer(timer);
  }
  return fired;
}

describe('causal depth × every kind of follow-up work', () => {
  it('causal depth × raised triggers: each raise is one deeper, carried on the raised trigger; the change past the limit faults', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(spinner);
    await engine.createInstance({ workflowId: 'spinner', instanceId: 's1' });
    await engine.applyTrigger('s1', { id: 'go', name: 'Spin', subjects: ['s1'] });
    const applied = await pumpTriggers(engine, delivery.delivered);
    expect(applied.map((trigger) => trigger.causalDepth)).toEqual(Array.from({ length: MAX_CAUSAL_DEPTH }, (_, index) => index + 1));
    expect(applied.every((trigger) => trigger.raisedBy === 's1')).toBe(true);
    expect(await engine.getInstance('s1')).toMatchObject({ status: 'faulted', fault: { message: expect.stringContaining('raising trigger "Spin"') } });
  });

  it('causal depth × timers: a timer due at once continues the chain; one due later starts a chain of its own', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(ticker('PT0S'));
    await engine.createWorkflow(ticker('PT1H', 'hourly'));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'now' });
    const fired = await pumpTimers(engine, delivery.timers);
    expect(fired.map((timer) => timer.causalDepth)).toEqual(Array.from({ length: MAX_CAUSAL_DEPTH }, (_, index) => index + 1));
    expect((await engine.getInstance('now')).status).toBe('faulted');

    // An hourly loop is paced by its wait: 3 x MAX turns, every timer at depth 0, never faulted.
    await engine.createInstance({ workflowId: 'hourly', instanceId: 'later' });
    const hourly = await pumpTimers(engine, delivery.timers, 3 * MAX_CAUSAL_DEPTH);
    expect(hourly).toHaveLength(3 * MAX_CAUSAL_DEPTH);
    expect(hourly.every((timer) => timer.causalDepth === undefined)).toBe(true);
    expect((await engine.getInstance('later')).status).toBe('waiting');
  });

  it("causal depth × children: a child's creation is one deeper than its parent's change, and its notification one deeper again", async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow({ id: 'leaf', displayName: 'Leaf', initialStateId: 'done', states: { done: {} } });
    await engine.createWorkflow({
      id: 'tree',
      displayName: 'Tree',
      initialStateId: 'idle',
      states: {
        idle: {
          transitions: [{ id: 'grow', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'Grow' }], actions: [{ type: 'startInstance', workflowId: 'leaf', instanceId: 'leaf-1' }] }],
        },
        waiting: { transitions: [{ id: 'heard', targetStateId: 'idle', conditions: [{ type: 'triggerName', name: 'ChildCompleted' }] }] },
      },
    });
    await engine.createInstance({ workflowId: 'tree', instanceId: 'root' });
    await engine.applyTrigger('root', { id: 'grow-1', name: 'Grow', subjects: ['root'] });
    // The client's trigger is depth 0; the child's creation 1; its ChildCompleted to the parent 2.
    expect(delivery.delivered).toEqual([expect.objectContaining({ name: 'ChildCompleted', subjects: ['root'], causalDepth: 2 })]);
    expect(delivery.delivered[0]!.raisedBy).toBeUndefined(); // a child's notification is not the parent acting on itself
  });

  it('causal depth × children: a notification held while its parent is suspended keeps its depth when released, and what it causes is one deeper', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow({ id: 'leaf', displayName: 'Leaf', initialStateId: 'done', states: { done: {} } });
    await engine.createWorkflow({
      id: 'tree',
      displayName: 'Tree',
      initialStateId: 'idle',
      states: {
        idle: {
          transitions: [{ id: 'grow', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'Grow' }], actions: [{ type: 'startInstance', workflowId: 'leaf', instanceId: 'leaf-1' }] }],
        },
        waiting: {
          transitions: [
            {
              id: 'heard',
              targetStateId: 'idle',
              conditions: [{ type: 'triggerName', name: 'ChildCompleted' }],
              actions: [{ type: 'raiseTrigger', trigger: { name: 'Echo', subjects: ['{{instance.id}}'] } }],
            },
          ],
        },
      },
    } as WorkflowDefinitionInput);
    await engine.createInstance({ workflowId: 'tree', instanceId: 'root' });
    await engine.applyTrigger('root', { id: 'grow-1', name: 'Grow', subjects: ['root'] });
    const notice = delivery.delivered.find((raised) => raised.name === 'ChildCompleted')!;
    expect(notice.causalDepth).toBe(2);
    await engine.suspend('root');
    expect((await engine.applyTrigger('root', notice)).outcome).toBe('notActive');
    expect((await engine.getInstance('root')).heldTriggers).toEqual([expect.objectContaining({ id: notice.id, causalDepth: 2 })]);

    await engine.resume('root');
    const release = delivery.delivered.find((raised) => raised.recipient?.releases === notice.id)!;
    expect(release.causalDepth).toBe(2);
    expect((await engine.applyTrigger('root', release)).outcome).toBe('transitioned');
    expect(delivery.delivered.find((raised) => raised.name === 'Echo')).toMatchObject({ causalDepth: 3 });
  });

  it('causal depth × events: the fault that stops a loop is an ordinary fault, recorded once as a `faulted` event', async () => {
    const sent: ExternalRequest[] = [];
    const http = { send: async (request: ExternalRequest): Promise<ExternalResponse> => (sent.push(request), { status: 204, body: undefined }) };
    const { engine, delivery } = testEngine({ events: { http, policy: { maxAttempts: 2, firstRetryDelayInMs: 1, maxRetryDelayInMs: 1 }, sourcePrefix: '/seams' } });
    await engine.createWorkflow(spinner);
    await engine.createInstance({ workflowId: 'spinner', instanceId: 'e1' });
    await engine.applyTrigger('e1', { id: 'go', name: 'Spin', subjects: ['e1'] });
    await pumpTriggers(engine, delivery.delivered);
    await engine.eventDeliveriesIdle();
    const events = (await engine.listEvents('e1')).items;
    expect(events.map((event) => event.type)).toEqual(['faulted']);
    expect(String((events[0]!.data as { fault?: { message: string } }).fault?.message)).toContain('causal depth limit');
    expect(sent).toHaveLength(1);
  });

  it('causal depth × migrations: a migration is outside input: it ends the self-caused count', async () => {
    const clock = new ManualClock('2026-11-20T16:00:00.000Z');
    const engine = new Engine(createInMemoryPorts(), { clock, logger: recordingLogger() });
    await engine.createWorkflow(ticker('PT0.1S'));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'm1' });
    await clock.advanceBy(1_000); // ten self-caused turns
    expect((await engine.getInstance('m1')).selfCausedChanges?.count).toBe(10);
    const latest = await engine.getWorkflow('ticker');
    await engine.addWorkflowVersion(ticker('PT0S'), { ifMatch: latest.etag });
    const result = await engine.migrationsAndBulkActions.migrate('m1', { workflowId: 'ticker', fromVersion: 1, toVersion: 2, stateMap: {} });
    expect(result.outcome).toBe('migrated');
    const migrated = await engine.getInstance('m1');
    expect(migrated.selfCausedChanges).toBeUndefined();
  });

  it('causal depth × bulk actions: a bulk recover of a loop-faulted instance is outside input: the self-caused count starts again', async () => {
    const clock = new ManualClock('2026-11-20T16:00:00.000Z');
    const engine = new Engine(createInMemoryPorts(), { clock, logger: recordingLogger() });
    await engine.createWorkflow(ticker('PT0.1S'));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'b1' });
    await clock.advanceBy(30_000);
    const faulted = await engine.getInstance('b1');
    expect(faulted.fault?.message).toContain(`${MAX_SELF_CAUSED_CHANGES_PER_MINUTE} times within a minute`);
    const result = await engine.migrationsAndBulkActions.applyBulk('b1', { action: 'recover', filter: { workflowId: 'ticker' }, stateId: 'resting' });
    expect(result.outcome).toBe('recovered');
    expect((await engine.getInstance('b1')).selfCausedChanges).toBeUndefined();
    // Woken from outside, it runs a full window again before the bound stops it.
    await engine.applyTrigger('b1', { id: 'wake-1', name: 'Wake', subjects: ['b1'] });
    await clock.advanceBy(5_000);
    expect(await engine.getInstance('b1')).toMatchObject({ status: 'waiting', selfCausedChanges: { count: 50 } });
  });

  it("causal depth × deletion: a deleted instance's pending follow-up work finds nothing and starts nothing", async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(ticker('PT0S'));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'd1' });
    await pumpTimers(engine, delivery.timers, 5);
    await engine.deleteInstance('d1', { force: true });
    const pending = delivery.timers.splice(0);
    expect(pending).toHaveLength(1);
    expect(await engine.fireTimer(pending[0]!)).toMatchObject({ outcome: 'notFound' });
    expect(delivery.timers).toHaveLength(0);
  });

  it('causal depth × re-creation: an instance created again under the same id starts from depth 0 and an empty count', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(ticker('PT0S'));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'r1' });
    await pumpTimers(engine, delivery.timers);
    expect((await engine.getInstance('r1')).status).toBe('faulted');
    await engine.deleteInstance('r1');
    delivery.timers.splice(0);

    const again = await engine.createInstance({ workflowId: 'ticker', instanceId: 'r1' });
    expect(again.selfCausedChanges).toBeUndefined();
    expect(delivery.timers).toEqual([expect.objectContaining({ instanceId: 'r1', causalDepth: 1 })]);
    // The whole budget again: MAX - 1 turns before the fault, as the first time.
    await pumpTimers(engine, delivery.timers);
    expect((await engine.getHistory('r1', { maxPageSize: 1000 })).items).toHaveLength(MAX_CAUSAL_DEPTH + 1);
  });
});

describe('causal budget × every kind of follow-up work', () => {
  it('causal depth × automatic transitions: a chain is one change: no deeper, no share of the budget, no follow-up work of its own, one self-caused change', async () => {
    const relay: WorkflowDefinitionInput = {
      id: 'relay',
      displayName: 'Relay',
      initialStateId: 'idle',
      states: {
        idle: { transitions: [{ id: 'go', targetStateId: 'hop1', conditions: [{ type: 'triggerName', name: 'Go' }] }] },
        hop1: { transitions: [{ id: 'to-hop2', targetStateId: 'hop2', automatic: true }] },
        hop2: { transitions: [{ id: 'to-hop3', targetStateId: 'hop3', automatic: true, actions: [{ type: 'raiseTrigger', trigger: { name: 'Echo', subjects: ['{{instance.id}}'] } }] }] },
        hop3: { transitions: [{ id: 'echo', targetStateId: 'echoed', conditions: [{ type: 'triggerName', name: 'Echo' }] }] },
        echoed: { transitions: [{ id: 'rest', targetStateId: 'resting', automatic: true }] },
        resting: { transitions: [{ id: 'go-again', targetStateId: 'hop1', conditions: [{ type: 'triggerName', name: 'Go' }] }] },
      },
    };
    const { engine, delivery, outbox } = testEngine();
    await engine.createWorkflow(relay);
    await engine.createInstance({ workflowId: 'relay', instanceId: 'r1' });
    expect(await engine.applyTrigger('r1', { id: 'go-1', name: 'Go', subjects: ['r1'] })).toMatchObject({ outcome: 'transitioned', toStateId: 'hop3' });
    // Three steps in one change; what the last one raised is one deeper than the client's trigger, with the whole budget less this one change.
    expect(delivery.delivered).toEqual([expect.objectContaining({ name: 'Echo', causalDepth: 1, causalBudget: MAX_CAUSAL_BUDGET - 1, raisedBy: 'r1' })]);
    expect(await outbox.listOutbox('r1')).toEqual([]);
    const applied = await pumpTriggers(engine, delivery.delivered);
    expect(applied).toHaveLength(1);
    // The raised Echo's change took an automatic transition too: one self-caused change, nothing raised.
    expect(await engine.getInstance('r1')).toMatchObject({ stateId: 'resting', selfCausedChanges: { count: 1 } });
    expect(delivery.delivered).toHaveLength(1);
    expect((await engine.getHistory('r1')).items.map((entry) => entry.transitionId)).toEqual([null, 'go', 'to-hop2', 'to-hop3', 'echo', 'rest']);
  });

  it("causal depth × migrations (into a state with an automatic transition): taken in the migration's change, which is outside input: the self-caused count ends", async () => {
    const clock = new ManualClock('2026-11-20T16:00:00.000Z');
    const engine = new Engine(createInMemoryPorts(), { clock, logger: recordingLogger() });
    await engine.createWorkflow(ticker('PT0.1S'));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'm2' });
    await clock.advanceBy(1_000);
    expect((await engine.getInstance('m2')).selfCausedChanges?.count).toBe(10);
    const version2 = ticker('PT0.1S');
    version2.states.tick!.transitions = [{ id: 'stop', targetStateId: 'resting', automatic: true, actions: [{ type: 'raiseTrigger', trigger: { name: 'Stopped', subjects: ['observers'] } }] }];
    await engine.addWorkflowVersion(version2, { ifMatch: (await engine.getWorkflow('ticker')).etag });
    const result = await engine.migrationsAndBulkActions.migrate('m2', { workflowId: 'ticker', fromVersion: 1, toVersion: 2, stateMap: {} });
    expect(result).toMatchObject({ outcome: 'migrated', fromStateId: 'tick', toStateId: 'resting' });
    const migrated = await engine.getInstance('m2');
    expect(migrated).toMatchObject({ workflowVersion: 2, stateId: 'resting', timers: [] });
    expect(migrated.selfCausedChanges).toBeUndefined();
    expect((await engine.getHistory('m2')).items.slice(-2).map((entry) => [entry.event, entry.transitionId])).toEqual([
      ['migrated', null],
      ['transitioned', 'stop'],
    ]);
  });

  it('causal budget × raised triggers: a change shares what it has left among what it raises; every recipient reached by subject applies the trigger with that share', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow({
      id: 'splitter',
      displayName: 'Splitter',
      initialStateId: 'idle',
      states: {
        idle: {
          transitions: [
            {
              id: 'go',
              targetStateId: 'idle',
              conditions: [{ type: 'triggerName', name: 'Go' }],
              actions: [1, 2, 3].map((n) => ({ type: 'raiseTrigger', trigger: { name: 'Hit', subjects: ['team'], parameters: { n } } })),
            },
          ],
        },
      },
    });
    await engine.createWorkflow({
      id: 'player',
      displayName: 'Player',
      initialStateId: 'ready',
      states: {
        ready: {
          interests: ['team'],
          transitions: [
            { id: 'hit', targetStateId: 'hit', conditions: [{ type: 'triggerName', name: 'Hit' }], actions: [{ type: 'raiseTrigger', trigger: { name: 'Ack', subjects: ['{{instance.id}}'] } }] },
          ],
        },
        hit: { transitions: [{ id: 'acked', targetStateId: 'ready', conditions: [{ type: 'triggerName', name: 'Ack' }] }] },
      },
    });
    await engine.createInstance({ workflowId: 'splitter', instanceId: 'sp' });
    for (const id of ['p1', 'p2']) await engine.createInstance({ workflowId: 'player', instanceId: id });
    await engine.applyTrigger('sp', { id: 'go-1', name: 'Go', subjects: ['sp'] });
    // The client's trigger has the whole budget; its change spends 1 and shares the rest three ways.
    const share = Math.floor((MAX_CAUSAL_BUDGET - 1) / 3);
    expect(delivery.delivered.map((trigger) => trigger.causalBudget)).toEqual([share, share, share]);

    // Both players apply the first Hit with its share (the budget bounds what each makes of it, not how
    // many it reaches: that is bounded by the instances interested, and the chain by the depth).
    const hit = delivery.delivered[0]!;
    for (const id of ['p1', 'p2']) expect(await engine.applyTrigger(id, hit)).toMatchObject({ outcome: 'transitioned' });
    const acks = delivery.delivered.filter((trigger) => trigger.name === 'Ack');
    expect(acks.map((trigger) => [trigger.raisedBy, trigger.causalBudget])).toEqual([
      ['p1', share - 1],
      ['p2', share - 1],
    ]);
  });

  it('causal budget × timers: a timer due at once carries its share of the budget; one due later starts with the whole budget again', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(ticker('PT0S'));
    await engine.createWorkflow(ticker('PT1H', 'hourly'));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'now' });
    const fired = await pumpTimers(engine, delivery.timers, 3);
    expect(fired.map((timer) => timer.causalBudget)).toEqual([MAX_CAUSAL_BUDGET - 1, MAX_CAUSAL_BUDGET - 2, MAX_CAUSAL_BUDGET - 3]);
    await engine.createInstance({ workflowId: 'hourly', instanceId: 'later' });
    const hourly = await pumpTimers(engine, delivery.timers.filter((timer) => timer.instanceId === 'later').splice(0), 1);
    expect(hourly).toEqual([expect.not.objectContaining({ causalBudget: expect.anything() })]);
  });

  it("causal budget × children: each child's creation gets its share of its parent's change, and its notification a share of the child's change", async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow({ id: 'leaf', displayName: 'Leaf', initialStateId: 'done', states: { done: {} } });
    await engine.createWorkflow({
      id: 'pair',
      displayName: 'Pair',
      initialStateId: 'idle',
      states: {
        idle: {
          transitions: [
            {
              id: 'grow',
              targetStateId: 'waiting',
              conditions: [{ type: 'triggerName', name: 'Grow' }],
              actions: [
                { type: 'startInstance', workflowId: 'leaf', instanceId: 'leaf-a' },
                { type: 'startInstance', workflowId: 'leaf', instanceId: 'leaf-b' },
              ],
            },
          ],
        },
        waiting: { transitions: [{ id: 'heard', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'ChildCompleted' }] }] },
      },
    });
    await engine.createInstance({ workflowId: 'pair', instanceId: 'pair-1' });
    await engine.applyTrigger('pair-1', { id: 'grow-1', name: 'Grow', subjects: ['pair-1'] });
    // Each child's creation had (MAX - 1) / 2; ending at once, it spends 1 and its notification gets the rest.
    const childShare = Math.floor((MAX_CAUSAL_BUDGET - 1) / 2);
    expect(delivery.delivered).toEqual([
      expect.objectContaining({ name: 'ChildCompleted', causalDepth: 2, causalBudget: childShare - 1 }),
      expect.objectContaining({ name: 'ChildCompleted', causalDepth: 2, causalBudget: childShare - 1 }),
    ]);
  });

  it('causal budget × re-creation: an instance created again under the same id starts with the whole budget', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(ticker('PT0S'));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'again' });
    await pumpTimers(engine, delivery.timers, 5);
    await engine.deleteInstance('again', { force: true });
    delivery.timers.splice(0);
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'again' });
    expect(delivery.timers).toEqual([expect.objectContaining({ instanceId: 'again', causalBudget: MAX_CAUSAL_BUDGET - 1 })]);
  });
});
