import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DefinitionInvalidError, createRegistry, defineCondition, validateDefinition, workflowDefinitionJsonSchema } from '../../src/engine';
import Ajv2020 from 'ajv/dist/2020';
import { join } from 'node:path';
import { renderSchemaFile, schemaPath } from '../../scripts/write-schema';

function issuesOf(input: unknown, registry = createRegistry()) {
  try {
    validateDefinition(input, registry);
  } catch (error) {
    expect(error).toBeInstanceOf(DefinitionInvalidError);
    return (error as DefinitionInvalidError).issues;
  }
  throw new Error('expected the definition to be invalid');
}

describe('validateDefinition', () => {
  it('lists every problem at once, each by its JSON path', () => {
    const issues = issuesOf({
      id: 'has spaces',
      displayName: 'x',
      initialStateId: 'missing',
      unknownField: 1,
      states: {
        a: {
          interests: ['ok', 'bad {{ unclosed'],
          entryConditions: [{ type: 'noSuchCondition' }],
          entryActions: [{ type: 'setContext', expressions: { x: 'a.(' } }],
          exitConditions: [{ type: 'not', condition: { type: 'triggerName' } }],
          transitions: [
            { id: 't', targetStateId: 'nowhere' },
            { id: 't', targetStateId: 'a', conditions: [{ type: 'triggerParameter', parameter: 'p', test: 'equals' }], actions: [{ type: 'noSuchAction' }] },
          ],
        },
        'b c': {
          transitions: [
            {
              id: 'x',
              targetStateId: 'a',
              actions: [
                { type: 'raiseTrigger', trigger: { name: 'N', subjects: [] } },
                { type: 'log', message: '{{}}' },
              ],
            },
          ],
        },
      },
    });
    const paths = issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'id',
        '$',
        'initialStateId',
        'states.a.interests[1]',
        'states.a.entryConditions[0].type',
        'states.a.entryActions[0].expressions.x',
        'states.a.exitConditions[0].condition.name',
        'states.a.transitions[0].targetStateId',
        'states.a.transitions[1].id',
        'states.a.transitions[1].conditions[0].value',
        'states.a.transitions[1].actions[0].type',
        'states["b c"].transitions[0].actions[0].trigger.subjects',
        'states["b c"].transitions[0].actions[1].message',
      ]),
    );
    expect(issues.find((issue) => issue.path === 'states.a.entryConditions[0].type')?.message).toContain('unknown condition type "noSuchCondition"');
    expect(issues.find((issue) => issue.path === 'states.a.entryActions[0].expressions.x')?.message).toContain('malformed expression');
    expect(issues.find((issue) => issue.path === 'states.a.transitions[1].id')?.message).toContain('repeats transitions[0]');
    expect(new Set(issues.map((issue) => `${issue.path}|${issue.message}`)).size).toBe(issues.length);
  });

  it('lists a repeated subscription id whatever else is wrong with the subscriptions', () => {
    const subscription = (id: string, url = 'https://hooks.example/signalbox') => ({ id, url });
    const issues = issuesOf({
      id: 'subscribed',
      displayName: 'Subscribed',
      initialStateId: 'a',
      states: { a: {} },
      subscriptions: [subscription('audit'), subscription('audit'), subscription('other', 'not a url'), { ...subscription('third'), events: ['noSuchEvent'] }],
    });
    expect(issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(['subscriptions[1].id', 'subscriptions[2].url', 'subscriptions[3].events[0]']));
    expect(issues.find((issue) => issue.path === 'subscriptions[1].id')?.message).toBe('subscription id "audit" repeats subscriptions[0]');
    // Alone, it is listed once.
    const alone = issuesOf({ id: 'subscribed', displayName: 'Subscribed', initialStateId: 'a', states: { a: {} }, subscriptions: [subscription('audit'), subscription('audit')] });
    expect(alone).toEqual([{ path: 'subscriptions[1].id', message: 'subscription id "audit" repeats subscriptions[0]' }]);
  });

  it('reports structural problems (missing fields, wrong types) with the semantic ones', () => {
    const issues = issuesOf({ id: 'x', initialStateId: 'a', states: { a: { transitions: 'no' } } });
    expect(issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(['displayName', 'states.a.transitions']));
    expect(issuesOf(null).map((issue) => issue.path)).toEqual(['$']);
    expect(issuesOf({ id: 'x', displayName: 'x', initialStateId: 'a', states: {} }).map((issue) => issue.path)).toEqual(['states', 'initialStateId']);
  });

  it('fills defaults and accepts a valid definition', () => {
    const definition = validateDefinition({ id: 'ok', displayName: 'ok', initialStateId: 'a', states: { a: {} } });
    expect(definition.states.a).toEqual({ interests: [], entryConditions: [], entryActions: [], exitConditions: [], exitActions: [], transitions: [] });
  });

  it('accepts types registered in code, checked against their own schema', () => {
    const custom = defineCondition({
      type: 'isWeekend',
      schema: z.strictObject({ type: z.literal('isWeekend'), id: z.string().optional(), timeZone: z.string() }),
      evaluate: () => true,
    });
    const registry = createRegistry({ conditions: [custom] });
    const input = (fields: object) => ({
      id: 'w',
      displayName: 'w',
      initialStateId: 'a',
      states: { a: { transitions: [{ id: 't', targetStateId: 'a', conditions: [{ type: 'isWeekend', ...fields }] }] } },
    });
    expect(() => validateDefinition(input({ timeZone: 'UTC' }), registry)).not.toThrow();
    expect(issuesOf(input({}), registry).map((issue) => issue.path)).toEqual(['states.a.transitions[0].conditions[0].timeZone']);
    expect(issuesOf(input({ timeZone: 'UTC' })).map((issue) => issue.path)).toEqual(['states.a.transitions[0].conditions[0].type']);
    expect(() => createRegistry({ conditions: [custom, custom] })).toThrow(RangeError);
  });
});

