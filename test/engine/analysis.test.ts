/**
 * Definition analysis on the pure definition graph: one definition per warning code, none on the
 * examples; available triggers; Mermaid diagrams checked with mermaid's own parser.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import {
  analyzeDefinition,
  availableTriggers,
  buildDefinitionGraph,
  checkDefinition,
  mermaidStateDiagram,
  onErrorLabel,
  transitionLabel,
  validateDefinition,
  type Step,
  type WorkflowDefinition,
  type WorkflowDefinitionInput,
} from '../../src/engine';
import { parseMermaid, type ParsedStateDiagram } from '../support/mermaid';

const examplesDirectory = path.join(__dirname, '../../examples');
const examples = readdirSync(examplesDirectory)
  .filter((file) => file.endsWith('.json'))
  .map((file) => validateDefinition(JSON.parse(readFileSync(path.join(examplesDirectory, file), 'utf8'))));

function define(states: WorkflowDefinitionInput['states'], initialStateId = 'a'): WorkflowDefinition {
  return validateDefinition({ id: 'analysed', displayName: 'Analysed', initialStateId, states });
}

const name = (triggerName: string): Step => ({ type: 'triggerName', name: triggerName });
const go = (id: string, targetStateId: string, ...conditions: Step[]) => ({ id, targetStateId, conditions });

/** The same definition with a timer on one transition (the schema has no `timer` until issue 13 lands). */
function withTimer(definition: WorkflowDefinition, stateId: string, index: number, timer: Record<string, string>): WorkflowDefinition {
  const state = definition.states[stateId]!;
  const transitions = state.transitions.map((transition, at) => (at === index ? { ...transition, timer } : transition));
  return { ...definition, states: { ...definition.states, [stateId]: { ...state, transitions } } };
}

function codes(definition: WorkflowDefinition) {
  return analyzeDefinition(definition).map(({ path, code }) => ({ path, code }));
}

