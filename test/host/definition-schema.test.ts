/**
 * The JSON Schema served at GET /api/schemas/workflow-definition.json and the server agree: on a corpus
 * of broken definitions (structure, fields of each step type, nested conditions) both refuse, on valid
 * ones both accept. Checks a JSON Schema cannot express (states that must exist, JSONata syntax, unique
 * transition ids) are listed apart: the server refuses them and the schema lets them pass. The schema is
 * also checked as an editor uses it: VS Code's own JSON language service (vscode-json-languageservice)
 * gives the same verdicts, and one error for one bad step type at any depth.
 */
import { startTestHost } from '../support/local-host';
import Ajv2020 from 'ajv/dist/2020';
import { getLanguageService, TextDocument, type LanguageService } from 'vscode-json-languageservice';
import type { LocalHost } from '../../src/host/local/local-host';
import { httpClient } from './http-client';

type Definition = Record<string, any>;

function valid(): Definition {
  return {
    id: 'corpus',
    displayName: 'Corpus',
    initialStateId: 'a',
    states: {
      a: {
        interests: ['team:{{context.team}}'],
        transitions: [{ id: 't', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Go' }], actions: [{ type: 'setContext', values: { gone: true } }] }],
      },
      b: {},
    },
  };
}
const transition = (definition: Definition) => definition.states.a.transitions[0];
const withCondition = (condition: unknown) => (definition: Definition) => void (transition(definition).conditions = [condition]);
const withAction = (action: unknown) => (definition: Definition) => void (transition(definition).actions = [action]);

const broken: Record<string, (definition: Definition) => void> = {
  'no id': (d) => delete d.id,
  'an id with spaces': (d) => void (d.id = 'has spaces'),
  'no displayName': (d) => delete d.displayName,
  'a displayName over 256 characters': (d) => void (d.displayName = 'x'.repeat(257)),
  'an unknown top-level field': (d) => void (d.colour = 'red'),
  'no states': (d) => void (d.states = {}),
  'a state id over 128 characters': (d) => void (d.states['s'.repeat(129)] = {}),
  'an initialStateId that is not a string': (d) => void (d.initialStateId = 5),
  'an unknown field on a state': (d) => void (d.states.b.colour = 'red'),
  'interests that are not a list': (d) => void (d.states.a.interests = 'team'),
  'an empty interest': (d) => void (d.states.a.interests = ['']),
  'transitions that are not a list': (d) => void (d.states.a.transitions = 'go'),
  'a transition without an id': (d) => delete transition(d).id,
  'a transition without a target': (d) => delete transition(d).targetStateId,
  'an unknown field on a transition': (d) => void (transition(d).when = 'now'),
  'a condition of an unknown type': withCondition({ type: 'noSuchCondition' }),
  'a condition without a type': withCondition({ name: 'Go' }),
  'a condition that is a string': withCondition('Go'),
  'a step id over 128 characters': withCondition({ type: 'triggerName', name: 'Go', id: 'i'.repeat(129) }),
  'triggerName without a name': withCondition({ type: 'triggerName' }),
  'triggerName with an unknown field': withCondition({ type: 'triggerName', name: 'Go', extra: 1 }),
  'triggerParameter with an unknown test': withCondition({ type: 'triggerParameter', parameter: 'p', test: 'matches' }),
  'triggerParameter equals without a value': withCondition({ type: 'triggerParameter', parameter: 'p', test: 'equals' }),
  'all with no conditions': withCondition({ type: 'all', conditions: [] }),
  'all holding a condition of an unknown type': withCondition({ type: 'all', conditions: [{ type: 'triggerName', name: 'Go' }, { type: 'noSuchCondition' }] }),
  'not holding triggerName without a name': withCondition({ type: 'not', condition: { type: 'triggerName' } }),
  'any → not → all → a step without its fields, three levels deep': withCondition({
    type: 'any',
    conditions: [{ type: 'not', condition: { type: 'all', conditions: [{ type: 'triggerParameter', parameter: 'p' }] } }],
  }),
  'invokeExternalService with a timeout over 120 s': withCondition({ type: 'invokeExternalService', url: 'https://api.example.com/check', timeoutMs: 120_001 }),
  'an action of an unknown type': withAction({ type: 'noSuchAction' }),
  'setContext values that are not an object': withAction({ type: 'setContext', values: 7 }),
  'setContext remove that is not a list of names': withAction({ type: 'setContext', remove: [1] }),
  'raiseTrigger with no subjects': withAction({ type: 'raiseTrigger', trigger: { name: 'Next', subjects: [] } }),
  'raiseTrigger without a trigger name': withAction({ type: 'raiseTrigger', trigger: { subjects: ['x'] } }),
  'log without a message': withAction({ type: 'log' }),
  'an entry action that is a string': (d) => void (d.states.b.entryActions = ['log']),
  'automatic that is not a boolean': (d) => void (transition(d).automatic = 'yes'),
  'otherwise without automatic': (d) => void Object.assign(transition(d), { otherwise: true, conditions: [] }),
  'an automatic transition with a timer': (d) => void Object.assign(transition(d), { automatic: true, conditions: [], timer: { after: 'PT1M' } }),
  'an otherwise transition with conditions': (d) => void Object.assign(transition(d), { automatic: true, otherwise: true, conditions: [{ type: 'expression', expression: 'true' }] }),
};

const serverOnly: Record<string, (definition: Definition) => void> = {
  'a target state that does not exist': (d) => void (transition(d).targetStateId = 'nowhere'),
  'an initial state that does not exist': (d) => void (d.initialStateId = 'nowhere'),
  'a repeated transition id': (d) => void d.states.a.transitions.push({ ...transition(d) }),
  'a malformed JSONata expression': withCondition({ type: 'expression', expression: 'context.(' }),
  'a malformed template in an interest': (d) => void (d.states.a.interests = ['team:{{ unclosed']),
  'an automatic transition testing a trigger name': (d) => void (transition(d).automatic = true),
  'two otherwise transitions in one state': (d) =>
    void (d.states.a.transitions = [
      { id: 'x', targetStateId: 'b', automatic: true, otherwise: true },
      { id: 'y', targetStateId: 'b', automatic: true, otherwise: true },
    ]),
};

const validOnes: Record<string, (definition: Definition) => void> = {
  'the base definition': () => {},
  'automatic transitions, one of them otherwise': (d) =>
    void d.states.a.transitions.push(
      { id: 'auto', targetStateId: 'b', automatic: true, conditions: [{ type: 'expression', expression: 'context.ready = true' }] },
      { id: 'else', targetStateId: 'b', automatic: true, otherwise: true },
    ),
  'nested all, any and not': withCondition({
    type: 'all',
    conditions: [
      {
        type: 'any',
        conditions: [
          { type: 'triggerName', name: 'Go' },
          { type: 'not', condition: { type: 'triggerContentType', contentType: 'text/plain' } },
        ],
      },
      { type: 'triggerParameter', parameter: 'p', test: 'equals', value: { nested: [1, null] } },
    ],
  }),
  'every action type': (d) =>
    void (transition(d).actions = [
      { type: 'setContext', values: { a: 1 }, expressions: { b: 'trigger.name' }, remove: ['c'] },
      { type: 'raiseTrigger', trigger: { name: 'Next', subjects: ['{{instance.id}}'] } },
      { type: 'log', message: 'moved' },
    ]),
};

let host: LocalHost;
let api: ReturnType<typeof httpClient>;
let validate: ReturnType<Ajv2020['compile']>;
let editor: LanguageService;
let counter = 0;

beforeAll(async () => {
  ({ host, api } = await startTestHost('schema'));
  const served = await api.request('GET', '/api/schemas/workflow-definition.json');
  expect(served.status).toBe(200);
  expect(served.headers.get('content-type')).toContain('application/schema+json');
  validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(served.body);
  // As VS Code does for a file whose `$schema` (or a json.schemas setting) names the served schema.
  editor = getLanguageService({});
  editor.configure({ validate: true, allowComments: false, schemas: [{ uri: served.body.$id, fileMatch: ['*.workflow.json'], schema: served.body }] });
});

/** The problems VS Code's JSON language service shows for this definition: the text each marks, and why. */
async function editorProblems(definition: Definition): Promise<string[]> {
  const text = JSON.stringify(definition, null, 2);
  const document = TextDocument.create('file:///workflows/corpus.workflow.json', 'json', 1, text);
  const problems = await editor.doValidation(document, editor.parseJSONDocument(document));
  return problems.map((problem) => `${text.slice(document.offsetAt(problem.range.start), document.offsetAt(problem.range.end))}: ${problem.message}`);
}

afterAll(async () => {
  await host?.stop();
});

/** Builds the case's definition (with an id of its own, unless the case is about the id). */
function definitionFor(change: (definition: Definition) => void): Definition {
  const definition = valid();
  definition.id = `corpus-${(counter += 1)}`;
  change(definition);
  return definition;
}

async function verdicts(change: (definition: Definition) => void) {
  const definition = definitionFor(change);
  const schemaAccepts = validate(definition);
  const server = await api.request('POST', '/api/workflows', { json: definition });
  expect([201, 400]).toContain(server.status);
  const shown = await editorProblems(definition);
  return { schemaAccepts, editorAccepts: shown.length === 0, serverAccepts: server.status === 201, errors: validate.errors ?? [], shown };
}

it(`holds a corpus of ${Object.keys(broken).length} broken definitions`, () => {
  expect(Object.keys(broken).length).toBeGreaterThanOrEqual(25);
});

it.each(Object.entries(broken))('refuses %s, in the schema, in the editor and on the server', async (_name, change) => {
  const { schemaAccepts, editorAccepts, serverAccepts } = await verdicts(change);
  expect({ schemaAccepts, editorAccepts, serverAccepts }).toEqual({ schemaAccepts: false, editorAccepts: false, serverAccepts: false });
});

it.each(Object.entries(validOnes))('accepts %s, in the schema, in the editor and on the server', async (_name, change) => {
  const { schemaAccepts, editorAccepts, serverAccepts, errors, shown } = await verdicts(change);
  expect({ schemaAccepts, editorAccepts, serverAccepts, errors, shown }).toEqual({ schemaAccepts: true, editorAccepts: true, serverAccepts: true, errors: [], shown: [] });
});

it.each(Object.entries(serverOnly))('leaves %s to the server (beyond what a JSON Schema can say)', async (_name, change) => {
  const { schemaAccepts, editorAccepts, serverAccepts } = await verdicts(change);
  expect({ schemaAccepts, editorAccepts, serverAccepts }).toEqual({ schemaAccepts: true, editorAccepts: true, serverAccepts: false });
});

it('gives one error for one bad step type, at that step', async () => {
  const { errors } = await verdicts(broken['a condition of an unknown type']!);
  expect(errors.map((error) => `${error.instancePath} ${error.keyword}`)).toEqual(['/states/a/transitions/0/conditions/0/type enum']);
  // Nested, the enclosing steps only say that their own type's schema failed (`if`), never more.
  const nested = await verdicts(broken['all holding a condition of an unknown type']!);
  expect(nested.errors.filter((error) => error.keyword !== 'if').map((error) => `${error.instancePath} ${error.keyword}`)).toEqual(['/states/a/transitions/0/conditions/0/conditions/1/type enum']);
});

it('shows one problem in the editor for one bad step type, on that type, three levels deep too', async () => {
  const valueNotAccepted = expect.stringMatching(/^"noSuchCondition": Value is not accepted\. Valid values: "triggerName", .*"all", "any", "not"\.$/);
  expect((await verdicts(broken['a condition of an unknown type']!)).shown).toEqual([valueNotAccepted]);
  expect((await verdicts(broken['all holding a condition of an unknown type']!)).shown).toEqual([valueNotAccepted]);
  const deep = withCondition({ type: 'any', conditions: [{ type: 'not', condition: { type: 'all', conditions: [{ type: 'noSuchCondition' }] } }] });
  expect((await verdicts(deep)).shown).toEqual([valueNotAccepted]);
  // A good type with a missing field: that field only, not every other type's.
  // (The editor marks the object's opening brace.)
  expect((await verdicts(broken['triggerName without a name']!)).shown).toEqual(['{: Missing property "name".']);
});
