/**
 * Seams of "a trigger is applied at most once per instance" and "reports and growth" (issue 22, groups 2
 * and 9; docs/concepts/guarantees.md): the applied-trigger memory (the newest 128 in the instance record, every one
 * as a row beside it), operation checkpoints, due-timer rows and operation retention, crossed with each
 * kind of follow-up work. In memory: the behaviour is the engine's and the activities'; the local runner
 * and the orchestrator paths have their own tests (test/host/resumed-operations.test.ts,
 * test/functions/operation-orchestrator.test.ts).
 */
import { onePage } from '../../src/engine/ports';
import { APPLIED_TRIGGER_MEMORY, Engine, type WorkflowDefinitionInput } from '../../src/engine';
import { OperationStatus } from '../../src/engine/model';
import { purgeFinishedOperations } from '../../src/host/retention';
import { InMemoryDueTimerIndex, createInMemoryPorts } from '../../src/testing';
import { FakeClock, recordingLogger, testEngine, trigger } from '../engine/support';
import { makeOperation } from '../storage/fixtures';

/** `Bump` counts in `context.b` and raises `Echo` on itself; `Tick` is remembered and changes nothing; a day in `on` times out to `late`. */
const counter = (displayName = 'Counter'): WorkflowDefinitionInput => ({
  id: 'counter',
  displayName,
  initialStateId: 'on',
  states: {
    on: {
      interests: ['all'],
      transitions: [
        {
          id: 'bump',
          targetStateId: 'on',
          conditions: [{ type: 'triggerName', name: 'Bump' }],
          actions: [
            { type: 'setContext', expressions: { b: '$exists(context.b) ? context.b + 1 : 1' } },
            { type: 'raiseTrigger', trigger: { name: 'Echo', subjects: ['{{instance.id}}'] } },
          ] as never,
        },
        {
          id: 'echo',
          targetStateId: 'on',
          conditions: [{ type: 'triggerName', name: 'Echo' }],
          actions: [{ type: 'setContext', expressions: { echoes: '$exists(context.echoes) ? context.echoes + 1 : 1' } }] as never,
        },
        { id: 'tick', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Tick' }] },
        { id: 'late', targetStateId: 'late', timer: { after: 'P1D' } },
      ],
    },
    late: { transitions: [{ id: 'back', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Back' }] }] },
  },
});

const OTHERS = APPLIED_TRIGGER_MEMORY + 10;

async function forgetMany(engine: Engine, instanceId: string, prefix = 'other'): Promise<void> {
  for (let index = 0; index < OTHERS; index++) await engine.applyTrigger(instanceId, trigger('Tick', { id: `${prefix}-${index}`, subjects: [instanceId] }));
}

describe('applied once × follow-up work', () => {
  it(`applied once × raised triggers: a raised trigger delivered again after ${OTHERS} others is a duplicate`, async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(counter());
    await engine.createInstance({ workflowId: 'counter', instanceId: 'i1' });
    await engine.applyTrigger('i1', trigger('Bump', { id: 'bump-1', subjects: ['i1'] }));
    const echo = delivery.delivered.find((raised) => raised.name === 'Echo')!;
    expect((await engine.applyTrigger('i1', echo)).outcome).toBe('transitioned');
    await forgetMany(engine, 'i1');

    expect((await engine.applyTrigger('i1', echo)).outcome).toBe('duplicate');
    expect((await engine.getInstance('i1')).context.echoes).toBe(1);
  });

  it(`applied once × timers: a timer fired again after ${OTHERS} other triggers is not taken again`, async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(counter());
    await engine.createInstance({ workflowId: 'counter', instanceId: 'i1' });
    const timer = delivery.timers.find((armed) => armed.instanceId === 'i1')!;
    expect((await engine.fireTimer(timer)).outcome).toBe('transitioned');
    await engine.applyTrigger('i1', trigger('Back', { id: 'back-1', subjects: ['i1'] }));
    await forgetMany(engine, 'i1');

    expect((await engine.fireTimer(timer)).outcome).toBe('duplicate');
    expect((await engine.getInstance('i1')).stateId).toBe('on');
  });

  it('applied once × migrations: a migrated instance keeps its memory, and a trigger applied before is a duplicate after', async () => {
    const { engine } = testEngine();
    await engine.createWorkflow(counter());
    await engine.createInstance({ workflowId: 'counter', instanceId: 'i1' });
    await engine.applyTrigger('i1', trigger('Bump', { id: 'bump-1', subjects: ['i1'] }));
    await forgetMany(engine, 'i1');
    await engine.addWorkflowVersion(counter('Counter 2'), { ifMatch: '*' });
    expect((await engine.migrationsAndBulkActions.migrate('i1', { workflowId: 'counter', fromVersion: 1, toVersion: 2, stateMap: {} })).outcome).toBe('migrated');

    expect((await engine.applyTrigger('i1', trigger('Bump', { id: 'bump-1', subjects: ['i1'] }))).outcome).toBe('duplicate');
    expect((await engine.getInstance('i1')).context.b).toBe(1);
  });

  it('applied once × bulk actions: a suspended and resumed instance still answers duplicate for what it forgot', async () => {
    const { engine } = testEngine();
    await engine.createWorkflow(counter());
    await engine.createInstance({ workflowId: 'counter', instanceId: 'i1' });
    await engine.applyTrigger('i1', trigger('Bump', { id: 'bump-1', subjects: ['i1'] }));
    await forgetMany(engine, 'i1');
    expect((await engine.migrationsAndBulkActions.applyBulk('i1', { action: 'suspend', filter: { workflowId: 'counter' } })).outcome).toBe('suspended');
    expect((await engine.migrationsAndBulkActions.applyBulk('i1', { action: 'resume', filter: { workflowId: 'counter' } })).outcome).toBe('resumed');

    expect((await engine.applyTrigger('i1', trigger('Bump', { id: 'bump-1', subjects: ['i1'] }))).outcome).toBe('duplicate');
  });

  it('applied once × deletion and re-creation: the rows go with the instance, and a new instance with the id applies the trigger', async () => {
    const { engine, instances } = testEngine();
    await engine.createWorkflow(counter());
    await engine.createInstance({ workflowId: 'counter', instanceId: 'i1' });
    await engine.applyTrigger('i1', trigger('Bump', { id: 'bump-1', subjects: ['i1'] }));
    await forgetMany(engine, 'i1');
    await engine.deleteInstance('i1', { force: true });
    expect(instances.holdsAnythingOf('i1')).toBe(false);

    await engine.createInstance({ workflowId: 'counter', instanceId: 'i1' });
    expect((await engine.applyTrigger('i1', trigger('Bump', { id: 'bump-1', subjects: ['i1'] }))).outcome).toBe('transitioned');
    expect((await engine.getInstance('i1')).context.b).toBe(1);
  });
});

/** Starts a parcel child on `Split` and counts its notifications; `Tick` is remembered and changes nothing. */
const parcel: WorkflowDefinitionInput = {
  id: 'parcel',
  displayName: 'Parcel',
  initialStateId: 'packing',
  states: { packing: { transitions: [{ id: 'ship', targetStateId: 'shipped', conditions: [{ type: 'triggerName', name: 'Ship' }] }] }, shipped: {} },
};
const sender: WorkflowDefinitionInput = {
  id: 'sender',
  displayName: 'Sender',
  initialStateId: 'on',
  subscriptions: [{ id: 'hook', url: 'https://hook.example/' }],
  states: {
    on: {
      transitions: [
        { id: 'split', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Split' }], actions: [{ type: 'startInstance', workflowId: 'parcel', instanceId: '{{instance.id}}-p' }] },
        {
          id: 'heard',
          targetStateId: 'on',
          conditions: [{ type: 'triggerName', name: 'ChildCompleted' }],
          actions: [{ type: 'setContext', expressions: { heard: '$exists(context.heard) ? context.heard + 1 : 1' } }],
        },
        { id: 'tick', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Tick' }] },
        { id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] },
      ],
    },
    closed: {},
  },
} as WorkflowDefinitionInput;

describe('applied once × children and events', () => {
  it(`applied once × children: a child's notification delivered again after ${OTHERS} other triggers is a duplicate`, async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(parcel);
    await engine.createWorkflow(sender);
    await engine.createInstance({ workflowId: 'sender', instanceId: 's1' });
    await engine.applyTrigger('s1', trigger('Split', { id: 'split-1', subjects: ['s1'] }));
    await engine.applyTrigger('s1-p', trigger('Ship', { id: 'ship-1', subjects: ['s1-p'] }));
    const notice = delivery.delivered.find((raised) => raised.name === 'ChildCompleted')!;
    expect((await engine.applyTrigger('s1', notice)).outcome).toBe('transitioned');
    await forgetMany(engine, 's1');

    expect((await engine.applyTrigger('s1', notice)).outcome).toBe('duplicate');
    expect((await engine.getInstance('s1')).context.heard).toBe(1);
  });

  it(`applied once × events: a trigger offered again after ${OTHERS} others records no second event`, async () => {
    const { engine } = testEngine();
    await engine.createWorkflow(parcel);
    await engine.createWorkflow(sender);
    await engine.createInstance({ workflowId: 'sender', instanceId: 's1' });
    await engine.applyTrigger('s1', trigger('Close', { id: 'close-1', subjects: ['s1'] }));
    const events = async () => (await engine.listEvents('s1', { maxPageSize: 1000 })).items.map((event) => event.id);
    const before = await events();
    expect(before.filter((id) => id.endsWith(':completed'))).toHaveLength(1);
    for (let index = 0; index < OTHERS; index++) await engine.applyTrigger('s1', trigger('Tick', { id: `other-${index}`, subjects: ['s1'] }));

    expect((await engine.applyTrigger('s1', trigger('Close', { id: 'close-1', subjects: ['s1'] }))).outcome).toBe('duplicate');
    expect(await events()).toEqual(before);
  });
});

describe('growth × follow-up work', () => {
  function engineWithDueTimers() {
    const dueTimers = new InMemoryDueTimerIndex();
    const engine = new Engine({ ...createInMemoryPorts(), dueTimers }, { clock: new FakeClock(), logger: recordingLogger() }).withDelivery({
      trigger: async () => undefined,
      timer: async () => undefined,
    });
    const rows = async () => {
      const found = [];
      for await (const row of dueTimers.listDue(new Date('2100-01-01T00:00:00Z'))) found.push(row);
      return found;
    };
    return { engine, rows };
  }

  it('due-timer rows × timers (self-transitions re-entering the state): one row for the current entry', async () => {
    const { engine, rows } = engineWithDueTimers();
    await engine.createWorkflow(counter());
    await engine.createInstance({ workflowId: 'counter', instanceId: 'i1' });
    for (let index = 0; index < 50; index++) await engine.applyTrigger('i1', trigger('Tick', { id: `tick-${index}`, subjects: ['i1'] }));
    expect((await rows()).map((row) => row.stateEntry)).toEqual([(await engine.getInstance('i1')).stateEntry]);
  });

  it('due-timer rows × deletion: none is left to fire into a re-created instance', async () => {
    const { engine, rows } = engineWithDueTimers();
    await engine.createWorkflow(counter());
    await engine.createInstance({ workflowId: 'counter', instanceId: 'i1' });
    await engine.deleteInstance('i1', { force: true });
    expect(await rows()).toEqual([]);
  });

  it('due-timer rows × bulk actions (cancel): removed with the cancellation', async () => {
    const { engine, rows } = engineWithDueTimers();
    await engine.createWorkflow(counter());
    await engine.createInstance({ workflowId: 'counter', instanceId: 'i1' });
    expect((await engine.migrationsAndBulkActions.applyBulk('i1', { action: 'cancel', filter: { workflowId: 'counter' } })).outcome).toBe('cancelled');
    expect(await rows()).toEqual([]);
  });

  it('operation retention × raised triggers, timers, migrations and bulk actions: only finished records past the retention go, with their results', async () => {
    const { operations } = createInMemoryPorts();
    const old = '2026-01-01T00:00:00.000Z';
    await operations.create(makeOperation('raised:i1:x', { status: OperationStatus.succeeded, updatedAt: old }));
    await operations.create(makeOperation('timer:i1:0:late', { status: OperationStatus.succeeded, updatedAt: old }));
    await operations.create({
      ...makeOperation('migration-1', { status: OperationStatus.failed, updatedAt: old }),
      kind: 'migration',
      migration: { workflowId: 'counter', fromVersion: 1, toVersion: 2, stateMap: {} },
    } as never);
    await operations.create(makeOperation('still-running', { status: OperationStatus.running, updatedAt: old }));
    // Per-instance results are rows of their own (kept out of durable history): they go with their operation.
    for (const operationId of ['raised:i1:x', 'timer:i1:0:late', 'migration-1', 'still-running']) await operations.putResult(operationId, { instanceId: 'i1', outcome: 'transitioned' });
    const results = async (operationId: string) => (await onePage(operations.listResults(operationId))).items.length;

    expect(await purgeFinishedOperations(operations, 30, new Date('2026-03-01T00:00:00.000Z'))).toBe(3);
    expect(await operations.get('still-running')).toBeDefined();
    expect([await results('raised:i1:x'), await results('timer:i1:0:late'), await results('migration-1'), await results('still-running')]).toEqual([0, 0, 0, 1]);
  });

  /** What the instance retention purge does to one instance: a bulk delete of finished instances, without force. */
  const retentionDelete = (status: 'complete' | 'cancelled') => ({ action: 'delete' as const, filter: { workflowId: 'sender', status } });

  it('instance retention × children: a finished parent goes with its children, and a cancelled one with the running children its cancellation cancelled', async () => {
    const { engine, instances } = testEngine({ inProcess: true });
    await engine.createWorkflow(parcel);
    await engine.createWorkflow(sender);
    for (const id of ['done', 'busy']) {
      await engine.createInstance({ workflowId: 'sender', instanceId: id });
      await engine.applyTrigger(id, trigger('Split', { id: `split-${id}`, subjects: [id] }));
    }
    await engine.applyTrigger('done-p', trigger('Ship', { id: 'ship-done', subjects: ['done-p'] }));
    await engine.applyTrigger('done', trigger('Close', { id: 'close-done', subjects: ['done'] }));
    expect((await engine.migrationsAndBulkActions.applyBulk('done', retentionDelete('complete'))).outcome).toBe('deleted');
    expect(instances.holdsAnythingOf('done')).toBe(false);
    expect(instances.holdsAnythingOf('done-p')).toBe(false);

    // Cancelling cascades to the running child, so the finished parent and its child go together.
    await engine.cancel('busy');
    expect((await engine.getInstance('busy-p')).status).toBe('cancelled');
    expect((await engine.migrationsAndBulkActions.applyBulk('busy', retentionDelete('cancelled'))).outcome).toBe('deleted');
    expect(instances.holdsAnythingOf('busy-p')).toBe(false);
  });

  it("instance retention × events: a purged instance's event records go with it", async () => {
    const { engine, instances } = testEngine();
    await engine.createWorkflow(parcel);
    await engine.createWorkflow(sender);
    await engine.createInstance({ workflowId: 'sender', instanceId: 's1' });
    await engine.applyTrigger('s1', trigger('Close', { id: 'close-1', subjects: ['s1'] }));
    expect((await engine.listEvents('s1')).items.length).toBeGreaterThan(0);
    expect((await engine.migrationsAndBulkActions.applyBulk('s1', retentionDelete('complete'))).outcome).toBe('deleted');
    expect(instances.holdsAnythingOf('s1')).toBe(false);
  });

  it('instance retention × re-creation: an id the retention delete purged is new again: a trigger id its old instance applied applies to the new one', async () => {
    const { engine } = testEngine();
    await engine.createWorkflow(parcel);
    await engine.createWorkflow(sender);
    await engine.createInstance({ workflowId: 'sender', instanceId: 's1' });
    await engine.applyTrigger('s1', trigger('Close', { id: 'close-1', subjects: ['s1'] }));
    expect((await engine.migrationsAndBulkActions.applyBulk('s1', retentionDelete('complete'))).outcome).toBe('deleted');

    await engine.createInstance({ workflowId: 'sender', instanceId: 's1' });
    expect((await engine.applyTrigger('s1', trigger('Close', { id: 'close-1', subjects: ['s1'] }))).outcome).toBe('transitioned');
    expect((await engine.getInstance('s1')).status).toBe('complete');
  });
});