describe('definition analysis', () => {
  it.each(examples.map((example) => [example.id, example]))('gives no warnings on the example %s', (_id, example) => {
    expect(analyzeDefinition(example)).toEqual([]);
  });

  it('unreachableState: a state no transition leads to from the initial state', () => {
    const definition = define({ a: { transitions: [go('go', 'b', name('Go'))] }, b: {}, island: { displayName: 'Island' } });
    expect(codes(definition)).toEqual([{ path: 'states.island', code: 'unreachableState' }]);
    expect(analyzeDefinition(definition)[0]!.message).toContain('"island"');
  });

  it('noWayToFinish: reachable states from which no final state can be reached', () => {
    const definition = define({
      a: { transitions: [go('go', 'b', name('Go')), go('done', 'end', name('Done'))] },
      b: { transitions: [go('on', 'c', name('On'))] },
      c: { transitions: [go('back', 'b', name('Back'))] },
      end: {},
    });
    expect(codes(definition)).toEqual([
      { path: 'states.b', code: 'noWayToFinish' },
      { path: 'states.c', code: 'noWayToFinish' },
    ]);
  });

  it('noWayToFinish is not said of a workflow with no final state at all (a long-lived entity)', () => {
    const definition = define({ a: { transitions: [go('go', 'b', name('Go'))] }, b: { transitions: [go('back', 'a', name('Back'))] } });
    expect(codes(definition)).toEqual([]);
  });

  it('shadowedTransition: an earlier transition of the same state always matches first', () => {
    const expression: Step = { type: 'expression', expression: 'context.amount > 10' };
    const definition = define({
      a: {
        transitions: [
          go('submit', 'b', name('Submit')),
          go('submit-large', 'c', name('Submit'), expression), // same name, more conditions: never reached
          go('big', 'b', expression),
          go('big-approve', 'c', { ...name('Approve'), id: 'labelled' }, { ...expression, id: 'other-label' }), // a subset of its conditions came first
          go('approve', 'b', name('Approve')),
          go('not-reject', 'b', { type: 'not', condition: name('Reject') }),
          go('cancel', 'c', { type: 'any', conditions: [name('Cancel'), name('Abort')] }), // not Reject holds for both
          go('reject', 'c', name('Reject')),
        ],
      },
      b: {},
      c: {},
    });
    expect(codes(definition)).toEqual([
      { path: 'states.a.transitions[1]', code: 'shadowedTransition' },
      { path: 'states.a.transitions[3]', code: 'shadowedTransition' },
      { path: 'states.a.transitions[6]', code: 'shadowedTransition' },
    ]);
    const [first] = analyzeDefinition(definition);
    expect(first!.message).toContain('transitions[0] ("submit")');
  });

  it('shadowedTransition is not said when the earlier transition can fail where the later holds', () => {
    const definition = define({
      a: {
        transitions: [
          go('large', 'b', name('Submit'), { type: 'expression', expression: 'context.amount > 10' }),
          go('submit', 'b', name('Submit')),
          go('clocked', 'b', { type: 'expression', expression: '$millis() % 2 = 0' }),
          go('clocked-too', 'b', { type: 'expression', expression: '$millis() % 2 = 0' }, name('Tick')),
          go('external', 'b', { type: 'invokeExternalService', url: 'https://example.com/check' }),
          go('external-too', 'b', { type: 'invokeExternalService', url: 'https://example.com/check' }, name('Tock')),
        ],
      },
      b: {},
    });
    expect(codes(definition)).toEqual([]);
  });

  it('unusedTimer: a timer transition whose conditions ask for a trigger name a timer trigger never has', () => {
    const plain = define({ a: { transitions: [go('remind', 'b', name('Remind')), go('expire', 'b')] }, b: {} });
    const definition = withTimer(withTimer(plain, 'a', 0, { after: 'PT1H' }), 'a', 1, { after: 'P7D' });
    expect(codes(definition)).toEqual([{ path: 'states.a.transitions[0].timer', code: 'unusedTimer' }]);
  });

  it('undefinedContextKey: a read of a key every path to it has removed', () => {
    const definition = define({
      a: { transitions: [go('go', 'b', name('Go'))], exitActions: [{ type: 'setContext', remove: ['amount'] }] },
      b: {
        interests: ['amount:{{context.amount}}'],
        transitions: [
          go('check', 'c', name('Check'), { type: 'expression', expression: '$exists(context.amount)' }),
          { ...go('pay', 'c', name('Pay')), actions: [{ type: 'log', message: 'paying {{context.amount}}' }] },
          {
            ...go('reset', 'c', name('Reset')),
            actions: [
              { type: 'setContext', values: { amount: 1 } },
              { type: 'log', message: '{{context.amount}}' },
            ],
          },
        ],
      },
      c: {},
    });
    expect(codes(definition)).toEqual([
      { path: 'states.b.interests[0]', code: 'undefinedContextKey' },
      { path: 'states.b.transitions[1].actions[0]', code: 'undefinedContextKey' },
    ]);
    expect(analyzeDefinition(definition)[0]!.message).toContain('context.amount');
  });

  it('undefinedContextKey is not said where some path keeps the key (it may come from the creation context)', () => {
    const definition = define({
      a: { transitions: [{ ...go('go', 'b', name('Go')), actions: [{ type: 'setContext', remove: ['amount'] }] }, go('keep', 'b', name('Keep'))] },
      b: { interests: ['amount:{{context.amount}}'], transitions: [go('pay', 'c', name('Pay'))] },
      c: { entryActions: [{ type: 'log', message: '{{context.other}}' }] },
    });
    expect(codes(definition)).toEqual([]);
  });

  it('selfLoopWithoutActions: a transition back to its own state that runs nothing', () => {
    const definition = define({
      a: { transitions: [go('ping', 'a', name('Ping')), go('done', 'b', name('Done'))] },
      b: { entryActions: [{ type: 'log', message: 'entered' }], transitions: [go('again', 'b', name('Again')), go('end', 'c', name('End'))] },
      c: {},
    });
    expect(codes(definition)).toEqual([{ path: 'states.a.transitions[0]', code: 'selfLoopWithoutActions' }]);
  });

  it('startsItself: a startInstance of its own workflow, from the initial state on every creation, or anywhere else', () => {
    const definition = define({
      a: {
        entryActions: [
          { type: 'log', message: 'born' },
          { type: 'startInstance', workflowId: 'analysed' },
        ],
        transitions: [go('go', 'b', name('Go'))],
      },
      b: {
        transitions: [
          {
            ...go('fork', 'c', name('Fork')),
            actions: [
              { type: 'startInstance', workflowId: 'analysed' },
              { type: 'startInstance', workflowId: 'other' },
            ],
          },
        ],
      },
      c: {},
    });
    expect(codes(definition)).toEqual([
      { path: 'states.a.entryActions[1]', code: 'startsItself' },
      { path: 'states.b.transitions[0].actions[0]', code: 'startsItself' },
    ]);
    const [atCreation, elsewhere] = analyzeDefinition(definition);
    expect(atCreation!.message).toContain('every instance starts another');
    expect(elsewhere!.message).toContain('when that instance gets here too');
  });

  it.each([
    ['after PT0S', { after: 'PT0S' }],
    ['after P0DT0H', { after: 'P0DT0H' }],
    ['a constant "at"', { at: '"2000-01-01T00:00:00Z"' }],
    ['"at" $now()', { at: '$now()' }],
  ])('timerLoop: a timer due at once (%s) that re-enters its own state', (_label, timer) => {
    const looping = validateDefinition({
      id: 'ticker',
      displayName: 'Ticker',
      initialStateId: 'tick',
      states: {
        tick: { transitions: [{ id: 'again', targetStateId: 'tick', timer, actions: [{ type: 'log', message: 'tick' }] }, go('stop', 'done', name('Stop'))] },
        done: {},
      },
    });
    expect(codes(looping)).toEqual([{ path: 'states.tick.transitions[0].timer', code: 'timerLoop' }]);
  });

  it('timerLoop: through two states whose timers are both due at once; not for a real delay, a condition or a way out', () => {
    const twoStates = (after: string, conditions: Step[] = []) =>
      validateDefinition({
        id: 'swing',
        displayName: 'Swing',
        initialStateId: 'a',
        states: {
          a: { transitions: [{ id: 'toB', targetStateId: 'b', timer: { after: 'PT0S' }, conditions }, go('stop', 'done', name('Stop'))] },
          b: { entryActions: [{ type: 'log', message: 'b' }], transitions: [{ id: 'toA', targetStateId: 'a', timer: { after } }] },
          done: {},
        },
      });
    expect(codes(twoStates('PT0S'))).toEqual([
      { path: 'states.a.transitions[0].timer', code: 'timerLoop' },
      { path: 'states.b.transitions[0].timer', code: 'timerLoop' },
    ]);
    expect(codes(twoStates('PT1M'))).toEqual([]);
    expect(codes(twoStates('PT0S', [{ type: 'expression', expression: 'context.n < 3' }]))).toEqual([]);
  });

  it('automaticLoop: automatic transitions that lead back to their own state; not through a triggered transition', () => {
    const loop = define({
      a: { transitions: [{ id: 'go', targetStateId: 'b', conditions: [name('Go')] }] },
      b: { transitions: [{ id: 'toC', targetStateId: 'c', automatic: true, conditions: [{ type: 'expression', expression: 'context.n < 3' }] }] },
      c: { transitions: [{ id: 'toB', targetStateId: 'b', automatic: true, otherwise: true }] },
    });
    expect(codes(loop)).toEqual([
      { path: 'states.b.transitions[0]', code: 'automaticLoop' },
      { path: 'states.c.transitions[0]', code: 'automaticLoop' },
    ]);
    expect(analyzeDefinition(loop)[0]!.message).toContain('the limit of 32 steps in one change');
    const broken = define({
      a: { transitions: [{ id: 'toB', targetStateId: 'b', automatic: true, conditions: [{ type: 'expression', expression: 'context.ready' }] }] },
      b: {
        transitions: [
          { id: 'back', targetStateId: 'a', conditions: [name('Back')] },
          { id: 'done', targetStateId: 'done', conditions: [name('Done')] },
        ],
      },
      done: {},
    });
    expect(codes(broken)).toEqual([]);
  });

  it('nothingWaits: a state its automatic transitions always leave, yet with triggers, timers or interests to wait for', () => {
    const routing = (extra: Record<string, unknown>) =>
      define({
        a: { ...extra, transitions: [{ id: 'else', targetStateId: 'b', automatic: true, otherwise: true }, go('go', 'b', name('Go'))] },
        b: {},
      });
    expect(codes(routing({}))).toEqual([{ path: 'states.a', code: 'nothingWaits' }]);
    expect(analyzeDefinition(routing({}))[0]!.message).toBe(
      'state "a" is always left at once by its automatic transition "else" (an `otherwise`): nothing can wait there, so its transitions "go" are never taken',
    );
    // Exit conditions may keep an instance there: nothing to say.
    expect(codes(routing({ exitConditions: [{ type: 'expression', expression: 'context.open' }] }))).toEqual([]);
    // An automatic transition without conditions always holds too; interests only a waiting instance uses.
    const unconditional = define({ a: { interests: ['team'], transitions: [{ id: 'on', targetStateId: 'b', automatic: true }] }, b: {} });
    expect(codes(unconditional)).toEqual([{ path: 'states.a', code: 'nothingWaits' }]);
    // A routing state, left by its automatic transitions only, is what they are for.
    expect(codes(define({ a: { transitions: [{ id: 'on', targetStateId: 'b', automatic: true }] }, b: {} }))).toEqual([]);
  });

  it('shadowedTransition compares automatic transitions among themselves, never with triggered ones', () => {
    const definition = define({
      a: {
        transitions: [
          { id: 'first', targetStateId: 'b', automatic: true, conditions: [{ type: 'expression', expression: 'context.x' }] },
          { id: 'go', targetStateId: 'b', conditions: [{ type: 'expression', expression: 'context.x' }] },
          {
            id: 'second',
            targetStateId: 'b',
            automatic: true,
            conditions: [
              { type: 'expression', expression: 'context.x' },
              { type: 'expression', expression: 'context.y' },
            ],
          },
        ],
      },
      b: {},
    });
    expect(codes(definition)).toEqual([{ path: 'states.a.transitions[2]', code: 'shadowedTransition' }]);
  });

  it('checkDefinition answers errors for an invalid definition and warnings for a valid one', () => {
    expect(checkDefinition({ id: 'x', displayName: 'X', initialStateId: 'missing', states: { a: {} } })).toEqual({
      valid: false,
      errors: [{ path: 'initialStateId', message: expect.any(String) }],
      warnings: [],
    });
    const checked = checkDefinition({ id: 'x', displayName: 'X', initialStateId: 'a', states: { a: {}, b: {} } });
    expect(checked).toMatchObject({ valid: true, errors: [], warnings: [{ path: 'states.b', code: 'unreachableState' }] });
  });
});

