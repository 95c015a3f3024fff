import { z } from 'zod';
import { APPLIED_TRIGGER_MEMORY, createRegistry, defineAction, defineCondition, validateDefinition, type Instance, type WorkflowDefinitionInput } from '../../src/engine';
import { instanceIn, processTrigger, testEffects, trigger } from './support';

/** Probes record the order in which the processor runs steps, and can be told to fail. */
function probes() {
  const calls: string[] = [];
  const probeCondition = defineCondition({
    type: 'probe',
    schema: z.strictObject({ type: z.literal('probe'), id: z.string().optional(), label: z.string(), result: z.boolean().default(true), fail: z.boolean().default(false) }),
    evaluate: (config, { scope }) => {
      calls.push(`${config.label}@${scope.instance.stateId}`);
      if (config.fail) throw new Error(`${config.label} broke`);
      return config.result;
    },
  });
  const probeAction = defineAction({
    type: 'probeAction',
    schema: z.strictObject({ type: z.literal('probeAction'), id: z.string().optional(), label: z.string(), fail: z.boolean().default(false) }),
    execute: (config, context) => {
      calls.push(`${config.label}@${context.scope.instance.stateId}/${context.scope.instance.status}`);
      context.updateContext({ [config.label]: true });
      if (config.fail) throw new Error(`${config.label} broke`);
    },
  });
  const registry = createRegistry({ conditions: [probeCondition], actions: [probeAction] });
  return { calls, registry };
}

const c = (label: string, extra: object = {}) => ({ type: 'probe', label, ...extra });
const a = (label: string, extra: object = {}) => ({ type: 'probeAction', label, ...extra });

function twoStates(overrides: { from?: object; to?: object; transitions?: object[] } = {}): WorkflowDefinitionInput {
  return {
    id: 'wf',
    displayName: 'wf',
    initialStateId: 'a',
    states: {
      a: {
        exitConditions: [c('exit1'), c('exit2')],
        exitActions: [a('exitAction1'), a('exitAction2')],
        transitions: (overrides.transitions as never) ?? [
          { id: 'first', targetStateId: 'b', conditions: [c('t1c1', { result: false }), c('t1c2')], actions: [a('t1Action')] },
          { id: 'second', targetStateId: 'b', conditions: [c('t2c1'), c('t2c2')], actions: [a('t2Action1'), a('t2Action2')] },
        ],
        ...overrides.from,
      },
      b: {
        entryConditions: [c('entry1'), c('entry2')],
        entryActions: [a('entryAction1'), a('entryAction2')],
        transitions: [{ id: 'back', targetStateId: 'a', conditions: [{ type: 'triggerName', name: 'Back' }] }],
        ...overrides.to,
      },
      end: {},
    },
  };
}

