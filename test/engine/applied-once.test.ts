/**
 * A trigger is applied at most once per instance, however many other triggers the instance applied in
 * between (issue 22, group 2). Before the fix the instance remembered only its newest 128 trigger ids:
 * a trigger offered again after 200 others (a resumed operation offering its first page again) was
 * applied a second time.
 */
import { APPLIED_TRIGGER_MEMORY, type WorkflowDefinitionInput } from '../../src/engine';
import { testEngine, trigger } from './support';

/** Every `Bump` counts itself in `context.b`; `Tick` moves nothing but is remembered (a self-transition). */
const counter: WorkflowDefinitionInput = {
  id: 'counter',
  displayName: 'Counter',
  initialStateId: 'on',
  states: {
    on: {
      transitions: [
        {
          id: 'bump',
          targetStateId: 'on',
          conditions: [{ type: 'triggerName', name: 'Bump' }],
          actions: [{ type: 'setContext', expressions: { b: '$exists(context.b) ? context.b + 1 : 1' } }] as never,
        },
        { id: 'tick', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Tick' }] },
      ],
    },
  },
};

async function engineWithHotInstance() {
  const test = testEngine();
  await test.engine.createWorkflow(counter);
  await test.engine.createInstance({ workflowId: 'counter', instanceId: 'a-hot' });
  return test;
}

describe('a trigger is applied at most once per instance', () => {
  it(`answers duplicate (with what it did) to a trigger applied before ${APPLIED_TRIGGER_MEMORY + 72} others`, async () => {
    const { engine } = await engineWithHotInstance();
    const first = await engine.applyTrigger('a-hot', trigger('Bump', { id: 'bcast-1', subjects: ['a-hot'] }));
    expect(first.outcome).toBe('transitioned');
    for (let index = 0; index < APPLIED_TRIGGER_MEMORY + 72; index++) {
      await engine.applyTrigger('a-hot', trigger('Tick', { id: `other-${index}`, subjects: ['a-hot'] }));
    }

    const again = await engine.applyTrigger('a-hot', trigger('Bump', { id: 'bcast-1', subjects: ['a-hot'] }));

    expect(again).toEqual({ instanceId: 'a-hot', outcome: 'duplicate', applied: { outcome: 'transitioned', transitionId: 'bump', fromStateId: 'on', toStateId: 'on' } });
    const instance = await engine.getInstance('a-hot');
    expect(instance.context.b).toBe(1);
    const history = await engine.getHistory('a-hot', { maxPageSize: 1000 });
    expect(history.items.filter((entry) => entry.triggerId === 'bcast-1')).toHaveLength(1);
    // The instance record itself stays bounded.
    expect(instance.appliedTriggers.length).toBeLessThanOrEqual(APPLIED_TRIGGER_MEMORY);
  });

  it('keeps a row beside the instance only for a record its list lets go, written by the save that lets it go', async () => {
    const { engine, instances } = await engineWithHotInstance();
    await engine.applyTrigger('a-hot', trigger('Bump', { id: 'first', subjects: ['a-hot'] }));
    const remembered = (await engine.getInstance('a-hot')).appliedTriggers.find((record) => record.triggerId === 'first');
    expect(remembered).toBeDefined();
    // Still in the list: no row (one entity less per trigger for an instance with a short life).
    expect(await instances.getApplied('a-hot', 'first')).toBeUndefined();
    for (let index = 0; index < APPLIED_TRIGGER_MEMORY - 1; index++) await engine.applyTrigger('a-hot', trigger('Tick', { id: `other-${index}`, subjects: ['a-hot'] }));
    expect(await instances.getApplied('a-hot', 'first')).toBeUndefined();
    // The next one makes the list let `first` go: the same save writes its row, as the list had it.
    await engine.applyTrigger('a-hot', trigger('Tick', { id: 'one-more', subjects: ['a-hot'] }));
    const instance = await engine.getInstance('a-hot');
    expect(instance.appliedTriggers.some((record) => record.triggerId === 'first')).toBe(false);
    expect(instance.appliedForgottenAt).toBeDefined();
    expect(await instances.getApplied('a-hot', 'first')).toEqual(remembered);
    expect(await instances.getApplied('a-hot', 'other-0')).toBeUndefined();
  });

  it('costs no extra read while the instance has forgotten nothing, nor for a trigger newer than what it forgot', async () => {
    const { engine, instances, clock } = await engineWithHotInstance();
    await engine.applyTrigger('a-hot', trigger('Bump', { id: 'fresh-1', subjects: ['a-hot'] }));
    const readsBefore = instances.appliedReads;
    await engine.applyTrigger('a-hot', trigger('Bump', { id: 'fresh-2', subjects: ['a-hot'] }));
    expect(instances.appliedReads).toBe(readsBefore);

    for (let index = 0; index < APPLIED_TRIGGER_MEMORY; index++) await engine.applyTrigger('a-hot', trigger('Tick', { id: `other-${index}`, subjects: ['a-hot'] }));
    expect((await engine.getInstance('a-hot')).appliedForgottenAt).toBeDefined();
    const forgetting = instances.appliedReads;
    // Recorded after the instance last forgot (beyond the clock margin): it cannot be among what it forgot.
    const later = new Date(clock.now().getTime() + 10 * 60_000).toISOString();
    clock.advance(10 * 60_000);
    await engine.applyTrigger('a-hot', trigger('Bump', { id: 'fresh-3', subjects: ['a-hot'] }), { offeredSince: later });
    expect(instances.appliedReads).toBe(forgetting);
    // Recorded before: looked up.
    await engine.applyTrigger('a-hot', trigger('Bump', { id: 'fresh-1', subjects: ['a-hot'] }), { offeredSince: '2026-01-01T00:00:00.000Z' });
    expect(instances.appliedReads).toBe(forgetting + 1);
    expect((await engine.getInstance('a-hot')).context.b).toBe(3);
  });
});
