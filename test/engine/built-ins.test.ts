import { validateDefinition, type JsonObject, type Trigger } from '../../src/engine';
import { instanceIn, processTrigger, testEffects, trigger } from './support';

/** Whether `condition` lets a trigger through (a one-transition workflow). */
async function holds(condition: object, t: Trigger, context: JsonObject = {}) {
  const def = validateDefinition({
    id: 'c',
    displayName: 'c',
    initialStateId: 'a',
    states: { a: { transitions: [{ id: 't', targetStateId: 'b', conditions: [condition as never] }] }, b: {} },
  });
  const result = await processTrigger(def, instanceIn(def, 'a', { context }), t, testEffects());
  if (result.outcome === 'faulted') throw new Error(result.instance.fault?.message);
  return result.outcome === 'transitioned';
}

/** Runs `actions` on a transition; returns the processing result. */
async function act(actions: object[], t: Trigger = trigger('Go', { parameters: { at: '2026-02-02', amount: 3, who: { name: 'ann' } } }), context: JsonObject = {}) {
  const def = validateDefinition({
    id: 'act',
    displayName: 'act',
    initialStateId: 'a',
    states: { a: { transitions: [{ id: 't', targetStateId: 'b', actions: actions as never }] }, b: { transitions: [{ id: 'back', targetStateId: 'a' }] } },
  });
  const effects = testEffects();
  return { result: await processTrigger(def, instanceIn(def, 'a', { context }), t, effects), log: effects.log };
}

describe('built-in conditions', () => {
  it('triggerName', async () => {
    expect(await holds({ type: 'triggerName', name: 'Go' }, trigger('Go'))).toBe(true);
    expect(await holds({ type: 'triggerName', name: 'Go' }, trigger('go'))).toBe(false);
  });

  it('triggerContentType', async () => {
    expect(await holds({ type: 'triggerContentType', contentType: 'application/json' }, trigger('x', { contentType: 'application/json' }))).toBe(true);
    expect(await holds({ type: 'triggerContentType', contentType: 'application/json' }, trigger('x'))).toBe(false);
  });

  it('triggerParameter: equals / notEquals need the parameter to exist; exists / notExists', async () => {
    const withP = trigger('x', { parameters: { p: { a: [1, 2] }, n: null } });
    const without = trigger('x', { parameters: {} });
    const cases: [object, Trigger, boolean][] = [
      [{ test: 'equals', value: { a: [1, 2] } }, withP, true],
      [{ test: 'equals', value: { a: [2, 1] } }, withP, false],
      [{ test: 'equals', value: null }, without, false],
      [{ test: 'notEquals', value: 3 }, withP, true],
      [{ test: 'notEquals', value: 3 }, without, false],
      [{ test: 'exists' }, withP, true],
      [{ test: 'exists' }, without, false],
      [{ test: 'exists' }, trigger('x'), false],
      [{ test: 'notExists' }, without, true],
      [{ test: 'notExists' }, withP, false],
    ];
    for (const [fields, t, expected] of cases) {
      expect([fields, await holds({ type: 'triggerParameter', parameter: 'p', ...fields }, t)]).toEqual([fields, expected]);
    }
    // A null value exists (it is present in the parameters).
    expect(await holds({ type: 'triggerParameter', parameter: 'n', test: 'equals', value: null }, withP)).toBe(true);
  });

  it('expression: sees trigger, context and instance; must yield a boolean', async () => {
    const t = trigger('Go', { parameters: { amount: 50 } });
    expect(await holds({ type: 'expression', expression: 'trigger.parameters.amount > context.limit and instance.stateId = "a" and instance.status = "waiting"' }, t, { limit: 10 })).toBe(true);
    expect(await holds({ type: 'expression', expression: 'trigger.parameters.amount > context.limit' }, t, { limit: 100 })).toBe(false);
    await expect(holds({ type: 'expression', expression: 'context.missing' }, t)).rejects.toThrow('yielded nothing, not a boolean');
  });

  it('all / any / not short-circuit (the later, failing condition is never evaluated)', async () => {
    const boom = { type: 'expression', expression: '$error("evaluated")' };
    const yes = { type: 'expression', expression: 'true' };
    const no = { type: 'expression', expression: 'false' };
    expect(await holds({ type: 'all', conditions: [yes, yes] }, trigger('x'))).toBe(true);
    expect(await holds({ type: 'all', conditions: [no, boom] }, trigger('x'))).toBe(false);
    expect(await holds({ type: 'any', conditions: [yes, boom] }, trigger('x'))).toBe(true);
    expect(await holds({ type: 'any', conditions: [no, no] }, trigger('x'))).toBe(false);
    expect(await holds({ type: 'not', condition: no }, trigger('x'))).toBe(true);
    expect(await holds({ type: 'not', condition: { type: 'all', conditions: [yes, yes] } }, trigger('x'))).toBe(false);
    await expect(holds({ type: 'all', conditions: [yes, boom] }, trigger('x'))).rejects.toThrow('evaluated');
  });
});

