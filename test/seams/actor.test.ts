/**
 * The actor (actor.ts) crossed with every kind of follow-up work: work a change causes acts as `system`
 * with the actor of that change as `cause` (raised triggers, timers, children and their notifications),
 * events carry the entry's actor, migrations and bulk actions their request's, and all of it survives a
 * crash (the actor travels in the outbox rows, the armed timers and the operation's request).
 */
import type { Actor } from '../../src/engine/model';
import { dueTimersOf, Engine, timerTrigger, type WorkflowDefinitionInput } from '../../src/engine';
import { createInMemoryPorts, ManualClock } from '../../src/testing';
import { recordingLogger, testEngine } from '../engine/support';

const alice: Actor = { id: 'alice', name: 'Alice', roles: ['Signalbox.Sender'], via: 'token' };
const forAlice: Actor = { id: 'system', name: 'Signalbox', roles: [], via: 'system', cause: alice };

const flow: WorkflowDefinitionInput = {
  id: 'flow',
  displayName: 'Flow',
  initialStateId: 'a',
  subscriptions: [{ id: 'audit', url: 'https://audit.example.com/hook' }],
  states: {
    a: {
      transitions: [
        { id: 'go', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Go' }], actions: [{ type: 'raiseTrigger', trigger: { name: 'Echo', subjects: ['{{instance.id}}'] } }] },
        { id: 'spawn', targetStateId: 'a', conditions: [{ type: 'triggerName', name: 'Spawn' }], actions: [{ type: 'startInstance', workflowId: 'leaf', instanceId: '{{instance.id}}-leaf' }] },
        { id: 'child-done', targetStateId: 'a', conditions: [{ type: 'triggerName', name: 'ChildCompleted' }] },
      ],
    },
    b: { transitions: [{ id: 'echo', targetStateId: 'c', conditions: [{ type: 'triggerName', name: 'Echo' }] }] },
    c: { transitions: [{ id: 'late', targetStateId: 'd', timer: { after: 'PT1M' } }] },
    d: {},
  },
};
const leaf: WorkflowDefinitionInput = { id: 'leaf', displayName: 'Leaf', initialStateId: 'done', states: { done: {} } };

async function setUp() {
  const env = testEngine({ inProcess: true });
  await env.engine.createWorkflow(flow);
  await env.engine.createWorkflow(leaf);
  await env.engine.createInstance({ workflowId: 'flow', instanceId: 'f1' }, { actor: alice });
  return env;
}
const actorsOf = async (engine: Engine, instanceId: string) => (await engine.getHistory(instanceId)).items.map((entry) => [entry.transitionId ?? entry.event, entry.actor]);

describe('actor', () => {
  it('actor × raised triggers: a raised trigger acts as system, caused by the sender', async () => {
    const { engine } = await setUp();
    await engine.applyTrigger('f1', { id: 'go-1', name: 'Go', subjects: ['f1'], actor: alice });
    expect(await actorsOf(engine, 'f1')).toEqual([
      ['created', alice],
      ['go', alice],
      ['echo', forAlice],
    ]);
  });

  it('actor × timers: a timer fires as system, caused by the actor of the change that armed it', async () => {
    const { engine } = await setUp();
    await engine.applyTrigger('f1', { id: 'go-1', name: 'Go', subjects: ['f1'], actor: alice });
    const [timer] = dueTimersOf(await engine.getInstance('f1'));
    expect((await engine.applyTrigger('f1', timerTrigger(timer!))).outcome).toBe('transitioned');
    expect((await actorsOf(engine, 'f1')).at(-1)).toEqual(['late', forAlice]);
  });

  it("actor × children: a child is created by system for the parent's actor, and its notification acts for them too", async () => {
    const { engine } = await setUp();
    await engine.applyTrigger('f1', { id: 'spawn-1', name: 'Spawn', subjects: ['f1'], actor: alice });
    expect(await actorsOf(engine, 'f1-leaf')).toEqual([['created', forAlice]]);
    expect((await actorsOf(engine, 'f1')).at(-1)).toEqual(['child-done', forAlice]);
  });

  it("actor × events: each lifecycle event's data names the actor of its change", async () => {
    const { engine } = await setUp();
    await engine.applyTrigger('f1', { id: 'go-1', name: 'Go', subjects: ['f1'], actor: alice });
    const events = (await engine.listEvents('f1')).items.filter((event) => event.type.endsWith('transitioned'));
    expect(events.map((event) => event.data.actor)).toEqual([alice, forAlice]);
  });

  it("actor × migrations: a migrated instance's entry names the migration's requester", async () => {
    const { engine } = await setUp();
    const version1 = await engine.getWorkflow('flow');
    await engine.addWorkflowVersion({ ...flow, displayName: 'Flow 2' }, { ifMatch: version1.etag });
    const migration = { workflowId: 'flow', fromVersion: 1, toVersion: 2, stateMap: {}, actor: alice };
    expect((await engine.migrationsAndBulkActions.migrate('f1', migration, { operationId: 'm-1' })).outcome).toBe('migrated');
    expect((await actorsOf(engine, 'f1')).at(-1)).toEqual(['migrated', alice]);
  });

  it("actor × bulk actions: each instance's entry names the bulk action's requester", async () => {
    const { engine } = await setUp();
    const bulk = { action: 'suspend', filter: { workflowId: 'flow' }, actor: alice } as const;
    expect((await engine.migrationsAndBulkActions.applyBulk('f1', bulk, { operationId: 'b-1' })).outcome).toBe('suspended');
    expect((await actorsOf(engine, 'f1')).at(-1)).toEqual(['suspended', alice]);
  });

  it('actor × deletion: a deleted instance takes its actors with its history (nothing of them is left to read)', async () => {
    const { engine } = await setUp();
    await engine.cancel('f1', { actor: alice });
    await engine.deleteInstance('f1');
    await expect(engine.getHistory('f1')).rejects.toThrow(/does not exist/);
  });

  it('actor × re-creation: an id created again records its new creator, not the earlier one', async () => {
    const { engine } = await setUp();
    await engine.cancel('f1', { actor: alice });
    await engine.deleteInstance('f1');
    const bob: Actor = { id: 'bob', name: 'Bob', roles: [], via: 'key' };
    await engine.createInstance({ workflowId: 'flow', instanceId: 'f1' }, { actor: bob });
    expect(await actorsOf(engine, 'f1')).toEqual([['created', bob]]);
  });

  it('actor × raised triggers and timers (crash resumption): work left in the outbox by a crash acts for the same person after the restart', async () => {
    const ports = createInMemoryPorts();
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const start = () => new Engine(ports, { clock, logger: recordingLogger() });
    const stopped = async (): Promise<void> => {
      throw new Error('the process stopped');
    };
    const first = start();
    await first.createWorkflow(flow);
    await first.createInstance({ workflowId: 'flow', instanceId: 'f1' }, { actor: alice });
    await first.withDelivery({ trigger: stopped, timer: stopped, startInstance: stopped, cancelChildren: stopped }).applyTrigger('f1', { id: 'go-1', name: 'Go', subjects: ['f1'], actor: alice });
    const restarted = start();
    await restarted.relayLeftovers();
    const [timer] = dueTimersOf(await restarted.getInstance('f1'));
    await restarted.applyTrigger('f1', timerTrigger(timer!));
    expect((await actorsOf(restarted, 'f1')).slice(1)).toEqual([
      ['go', alice],
      ['echo', forAlice],
      ['late', forAlice],
    ]);
  });
});