describe('available triggers', () => {
  const expense = examples.find((example) => example.id === 'expense-claim')!;
  const catalog = examples.find((example) => example.id === 'data-catalog-item')!;

  it('lists the current state transitions with their trigger names and targets', () => {
    expect(availableTriggers(expense, { status: 'waiting', stateId: 'waiting-for-submission' })).toEqual({
      status: 'waiting',
      stateId: 'waiting-for-submission',
      items: [
        { transitionId: 'update', triggerNames: ['Update'], parameters: [], targetStateId: 'waiting-for-submission' },
        { transitionId: 'submit', triggerNames: ['Submit'], parameters: [], targetStateId: 'waiting-for-approval' },
        { transitionId: 'abandon', triggerNames: ['Abandon'], parameters: [], targetStateId: 'abandoned' },
      ],
    });
  });

  it('names the parameters that triggerParameter conditions test', () => {
    const { items } = availableTriggers(catalog, { status: 'waiting', stateId: 'waiting-for-documentation' });
    expect(items[0]).toEqual({ transitionId: 'edit-documented', triggerNames: ['Edit'], parameters: [{ name: 'description', test: 'notEquals', value: '' }], targetStateId: 'published' });
  });

  it('reads names and parameters through all, any and not, and answers "*" for any name', () => {
    const definition = define({
      a: {
        transitions: [
          go('either', 'b', { type: 'any', conditions: [name('B'), name('A')] }, { type: 'triggerParameter', parameter: 'ok', test: 'exists' }),
          go('not-c', 'b', { type: 'not', condition: { type: 'all', conditions: [name('C'), { type: 'triggerParameter', parameter: 'force', test: 'equals', value: true }] } }),
          go('not-d', 'b', { type: 'not', condition: name('D') }),
          go('anything', 'b', { type: 'expression', expression: 'true' }),
          go('never', 'b', name('E'), name('F')),
          go('neither', 'b', {
            type: 'not',
            condition: {
              type: 'any',
              conditions: [
                { type: 'triggerParameter', parameter: 'x', test: 'exists' },
                { type: 'triggerParameter', parameter: 'y', test: 'exists' },
              ],
            },
          }),
        ],
      },
      b: {},
    });
    const { items } = availableTriggers(definition, { status: 'waiting', stateId: 'a' });
    expect(items.map(({ transitionId, triggerNames, exceptTriggerNames, parameters }) => ({ transitionId, triggerNames, exceptTriggerNames, parameters }))).toEqual([
      { transitionId: 'either', triggerNames: ['A', 'B'], exceptTriggerNames: undefined, parameters: [{ name: 'ok', test: 'exists' }] },
      { transitionId: 'not-c', triggerNames: ['*'], exceptTriggerNames: undefined, parameters: [{ name: 'force', test: 'equals', value: true, negated: true, alternative: true }] },
      { transitionId: 'not-d', triggerNames: ['*'], exceptTriggerNames: ['D'], parameters: [] },
      { transitionId: 'anything', triggerNames: ['*'], exceptTriggerNames: undefined, parameters: [] },
      { transitionId: 'never', triggerNames: [], exceptTriggerNames: undefined, parameters: [] },
      // not(any(x, y)): both must be absent, neither is an alternative
      {
        transitionId: 'neither',
        triggerNames: ['*'],
        exceptTriggerNames: undefined,
        parameters: [
          { name: 'x', test: 'exists', negated: true },
          { name: 'y', test: 'exists', negated: true },
        ],
      },
    ]);
  });

  it('shows a timer transition with its timer and the due time the instance shows', () => {
    const definition = withTimer(define({ a: { transitions: [go('go', 'b', name('Go')), go('expire', 'b')] }, b: {} }), 'a', 1, { after: 'PT48H' });
    const instance = { status: 'waiting' as const, stateId: 'a', timers: [{ transitionId: 'expire', dueAt: '2026-01-03T00:00:00.000Z' }] };
    expect(availableTriggers(definition, instance).items[1]).toEqual({
      transitionId: 'expire',
      triggerNames: [],
      parameters: [],
      targetStateId: 'b',
      timer: { after: 'PT48H', dueAt: '2026-01-03T00:00:00.000Z' },
    });
  });

  it.each(['complete', 'faulted', 'cancelled', 'initializing'] as const)('answers an empty list for a %s instance', (status) => {
    expect(availableTriggers(expense, { status, stateId: 'waiting-for-submission' })).toEqual({ status, stateId: 'waiting-for-submission', items: [] });
  });
});