describe('built-in actions', () => {
  it('setContext: values, then expressions (against the context before the action), then remove; nothing leaves a key as it was', async () => {
    const { result } = await act(
      [
        {
          type: 'setContext',
          values: { fixed: { deep: [1] }, count: 100 },
          expressions: {
            stampedAt: '$now()',
            submittedAt: 'trigger.parameters.at',
            doubled: 'context.count * 2',
            who: 'trigger.parameters.who.name',
            gone: 'trigger.parameters.nothing',
            names: 'context.items.name',
          },
          remove: ['old'],
        },
      ],
      undefined,
      { count: 2, old: true, gone: 'was here', items: [{ name: 'x' }, { name: 'y' }] },
    );
    expect(result.instance.context).toEqual({
      stampedAt: '2026-01-01T00:00:00.000Z',
      gone: 'was here',
      count: 100,
      fixed: { deep: [1] },
      submittedAt: '2026-02-02',
      doubled: 4,
      who: 'ann',
      names: ['x', 'y'],
      items: [{ name: 'x' }, { name: 'y' }],
    });
  });

  it('raiseTrigger: renders name, subjects and parameters from templates; a value-only placeholder keeps its type', async () => {
    const { result } = await act([
      {
        type: 'raiseTrigger',
        trigger: {
          name: 'Paid{{trigger.parameters.amount}}',
          subjects: ['claim:{{instance.id}}', 'none:{{context.nothing}}'],
          contentType: 'text/plain',
          parameters: { amount: '{{trigger.parameters.amount}}', who: '{{trigger.parameters.who}}', text: 'by {{trigger.parameters.who.name}}', list: ['{{trigger.parameters.amount}}'] },
        },
      },
    ]);
    expect(result.raisedTriggers).toEqual([
      {
        id: expect.stringMatching(/^raised:2:i1:t\..*:0$/),
        name: 'Paid3',
        subjects: ['claim:i1'],
        contentType: 'text/plain',
        parameters: { amount: 3, who: { name: 'ann' }, text: 'by ann', list: [3] },
        causalDepth: 1,
        causalBudget: 9999,
        raisedBy: 'i1',
      },
    ]);
  });

  it('raiseTrigger: a trigger whose every subject renders empty is a fault', async () => {
    const { result } = await act([{ type: 'raiseTrigger', trigger: { name: 'X', subjects: ['a:{{context.none}}'] } }]);
    expect(result.outcome).toBe('faulted');
    expect(result.instance.fault?.message).toContain('has no subjects');
  });

  it('raiseTrigger: a rendered trigger the dispatcher would refuse (too large) is a fault now, not a stuck outbox', async () => {
    const { result } = await act([{ type: 'raiseTrigger', trigger: { name: 'Big', subjects: ['s'], parameters: { blob: '{{context.blob}}' } } }], undefined, { blob: 'x'.repeat(70 * 1024) });
    expect(result.outcome).toBe('faulted');
    expect(result.instance.fault?.message).toContain('the raised trigger "Big" is invalid');
  });

  it('log: a line with the rendered message, the instance id and the state', async () => {
    const t = trigger('Go', { parameters: { amount: 3 } });
    const { log } = await act(
      [
        { type: 'log', message: 'amount {{trigger.parameters.amount}} for {{context.missing}}!' },
        { type: 'log', level: 'warn', message: 'careful' },
      ],
      t,
    );
    expect(log.lines).toEqual([
      { level: 'info', message: 'amount 3 for !', properties: { instanceId: 'i1', workflowId: 'act', stateId: 'a', triggerId: t.id } },
      { level: 'warn', message: 'careful', properties: { instanceId: 'i1', workflowId: 'act', stateId: 'a', triggerId: t.id } },
    ]);
  });
});
