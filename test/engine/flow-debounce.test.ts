/**
 * `flow.debounce` in the engine, on in-memory ports and the manual clock (its timers fire as the clock is
 * advanced; nothing waits on the wall clock): a burst of triggers of one name is applied once, when it
 * has been quiet for `periodMs` (or at `maxWaitMs`), as the latest trigger or a JSONata merge; each
 * trigger's outcome and trace say it was held back.
 */
import { Engine, TriggerOutcome, ValidationError, validateDefinition, type Trigger, type WorkflowDefinitionInput } from '../../src/engine';
import { InMemoryDueTimerIndex, ManualClock, createInMemoryPorts } from '../../src/testing';
import { recordingLogger } from './support';

const SECOND = 1000;

/** `Update` sets `context.last` from its parameters (and counts applications); `Close` ends it. */
function profile(debounce: NonNullable<WorkflowDefinitionInput['flow']>['debounce']): WorkflowDefinitionInput {
  return {
    id: 'profile',
    displayName: 'Profile',
    initialStateId: 'open',
    flow: { debounce },
    states: {
      open: {
        transitions: [
          {
            id: 'update',
            targetStateId: 'open',
            conditions: [{ type: 'triggerName', name: 'Update' }],
            actions: [{ type: 'setContext', expressions: { last: 'trigger.parameters', applied: '($exists(context.applied) ? context.applied : 0) + 1' } }],
          },
          { id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] },
        ],
      },
      closed: {},
    },
  };
}

function setUp() {
  const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex() };
  const clock = new ManualClock('2026-11-26T10:00:00.000Z');
  const engine = new Engine(ports, { clock, logger: recordingLogger() });
  const update = (id: string, parameters: Trigger['parameters'] = {}) => engine.applyTrigger('p1', { id, name: 'Update', subjects: ['p1'], parameters });
  return { engine, clock, update, ports };
}

describe('flow.debounce', () => {
  it('holds a burst back and applies its latest trigger once, after the quiet period; each held trigger says so', async () => {
    const { engine, clock, update } = setUp();
    await engine.createWorkflow(profile([{ trigger: 'Update', periodMs: 5 * SECOND }]));
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    const first = await update('u1', { name: 'a' });
    expect(first).toMatchObject({ outcome: TriggerOutcome.debounced, fromStateId: 'open' });
    expect(first.trace).toEqual([
      expect.objectContaining({
        path: 'flow.debounce[0]',
        type: 'debounce',
        result: true,
        detail: expect.stringContaining('held back: 1 "Update" trigger in this burst, applied at 2026-11-26T10:00:05.000Z'),
      }),
    ]);
    await clock.advanceBy(4 * SECOND);
    expect((await update('u2', { name: 'b' })).trace![0]!.detail).toContain('held back: 2 "Update" triggers in this burst, applied at 2026-11-26T10:00:09.000Z');
    await clock.advanceBy(4 * SECOND);
    await update('u3', { name: 'c' });
    expect((await engine.getInstance('p1')).context).toEqual({});
    // Quiet for the period since the latest: applied once, as the latest.
    await clock.advanceBy(5 * SECOND);
    const applied = await engine.getInstance('p1');
    expect(applied.context).toEqual({ last: { name: 'c' }, applied: 1 });
    expect(applied.debounces).toBeUndefined();
    const history = (await engine.getHistory('p1')).items;
    expect(history.map((entry) => entry.transitionId)).toEqual([null, 'update']);
    expect(history[1]!.triggerId).toMatch(/^debounce:h\./);
    // A repeat of a held trigger is a duplicate, not a new burst.
    expect(await update('u2', { name: 'b' })).toMatchObject({ outcome: TriggerOutcome.duplicate, applied: { outcome: 'debounced' } });
    await clock.advanceBy(60 * SECOND);
    expect((await engine.getInstance('p1')).context).toMatchObject({ applied: 1 });
  });

  it('applies a burst that never goes quiet at maxWaitMs after its first trigger', async () => {
    const { engine, clock, update } = setUp();
    await engine.createWorkflow(profile([{ trigger: 'Update', periodMs: 5 * SECOND, maxWaitMs: 12 * SECOND }]));
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    for (let second = 0; second < 12; second += 3) {
      await update(`u${second}`, { at: second });
      await clock.advanceBy(3 * SECOND);
    }
    // 12 s after the first: applied with the latest (at 9 s), though it never went quiet.
    expect((await engine.getInstance('p1')).context).toEqual({ last: { at: 9 }, applied: 1 });
    await update('u12', { at: 12 });
    await clock.advanceBy(5 * SECOND);
    expect((await engine.getInstance('p1')).context).toEqual({ last: { at: 12 }, applied: 2 });
  });

  it('merges the burst with a JSONata expression over previous.parameters and trigger.parameters', async () => {
    const { engine, clock, update } = setUp();
    await engine.createWorkflow(profile([{ trigger: 'Update', periodMs: SECOND, merge: '$merge([previous.parameters, trigger.parameters, {"count": previous.parameters.count + 1}])' }]));
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    await update('u1', { name: 'ann', count: 1 });
    await update('u2', { email: 'ann@example.com' });
    await update('u3', { name: 'Ann' });
    await clock.advanceBy(SECOND);
    expect((await engine.getInstance('p1')).context.last).toEqual({ name: 'Ann', email: 'ann@example.com', count: 3 });
  });

  it('leaves other trigger names alone, and drops a burst when the instance ends before it is due', async () => {
    const { engine, clock, update } = setUp();
    await engine.createWorkflow(profile([{ trigger: 'Update', periodMs: 5 * SECOND }]));
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    await update('u1');
    expect(await engine.applyTrigger('p1', { id: 'close', name: 'Close', subjects: ['p1'] })).toMatchObject({ outcome: 'transitioned' });
    const closed = await engine.getInstance('p1');
    expect(closed).toMatchObject({ status: 'complete' });
    expect(closed.debounces).toBeUndefined();
    await clock.advanceBy(5 * SECOND);
    expect((await engine.getInstance('p1')).context).toEqual({});
  });

  it('refuses bad declarations naming the field', () => {
    const refused = (debounce: unknown) => {
      try {
        validateDefinition(profile(debounce as never));
      } catch (error) {
        return (error as ValidationError).issues.map((issue) => issue.path);
      }
      return [];
    };
    expect(refused([{ trigger: 'Update', periodMs: 0 }])).toContain('flow.debounce[0].periodMs');
    expect(refused([{ trigger: 'Update', periodMs: 5000, maxWaitMs: 1000 }])).toContain('flow.debounce[0].maxWaitMs');
    expect(refused([{ trigger: 'Update', periodMs: 5000, merge: '$merge([' }])).toContain('flow.debounce[0].merge');
    expect(
      refused([
        { trigger: 'Update', periodMs: 5000 },
        { trigger: 'Update', periodMs: 1000 },
      ]),
    ).toContain('flow.debounce[1].trigger');
  });
});