describe('Mermaid diagrams', () => {
  const expense = examples.find((example) => example.id === 'expense-claim')!;
  const timed = withTimer(define({ a: { transitions: [go('expire', 'b'), go('not-d', 'b', { type: 'not', condition: name('D') })] }, b: {} }), 'a', 0, { after: 'PT48H', calendar: 'office' });
  const awkward = define(
    {
      'state with "quotes"': {
        displayName: 'Waiting; for #1 "big" approval %% now\nplease',
        transitions: [go('t', 'end state', name('Go: now; #1 "x" %%'))],
      },
      'end state': { displayName: 'État final → done' },
    },
    'state with "quotes"',
  );
  // Markup, Mermaid syntax and control characters in every label: each must be drawn as the text it is.
  const hostileName = '<a href="javascript:alert(1)">link</a><form action="https://evil.example/"><input name="password"></form><img src=x onerror="alert(1)">';
  const hostile = define(
    {
      'a<i>': {
        displayName: `Start ${hostileName} \`**md**\` {x} [y] |z| &amp; &lt;b&gt; \u001b]52;c;eA==\u0007 end`,
        transitions: [go('t', 'b', name(`Go ${hostileName} -->  &#60;i&#62; \u009b2J`)), go('u', 'b', { type: 'not', condition: name('<b>not</b>') })],
      },
      b: { displayName: '<script>window.signalboxOwned = true</script>done' },
    },
    'a<i>',
  );
  const cases: { title: string; definition: WorkflowDefinition; highlightStateId?: string }[] = [
    ...examples.map((example) => ({ title: example.id, definition: example })),
    { title: 'expense-claim, one state highlighted', definition: expense, highlightStateId: 'waiting-for-approval' },
    { title: 'a timer and an exclusion', definition: timed },
    { title: 'names Mermaid would otherwise misread', definition: awkward, highlightStateId: 'state with "quotes"' },
    { title: 'names that hold markup and control characters', definition: hostile, highlightStateId: 'a<i>' },
  ];
  const texts = cases.map(({ definition, highlightStateId }) => mermaidStateDiagram(buildDefinitionGraph(definition), { highlightStateId }));
  let parsed: ParsedStateDiagram[];

  beforeAll(async () => {
    parsed = await parseMermaid(texts);
  });

  // A label is one line: line breaks and other control characters are drawn as a space.
  const flat = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();

  it.each(cases.map((testCase, index) => [testCase.title, index] as const))('draws every state and transition of %s in valid Mermaid', (_title, index) => {
    const { definition, highlightStateId } = cases[index]!;
    const graph = buildDefinitionGraph(definition);
    const diagram = parsed[index]!;
    expect(diagram.type).toBe('stateDiagram');
    const drawn = diagram.states.filter((state) => state.descriptions.length);
    expect(drawn.map((state) => state.descriptions[0]).sort()).toEqual(graph.states.map((state) => flat(state.displayName)).sort());
    const idOf = (stateId: string) => drawn.find((state) => state.descriptions[0] === flat(graph.state(stateId)!.displayName))!.id;
    const relations = diagram.relations.map(({ from, to, label }) => `${from} -> ${to}: ${label}`).sort();
    const expected = [
      ...graph.transitions.map((edge) => `${idOf(edge.stateId)} -> ${idOf(edge.targetStateId)}: ${flat(transitionLabel(edge))}`),
      // Where errors go: each transition's and state's onError.
      ...Object.entries(definition.states).flatMap(([stateId, state]) => [
        ...state.transitions.flatMap((transition) =>
          transition.onError ? [`${idOf(stateId)} -> ${idOf(transition.onError.targetStateId)}: ${flat(onErrorLabel(transition.onError, transition.displayName ?? transition.id))}`] : [],
        ),
        ...(state.onError ? [`${idOf(stateId)} -> ${idOf(state.onError.targetStateId)}: ${flat(onErrorLabel(state.onError))}`] : []),
      ]),
      `root_start -> ${idOf(graph.initialStateId)}: `,
      ...graph.states.filter((state) => state.final).map((state) => `${idOf(state.id)} -> root_end: `),
    ].sort();
    expect(relations).toEqual(expected);
    const highlighted = diagram.states.filter((state) => state.classes.includes('current')).map((state) => state.id);
    expect(highlighted).toEqual(highlightStateId === undefined ? [] : [idOf(highlightStateId)]);
    // Labels are text: drawn, they make no element (no link, form, input, image or script).
    expect(diagram.elements).toEqual([]);
  });

  it('writes no markup character and no control character into a label', () => {
    const text = texts[cases.findIndex((testCase) => testCase.definition === hostile)]!;
    const labels = [...text.matchAll(/^ {4}state "(.*)" as s\d+$|^ {4}s\d+ --> s\d+: (.*)$/gm)].map((match) => match[1] ?? match[2]!);
    expect(labels).toHaveLength(4);
    for (const label of labels) expect(label).not.toMatch(/[<>&`*_{}[\]|"\u0000-\u001f\u007f-\u009f]/);
  });

  it('labels transitions with trigger names or their timer, marks initial and final states, highlights a state', () => {
    const text = texts[cases.findIndex((testCase) => testCase.highlightStateId === 'waiting-for-approval')]!;
    expect(text).toContain('state "Waiting for approval" as s1');
    expect(text).toContain('[*] --> s0');
    expect(text).toContain('s1 --> s2: Approve');
    expect(text).toContain('s5 --> [*]');
    // Automatic transitions: `auto` (with the display name), `otherwise`.
    expect(text).toContain('s2 --> s3: auto: over 1,000');
    expect(text).toContain('s2 --> s4: otherwise');
    expect(text).toContain('class s1 current');
    const timedText = texts[cases.findIndex((testCase) => testCase.definition === timed)]!;
    expect(timedText).toContain('s0 --> s1: timer: after PT48H (office calendar)');
    expect(timedText).toContain('s0 --> s1: any trigger except D');
  });
});
