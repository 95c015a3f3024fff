/**
 * Internal trigger kinds as one typed union (issue 42): `Trigger.internal`, read by `internalOf`, which
 * also reads the optional fields that rows written before the union carried (outbox rows, operation
 * records, queued rows, held triggers, durable inputs), so a trigger in flight across the upgrade keeps
 * what it is for.
 */
import {
  Engine,
  TriggerOutcome,
  internalKindOf,
  internalOf,
  timerTriggerId,
  upgradeTrigger,
  withoutInternalKind,
  type ClientTrigger,
  type Trigger,
  type TriggerInput,
  type WorkflowDefinitionInput,
} from '../../src/engine';
import { ManualClock, createInMemoryPorts } from '../../src/testing';
import { testEngine, trigger } from './support';

/** A trigger as code before the union wrote it: the kind in an optional field of its own. */
function legacy(current: Trigger): Trigger {
  const { internal, ...rest } = current;
  if (!internal) return current;
  const { kind, ...target } = internal;
  const nested = kind === 'capacityReoffer' ? { ...target, trigger: legacy((target as { trigger: Trigger }).trigger) } : target;
  return { ...rest, [kind]: nested } as Trigger;
}

const base = { id: 't1', name: 'x', subjects: ['i1'] };

describe('internal trigger kinds', () => {
  it.each([
    ['timer', { transitionId: 'escalate', stateEntry: 2, incarnation: 'abc' }],
    ['retry', { triggerId: 'pay-1', attempt: 2 }],
    ['debounce', { triggerName: 'Update', triggerId: 'u-3' }],
    ['capacityWait', { triggerId: 'pick-b', stateId: 'picking', key: 'customer:42' }],
    ['capacityRoom', { stateId: 'open' }],
  ] as const)('reads an old row\'s optional "%s" field as that kind, and upgrades it into `internal`', (field, target) => {
    const old = { ...base, causalDepth: 1, [field]: target } as unknown as Trigger;
    expect(internalOf(old)).toEqual({ kind: field, ...target });
    expect(internalKindOf(old, field)).toEqual({ kind: field, ...target });
    expect(upgradeTrigger(old)).toEqual({ ...base, causalDepth: 1, internal: { kind: field, ...target } });
    // The current form reads the same, and is left as it is.
    const current = upgradeTrigger(old);
    expect(internalOf(current)).toEqual({ kind: field, ...target });
    expect(upgradeTrigger(current)).toBe(current);
  });

  it('upgrades an old re-offer and the old waiting trigger inside it; keeps the recipient beside the kind', () => {
    const waiting = { id: 'pick-b', name: 'capacityRoom', subjects: ['b'], capacityRoom: { stateId: 'open' } } as unknown as Trigger;
    const recipient = { instanceId: 'b', incarnation: 'i1' };
    const old = { ...base, recipient, capacityReoffer: { workflowId: 'orders', stateId: 'picking', key: 'k', trigger: waiting } } as unknown as Trigger;
    expect(upgradeTrigger(old)).toEqual({
      ...base,
      recipient,
      internal: {
        kind: 'capacityReoffer',
        workflowId: 'orders',
        stateId: 'picking',
        key: 'k',
        trigger: { id: 'pick-b', name: 'capacityRoom', subjects: ['b'], internal: { kind: 'capacityRoom', stateId: 'open' } },
      },
    });
  });

  it('finds no kind on a client or raised trigger, and the wrong kind is undefined', () => {
    // What a client's body parses to has a client trigger's fields and no more (checked when this compiles).
    const onlyClientFields: [Exclude<keyof TriggerInput, keyof ClientTrigger>] extends [never] ? true : false = true;
    expect(onlyClientFields).toBe(true);
    expect(internalOf({ ...base, raisedBy: 'i0', priority: 4 })).toBeUndefined();
    const timer: Trigger = { ...base, internal: { kind: 'timer', transitionId: 'a', stateEntry: 0 } };
    expect(internalKindOf(timer, 'retry')).toBeUndefined();
    expect(internalKindOf(timer, 'timer')?.transitionId).toBe('a');
  });

  it('takes a kind off only when it is that kind (a failed retry is retried again as itself, a timer stays a timer)', () => {
    const retried = { ...base, retry: { triggerId: 't0', attempt: 1 } } as unknown as Trigger;
    expect(withoutInternalKind(retried, 'retry')).toEqual(base);
    const timer: Trigger = { ...base, internal: { kind: 'timer', transitionId: 'a', stateEntry: 0 } };
    expect(withoutInternalKind(timer, 'retry')).toEqual(timer);
  });

  it("applies an old row's timer trigger as the timer it is; without the field it is an ordinary trigger that cannot choose it", async () => {
    const definition: WorkflowDefinitionInput = {
      id: 'claim',
      displayName: 'Claim',
      initialStateId: 'waiting',
      states: { waiting: { transitions: [{ id: 'escalate', targetStateId: 'escalated', timer: { after: 'PT48H' } }] }, escalated: {} },
    };
    const fresh = async () => {
      const engine = new Engine(createInMemoryPorts(), { clock: new ManualClock('2026-11-20T16:00:00.000Z'), newId: () => 'generated' });
      await engine.createWorkflow(definition);
      const { incarnation } = await engine.createInstance({ workflowId: 'claim', instanceId: 'c1' });
      return { engine, id: timerTriggerId('c1', 0, 'escalate', incarnation), incarnation };
    };
    const first = await fresh();
    const oldTimer = { id: first.id, name: 'timer', subjects: ['c1'], timer: { transitionId: 'escalate', stateEntry: 0, incarnation: first.incarnation } } as unknown as Trigger;
    expect(await first.engine.applyTrigger('c1', oldTimer)).toMatchObject({ outcome: TriggerOutcome.transitioned, transitionId: 'escalate' });
    expect((await first.engine.getInstance('c1')).stateId).toBe('escalated');

    const second = await fresh();
    const { timer: _timer, ...plain } = oldTimer as Trigger & { timer: unknown };
    expect((await second.engine.applyTrigger('c1', plain)).outcome).not.toBe(TriggerOutcome.transitioned);
    expect((await second.engine.getInstance('c1')).stateId).toBe('waiting');
  });

  it("applies an old row's capacity re-offer: the waiting trigger itself, under its own id, once", async () => {
    const test = testEngine();
    const { engine, delivery } = test;
    await engine.createWorkflow({
      id: 'orders',
      displayName: 'Orders',
      initialStateId: 'open',
      states: {
        open: { transitions: [{ id: 'pick', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Pick' }] }] },
        picking: { capacity: { key: 'customer:{{context.customer}}', limit: 1 }, transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }] },
        done: {},
      },
    } as WorkflowDefinitionInput);
    for (const id of ['a', 'b']) await engine.createInstance({ workflowId: 'orders', instanceId: id, context: { customer: '42' } });
    await engine.applyTrigger('a', trigger('Pick', { id: 'pick-a', subjects: ['a'] }));
    expect((await engine.applyTrigger('b', trigger('Pick', { id: 'pick-b', subjects: ['b'] }))).outcome).toBe('capacityQueued');
    await engine.applyTrigger('a', trigger('Done', { id: 'done-a', subjects: ['a'] }));
    const reoffer = delivery.delivered.find((sent) => sent.internal?.kind === 'capacityReoffer')!;
    const old = legacy(reoffer);
    expect(old).toHaveProperty('capacityReoffer.trigger.id', 'pick-b');
    expect(old).not.toHaveProperty('internal');

    await engine.applyTrigger('b', old);
    expect((await engine.getHistory('b')).items.at(-1)).toMatchObject({ triggerId: 'pick-b', toStateId: 'picking' });
    expect((await engine.applyTrigger('b', old)).outcome).toBe('duplicate');
  });
});