function setup(input: WorkflowDefinitionInput, instance: Partial<Instance> = {}) {
  const { calls, registry } = probes();
  const def = validateDefinition(input, registry);
  const effects = testEffects({ registry });
  return { calls, def, effects, instance: instanceIn(def, 'a', instance) };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

describe('processTrigger: order of steps', () => {
  it('runs exit conditions, transitions in order (short-circuit), entry conditions, exit actions, transition actions, then entry actions in the new state', async () => {
    const { calls, def, effects, instance } = setup(twoStates());
    const t = trigger('Go');
    const result = await processTrigger(def, deepFreeze(instance), t, effects);
    expect(result.outcome).toBe('transitioned');
    expect(calls).toEqual([
      'exit1@a',
      'exit2@a',
      't1c1@a', // false: t1c2 is not evaluated
      't2c1@a',
      't2c2@a',
      'entry1@a',
      'entry2@a',
      'exitAction1@a/waiting',
      'exitAction2@a/waiting',
      't2Action1@a/waiting',
      't2Action2@a/waiting',
      'entryAction1@b/waiting',
      'entryAction2@b/waiting',
    ]);
    expect(result.instance).toMatchObject({ stateId: 'b', status: 'waiting', historyLength: 2 });
    expect(result.instance.context).toEqual({ exitAction1: true, exitAction2: true, t2Action1: true, t2Action2: true, entryAction1: true, entryAction2: true });
    expect(result.historyEntry).toEqual({
      sequence: 1,
      at: '2026-01-01T00:00:00.000Z',
      event: 'transitioned',
      triggerId: t.id,
      transitionId: 'second',
      fromStateId: 'a',
      toStateId: 'b',
      status: 'waiting',
    });
    // Changed by issue 16: the result carries its trace (asserted in decision-trace.test.ts).
    expect(result.result).toEqual({ instanceId: 'i1', outcome: 'transitioned', transitionId: 'second', fromStateId: 'a', toStateId: 'b', trace: expect.any(Array) });
  });

  it('stops at the first false exit condition: exitBlocked, nothing to save', async () => {
    const { calls, def, effects, instance } = setup(twoStates({ from: { exitConditions: [c('exit1', { result: false }), c('exit2')] } }));
    const result = await processTrigger(def, instance, trigger('Go'), effects);
    expect(result.outcome).toBe('exitBlocked');
    expect(calls).toEqual(['exit1@a']);
    expect(result.historyEntry).toBeUndefined();
    expect(result.instance).toBe(instance);
  });

  it('noTransition when no transition holds, nothing to save', async () => {
    const { def, effects, instance } = setup(twoStates({ transitions: [{ id: 'x', targetStateId: 'b', conditions: [c('no', { result: false })] }] }));
    const result = await processTrigger(def, instance, trigger('Go'), effects);
    expect(result).toMatchObject({ outcome: 'noTransition', raisedTriggers: [] });
    expect(result.historyEntry).toBeUndefined();
  });

  it('entryBlocked when an entry condition of the target is false; no action has run', async () => {
    const { calls, def, effects, instance } = setup(twoStates({ to: { entryConditions: [c('entry1', { result: false })] } }));
    const result = await processTrigger(def, instance, trigger('Go'), effects);
    expect(result.outcome).toBe('entryBlocked');
    expect(result.result).toMatchObject({ transitionId: 'second', toStateId: 'b' });
    expect(calls.some((call) => call.includes('Action'))).toBe(false);
    expect(result.historyEntry).toBeUndefined();
  });

  it.each(['complete', 'faulted', 'cancelled'] as const)('a %s instance is notActive and nothing is evaluated', async (status) => {
    const { calls, def, effects, instance } = setup(twoStates(), { status });
    const result = await processTrigger(def, instance, trigger('Go'), effects);
    expect(result.outcome).toBe('notActive');
    expect(calls).toEqual([]);
  });

  it('notInterested when no subject matches the interests', async () => {
    const { calls, def, effects, instance } = setup(twoStates());
    const result = await processTrigger(def, instance, trigger('Go', { id: 'new', subjects: ['someone-else'] }), effects);
    expect(result.outcome).toBe('notInterested');
    expect(calls).toEqual([]);
  });

  // Changed by issue 10 (section 3): the record of applied triggers is consulted first, so a repeated
  // delivery answers `duplicate` with what it did even after the instance completed, faulted or moved on.
  it('duplicate, with what it did then, when the trigger id was applied already (checked first)', async () => {
    const applied = { triggerId: 'dup', outcome: 'transitioned' as const, transitionId: 'second', fromStateId: 'a', toStateId: 'b' };
    const { calls, def, effects, instance } = setup(twoStates(), { appliedTriggers: [{ triggerId: 'x', outcome: 'faulted', error: 'e' }, applied] });
    const result = await processTrigger(def, instance, trigger('Go', { id: 'dup' }), effects);
    expect(result.outcome).toBe('duplicate');
    expect(result.result).toEqual({ instanceId: 'i1', outcome: 'duplicate', applied: { outcome: 'transitioned', transitionId: 'second', fromStateId: 'a', toStateId: 'b' } });
    const elsewhere = await processTrigger(def, { ...instance, status: 'complete', interests: ['i1'] }, trigger('Go', { id: 'dup', subjects: ['someone-else'] }), effects);
    expect(elsewhere.outcome).toBe('duplicate');
    expect(calls).toEqual([]);
    expect(result.historyEntry).toBeUndefined();
  });

  it('remembers applied trigger ids, bounded to the newest APPLIED_TRIGGER_MEMORY', async () => {
    const old = Array.from({ length: APPLIED_TRIGGER_MEMORY }, (_, index) => ({ triggerId: `old-${index}`, outcome: 'transitioned' as const }));
    const { def, effects, instance } = setup(twoStates(), { appliedTriggers: old });
    const result = await processTrigger(def, instance, trigger('Go', { id: 'new' }), effects);
    expect(result.instance.appliedTriggers).toHaveLength(APPLIED_TRIGGER_MEMORY);
    expect(result.instance.appliedTriggers.at(-1)).toMatchObject({ triggerId: 'new', outcome: 'transitioned', transitionId: result.result.transitionId });
    expect(result.instance.appliedTriggers[0]!.triggerId).toBe('old-1');
  });

  it('a self-transition runs exit and entry actions', async () => {
    const { calls, def, effects, instance } = setup({
      id: 'wf',
      displayName: 'wf',
      initialStateId: 'a',
      states: { a: { exitActions: [a('out')], entryActions: [a('in')], transitions: [{ id: 'self', targetStateId: 'a', actions: [a('via')] }] } },
    });
    const result = await processTrigger(def, instance, trigger('Go'), effects);
    expect(result.outcome).toBe('transitioned');
    expect(calls).toEqual(['out@a/waiting', 'via@a/waiting', 'in@a/waiting']);
    expect(result.historyEntry).toMatchObject({ fromStateId: 'a', toStateId: 'a', transitionId: 'self' });
  });

  it('entering a state without transitions completes the instance', async () => {
    const { def, effects, instance } = setup(twoStates({ transitions: [{ id: 'finish', targetStateId: 'end' }] }));
    const result = await processTrigger(def, instance, trigger('Go'), effects);
    expect(result.instance).toMatchObject({ stateId: 'end', status: 'complete' });
  });
});

describe('processTrigger: faults are outcomes', () => {
  it('a fault in an entry action leaves the instance faulted in the new state, with context so far, no raised triggers', async () => {
    const { def, effects, instance } = setup(
      twoStates({ to: { entryActions: [{ type: 'raiseTrigger', trigger: { name: 'X', subjects: ['s'] } }, a('entryAction1'), a('boom', { fail: true }), a('never')] } }),
    );
    const t = trigger('Go');
    const result = await processTrigger(def, instance, t, effects);
    expect(result.outcome).toBe('faulted');
    expect(result.instance).toMatchObject({ stateId: 'b', status: 'faulted', historyLength: 2, outbox: [] });
    expect(result.instance.fault).toEqual({ message: expect.stringContaining('boom broke'), triggerId: t.id, at: '2026-01-01T00:00:00.000Z' });
    expect(result.instance.fault?.message).toContain('entry action of state "b" [2] (probeAction)');
    expect(result.instance.context).toMatchObject({ entryAction1: true, boom: true });
    expect(result.instance.context.never).toBeUndefined();
    expect(result.instance.appliedTriggers.map((item) => item.triggerId)).toContain(t.id);
    expect(result.raisedTriggers).toEqual([]);
    expect(result.historyEntry).toMatchObject({ event: 'faulted', fromStateId: 'a', toStateId: 'b', transitionId: 'second', status: 'faulted', triggerId: t.id });
    expect(result.result).toMatchObject({ outcome: 'faulted', error: expect.stringContaining('boom broke'), toStateId: 'b' });
  });

  it('a fault in an exit action leaves it faulted in the old state', async () => {
    const { calls, def, effects, instance } = setup(twoStates({ from: { exitActions: [a('boom', { fail: true })] } }));
    const result = await processTrigger(def, instance, trigger('Go'), effects);
    expect(result.instance).toMatchObject({ stateId: 'a', status: 'faulted' });
    expect(calls.some((call) => call.startsWith('t2Action'))).toBe(false);
  });

  it('a fault in a transition action leaves it faulted in the old state', async () => {
    const { calls, def, effects, instance } = setup(twoStates({ transitions: [{ id: 'go', targetStateId: 'b', actions: [a('boom', { fail: true })] }] }));
    const result = await processTrigger(def, instance, trigger('Go'), effects);
    expect(result.instance).toMatchObject({ stateId: 'a', status: 'faulted' });
    expect(result.historyEntry).toMatchObject({ transitionId: 'go', toStateId: 'a' });
    expect(calls.some((call) => call.startsWith('entryAction'))).toBe(false);
  });

  it('a condition that throws faults the instance in the old state (exit, transition and entry conditions)', async () => {
    for (const overrides of [
      { from: { exitConditions: [c('x', { fail: true })] } },
      { transitions: [{ id: 'go', targetStateId: 'b', conditions: [c('x', { fail: true })] }] },
      { to: { entryConditions: [c('x', { fail: true })] } },
    ]) {
      const { def, effects, instance } = setup(twoStates(overrides));
      const result = await processTrigger(def, instance, trigger('Go'), effects);
      expect(result.outcome).toBe('faulted');
      expect(result.instance).toMatchObject({ stateId: 'a', status: 'faulted' });
      expect(result.instance.fault?.message).toContain('x broke');
    }
  });

  it('an expression condition that yields a non-boolean is a fault, not false', async () => {
    const { def, effects, instance } = setup(twoStates({ transitions: [{ id: 'go', targetStateId: 'b', conditions: [{ type: 'expression', expression: '"yes"' }] }] }));
    const result = await processTrigger(def, instance, trigger('Go'), effects);
    expect(result.outcome).toBe('faulted');
    expect(result.instance.fault?.message).toContain('not a boolean');
  });

  it('an instance whose state is not in the definition faults instead of throwing', async () => {
    const { def, effects } = setup(twoStates());
    const result = await processTrigger(def, instanceIn(def, 'gone'), trigger('Go'), effects);
    expect(result.outcome).toBe('faulted');
    expect(result.instance.fault?.message).toContain('"gone"');
  });
});

describe('processTrigger: interests and raised triggers', () => {
  it('computes interests after entry actions, from the new state: declared templates and the conditions that decide', async () => {
    const def = validateDefinition({
      id: 'wf',
      displayName: 'wf',
      initialStateId: 'a',
      states: {
        a: { interests: ['old-interest'], transitions: [{ id: 'go', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Go' }] }] },
        b: {
          interests: ['owner:{{context.owner}}', 'missing:{{context.nothing}}', 'team'],
          // Entry conditions decide whether to enter, not whether a trigger does anything here: no interests.
          entryConditions: [{ type: 'not', condition: { type: 'triggerName', name: 'NotAnInterest' } }],
          entryActions: [{ type: 'setContext', values: { owner: 'ann' } }],
          exitConditions: [{ type: 'not', condition: { type: 'triggerName', name: 'Veto' } }],
          transitions: [
            {
              id: 'x',
              targetStateId: 'a',
              conditions: [
                {
                  type: 'any',
                  conditions: [
                    { type: 'triggerName', name: 'Approve' },
                    { type: 'all', conditions: [{ type: 'triggerName', name: 'Nudge' }] },
                  ],
                },
              ],
            },
            { id: 'y', targetStateId: 'a', conditions: [{ type: 'invokeExternalService', url: 'https://svc.example.com/check', interests: ['svc:{{context.owner}}'] }] },
          ],
        },
      },
    });
    const result = await processTrigger(def, instanceIn(def, 'a', { interests: ['i1', 'old-interest', 'Go'] }), trigger('Go'), testEffects());
    expect(result.instance.interests).toEqual(['Approve', 'Nudge', 'Veto', 'i1', 'owner:ann', 'svc:ann', 'team']);
  });

  it('raised triggers get deterministic, reserved ids and hop counts, and go to the outbox rows of the change', async () => {
    const def = validateDefinition({
      id: 'wf',
      displayName: 'wf',
      initialStateId: 'a',
      states: {
        a: {
          transitions: [
            {
              id: 'go',
              targetStateId: 'b',
              actions: [
                { type: 'setContext', values: { n: 7 } },
                { type: 'raiseTrigger', trigger: { name: 'Done', subjects: ['owner:{{context.n}}', 'x:{{context.none}}', 'all'], parameters: { n: '{{context.n}}', text: 'n={{context.n}}' } } },
                { type: 'raiseTrigger', trigger: { name: 'Second', subjects: ['all'] } },
              ],
            },
          ],
        },
        b: {},
      },
    });
    const t = trigger('Go', { id: 'trig-1' });
    const first = await processTrigger(def, instanceIn(def, 'a'), t, testEffects());
    const again = await processTrigger(def, instanceIn(def, 'a'), t, testEffects());
    // Ids changed by issue 9 (item 5): the reserved `raised:` prefix, the instance id length-prefixed.
    // The causal budget (issue 22): the change spends 1 of 10,000 and shares the rest among its two raised
    // triggers and the share it keeps for a parent's notification (it enters a final state): 3,333 each.
    expect(first.raisedTriggers).toEqual([
      { id: 'raised:2:i1:t.trig-1:0', name: 'Done', subjects: ['owner:7', 'all'], parameters: { n: 7, text: 'n=7' }, causalDepth: 1, causalBudget: 3333, raisedBy: 'i1' },
      { id: 'raised:2:i1:t.trig-1:1', name: 'Second', subjects: ['all'], causalDepth: 1, causalBudget: 3333, raisedBy: 'i1' },
    ]);
    expect(again.raisedTriggers).toEqual(first.raisedTriggers);
    expect(first.decision.change!.outbox.map((row) => [row.id, row.kind])).toEqual([
      ['raised:2:i1:t.trig-1:0', 'trigger'],
      ['raised:2:i1:t.trig-1:1', 'trigger'],
    ]);
    expect(first.instance.outbox).toEqual(['raised:2:i1:t.trig-1:0', 'raised:2:i1:t.trig-1:1']);
  });

  it('does not mutate its input and calls no HTTP when no step needs it', async () => {
    const { def, effects, instance } = setup(twoStates());
    const frozen = deepFreeze(structuredClone(instance));
    await expect(processTrigger(def, frozen, trigger('Go'), effects)).resolves.toMatchObject({ outcome: 'transitioned' });
    expect(frozen).toEqual(instance);
  });
});