describe('the JSON Schema of a definition', () => {
  it('is committed in schemas/ exactly as generated (run `npx tsx scripts/write-schema.ts` after changing the model)', () => {
    expect(readFileSync(schemaPath, 'utf8')).toBe(renderSchemaFile());
  });

  // Issue 12 changed the shape: steps are discriminated by `type` (if/then per type) instead of `anyOf`.
  it('describes each registered condition and action type, discriminated by type, under its $id', () => {
    type StepDefs = { properties: { type: { enum: string[] } }; allOf: { then: { $ref: string } }[] };
    const schema = workflowDefinitionJsonSchema() as { $id: string; $defs: Record<string, StepDefs> };
    expect(schema.$id).toBe('https://signalbox.dev/schemas/workflow-definition.json');
    expect(schema.$defs.condition!.properties.type.enum).toEqual(['triggerName', 'triggerContentType', 'triggerParameter', 'expression', 'invokeExternalService', 'all', 'any', 'not']);
    expect(schema.$defs.action!.properties.type.enum).toEqual(['setContext', 'invokeExternalService', 'raiseTrigger', 'log', 'startInstance']);
    for (const kind of ['condition', 'action']) {
      for (const branch of schema.$defs[kind]!.allOf) expect(schema.$defs[branch.then.$ref.replace('#/$defs/', '')]).toBeDefined();
    }
  });

  it('compiles in a JSON Schema 2020-12 validator, accepts the examples and refuses broken definitions', () => {
    const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
    for (const file of ['expense-claim.json', 'data-catalog-item.json', 'counter.json']) {
      const example = JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', file), 'utf8'));
      expect({ file, valid: validate(example), errors: validate.errors ?? null }).toEqual({ file, valid: true, errors: null });
    }
    const broken = {
      id: 'b',
      displayName: 'B',
      initialStateId: 'a',
      states: { a: { transitions: [{ id: 't', targetStateId: 'a', conditions: [{ type: 'triggerName' }], actions: [{ type: 'setContext', values: 7 }] }] } },
    };
    expect(validate(broken)).toBe(false);
    expect(validate({ ...broken, colour: 'red', states: {} })).toBe(false);
  });
});
