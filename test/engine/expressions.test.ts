import jsonata from 'jsonata';
import { ExpressionSyntaxError, compileExpression, evaluateExpression, parseTemplate, renderTemplate, toTriggerId, type ExpressionScope } from '../../src/engine';

const scope: ExpressionScope = {
  trigger: { id: 't', name: 'Go', subjects: ['s'], parameters: { at: '2026', nested: { list: [1, 2], one: [3] }, rows: [{ v: 1 }, { v: 2 }], n: null } },
  context: { amount: 10, name: 'ann', flag: false },
  instance: { id: 'i1', workflowId: 'w', stateId: 'a', status: 'waiting' },
};

describe('expressions', () => {
  it('answers plain paths exactly as JSONata does (the fast path must not change meaning)', async () => {
    const paths = [
      'trigger.parameters.at',
      'trigger.parameters.nested',
      'trigger.parameters.nested.list',
      'trigger.parameters.nested.one',
      'trigger.parameters.rows.v',
      'trigger.parameters.n',
      'trigger.parameters.missing.deeper',
      'context.name.length',
      'context.flag',
      'instance.stateId',
      'true',
      'null',
    ];
    for (const path of paths) {
      const expected = await jsonata(path).evaluate(scope);
      const actual = await evaluateExpression(path, scope);
      expect([path, actual]).toEqual([path, expected === undefined ? undefined : JSON.parse(JSON.stringify(expected))]);
    }
  });

  it('evaluates full JSONata and normalises sequences to plain JSON', async () => {
    expect(await evaluateExpression('context.amount * 2 + $count(trigger.subjects)', scope)).toBe(21);
    expect(await evaluateExpression('trigger.parameters.rows[v > 1].v', scope)).toBe(2);
    expect(await evaluateExpression('trigger.parameters.rows.{ "x": v }', scope)).toEqual([{ x: 1 }, { x: 2 }]);
  });

  it('$now() and $millis() read the engine clock when one is given (deterministic under a fake clock)', async () => {
    const now = () => new Date('2026-03-04T05:06:07.089Z');
    expect(await evaluateExpression('$now()', scope, { now })).toBe('2026-03-04T05:06:07.089Z');
    expect(await evaluateExpression('$millis()', scope, { now })).toBe(Date.parse('2026-03-04T05:06:07.089Z'));
    expect(await evaluateExpression("$now('[Y0001]-[M01]-[D01]')", scope, { now })).toBe('2026-03-04');
    expect(await renderTemplate('at {{$now()}}', scope, 'empty', { now })).toBe('at 2026-03-04T05:06:07.089Z');
  });

  it('compiles once per source text (once evaluated: validation alone caches nothing) and reports syntax errors with a position', async () => {
    await evaluateExpression('context.amount + 1', scope);
    expect(compileExpression('context.amount + 1')).toBe(compileExpression('context.amount + 1'));
    expect(() => compileExpression('context.(')).toThrow(ExpressionSyntaxError);
  });
});

describe('templates', () => {
  it('renders placeholders; a missing value makes an interest undefined but a message empty', async () => {
    expect(await renderTemplate('claimant:{{ context.name }}/{{context.amount}}', scope, 'undefined')).toBe('claimant:ann/10');
    expect(await renderTemplate('x:{{context.none}}', scope, 'undefined')).toBeUndefined();
    expect(await renderTemplate('x:{{context.none}}!', scope, 'empty')).toBe('x:!');
    expect(await renderTemplate('{{trigger.parameters.nested}}', scope, 'empty')).toBe('{"list":[1,2],"one":[3]}');
    expect(await renderTemplate('no placeholders', scope, 'undefined')).toBe('no placeholders');
  });

  it('rejects unclosed, empty and malformed placeholders', () => {
    expect(() => parseTemplate('a {{ b')).toThrow('unclosed');
    expect(() => parseTemplate('a {{ }}')).toThrow('empty');
    expect(() => parseTemplate('a {{ b.( }}')).toThrow('malformed expression');
  });
});

describe('raised trigger ids', () => {
  it('keeps valid ids, and maps others deterministically into the id charset and length', () => {
    expect(toTriggerId('t1.i1.0')).toBe('t1.i1.0');
    const odd = toTriggerId('t 1/é.i1.0');
    expect(odd).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(odd).toBe(toTriggerId('t 1/é.i1.0'));
    expect(odd).not.toBe(toTriggerId('t_1/é.i1.0'));
    const long = toTriggerId(`${'x'.repeat(200)}.i1.0`);
    expect(long.length).toBeLessThanOrEqual(128);
    expect(long).not.toBe(toTriggerId(`${'x'.repeat(200)}.i1.1`));
  });
});
