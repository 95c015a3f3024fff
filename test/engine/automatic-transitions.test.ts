/**
 * Automatic transitions: taken without a trigger after a state is entered (creation, a transition,
 * recovery, migration) and its entry actions have run, first holding in definition order, `otherwise`
 * when none other holds, followed in the same change up to MAX_AUTOMATIC_STEPS. In-memory engine.
 */
import { DefinitionInvalidError, MAX_AUTOMATIC_STEPS, validateDefinition, type ExternalRequest, type ExternalResponse, type WorkflowDefinitionInput } from '../../src/engine';
import { availableTriggers } from '../../src/engine/analysis';
import { testEngine, trigger } from './support';

/** `Submit` sets the amount; `routing` sends large amounts to a second approval, small ones straight to payment. */
const claim: WorkflowDefinitionInput = {
  id: 'claim',
  displayName: 'Claim',
  initialStateId: 'draft',
  subscriptions: [{ id: 'audit', url: 'https://audit.example/hook' }],
  states: {
    draft: {
      transitions: [
        { id: 'submit', targetStateId: 'routing', conditions: [{ type: 'triggerName', name: 'Submit' }], actions: [{ type: 'setContext', expressions: { amount: 'trigger.parameters.amount' } }] },
      ],
    },
    routing: {
      entryActions: [{ type: 'setContext', values: { routed: true } }],
      transitions: [
        { id: 'pay-directly', targetStateId: 'payment', automatic: true, otherwise: true },
        { id: 'second-approval', targetStateId: 'second', automatic: true, conditions: [{ type: 'expression', expression: 'context.amount > 1000' }] },
        { id: 'huge', targetStateId: 'board', automatic: true, conditions: [{ type: 'expression', expression: 'context.amount > 100000' }] },
      ],
    },
    second: { interests: ['directors'], transitions: [{ id: 'approve', targetStateId: 'payment', conditions: [{ type: 'triggerName', name: 'Approve' }] }] },
    board: {},
    payment: { interests: ['finance'], transitions: [{ id: 'pay', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Pay' }] }] },
    paid: {},
  },
};

async function started(definition: WorkflowDefinitionInput = claim, instanceId = 'c1', context = {}) {
  const test = testEngine();
  await test.engine.createWorkflow(test.engine.validateWorkflow(definition));
  await test.engine.createInstance({ workflowId: definition.id, instanceId, context });
  return test;
}

describe('automatic transitions', () => {
  it('take the first automatic transition whose conditions hold, in definition order, in the change that entered the state', async () => {
    const { engine } = await started();
    const result = await engine.applyTrigger('c1', trigger('Submit', { subjects: ['c1'], parameters: { amount: 5000 } }));
    // The result names the trigger's transition and where the change left the instance.
    expect(result).toMatchObject({ outcome: 'transitioned', transitionId: 'submit', fromStateId: 'draft', toStateId: 'second' });
    const instance = await engine.getInstance('c1');
    expect(instance).toMatchObject({ stateId: 'second', status: 'waiting', context: { amount: 5000, routed: true }, historyLength: 3, stateEntry: 2 });
    // Interests are those of the state the chain ended in.
    expect(instance.interests).toEqual(expect.arrayContaining(['c1', 'directors', 'Approve']));
    // Each step is its own history entry, with the trigger that caused the change.
    const history = (await engine.getHistory('c1')).items;
    expect(history.map(({ sequence, event, triggerId, transitionId, fromStateId, toStateId, status }) => ({ sequence, event, triggerId, transitionId, fromStateId, toStateId, status }))).toEqual([
      { sequence: 0, event: 'created', triggerId: null, transitionId: null, fromStateId: null, toStateId: 'draft', status: 'waiting' },
      { sequence: 1, event: 'transitioned', triggerId: expect.any(String), transitionId: 'submit', fromStateId: 'draft', toStateId: 'routing', status: 'waiting' },
      { sequence: 2, event: 'transitioned', triggerId: history[1]!.triggerId, transitionId: 'second-approval', fromStateId: 'routing', toStateId: 'second', status: 'waiting' },
    ]);
    // The decision trace has the automatic conditions evaluated, after the trigger's own.
    expect(result.trace?.map((entry) => [entry.path, entry.result])).toEqual([
      ['states.draft.transitions[0].conditions[0]', true],
      ['states.routing.transitions[1].conditions[0]', true],
    ]);
  });

  it('take `otherwise` only when no other automatic transition holds, wherever it is listed', async () => {
    const { engine } = await started();
    const result = await engine.applyTrigger('c1', trigger('Submit', { subjects: ['c1'], parameters: { amount: 50 } }));
    expect(result).toMatchObject({ outcome: 'transitioned', toStateId: 'payment' });
    expect((await engine.getHistory('c1')).items.map((entry) => entry.transitionId)).toEqual([null, 'submit', 'pay-directly']);
    expect(result.trace?.map((entry) => [entry.path, entry.result])).toEqual([
      ['states.draft.transitions[0].conditions[0]', true],
      ['states.routing.transitions[1].conditions[0]', false],
      ['states.routing.transitions[2].conditions[0]', false],
    ]);
  });

  it('emit one lifecycle event per step, each with its own states', async () => {
    const { engine } = await started();
    await engine.applyTrigger('c1', trigger('Submit', { subjects: ['c1'], parameters: { amount: 50 } }));
    const events = (await engine.listEvents('c1')).items;
    expect(events.map((event) => [event.type, event.sequence, event.data.previousStateId, event.data.stateId, event.data.transitionId])).toEqual([
      ['created', 0, null, 'draft', null],
      ['transitioned', 1, 'draft', 'routing', 'submit'],
      ['transitioned', 2, 'routing', 'payment', 'pay-directly'],
    ]);
  });

  it('are followed on creation, each step one history entry, and end a chain in a final state complete', async () => {
    const chain: WorkflowDefinitionInput = {
      id: 'chain',
      displayName: 'Chain',
      initialStateId: 'a',
      states: {
        a: { transitions: [{ id: 'a-b', targetStateId: 'b', automatic: true }] },
        b: {
          entryActions: [{ type: 'setContext', values: { b: true } }],
          transitions: [{ id: 'b-c', targetStateId: 'c', automatic: true, conditions: [{ type: 'expression', expression: 'context.b' }] }],
        },
        c: {},
      },
    };
    const { engine } = await started(chain);
    const instance = await engine.getInstance('c1');
    expect(instance).toMatchObject({ stateId: 'c', status: 'complete', context: { b: true }, historyLength: 3 });
    expect((await engine.getHistory('c1')).items.map((entry) => [entry.event, entry.transitionId, entry.toStateId, entry.status])).toEqual([
      ['created', null, 'a', 'waiting'],
      ['transitioned', 'a-b', 'b', 'waiting'],
      ['transitioned', 'b-c', 'c', 'complete'],
    ]);
  });

  it('stay in the state when its exit conditions are false or the target refuses entry', async () => {
    const guarded: WorkflowDefinitionInput = {
      id: 'guarded',
      displayName: 'Guarded',
      initialStateId: 'a',
      states: {
        a: { exitConditions: [{ type: 'expression', expression: 'context.open = true' }], transitions: [{ id: 'go', targetStateId: 'b', automatic: true }] },
        b: { entryConditions: [{ type: 'expression', expression: 'context.ready = true' }] },
      },
    };
    const { engine } = await started(guarded, 'closed', { open: false });
    expect(await engine.getInstance('closed')).toMatchObject({ stateId: 'a', status: 'waiting', historyLength: 1 });
    await engine.createInstance({ workflowId: 'guarded', instanceId: 'unready', context: { open: true, ready: false } });
    expect(await engine.getInstance('unready')).toMatchObject({ stateId: 'a', status: 'waiting', historyLength: 1 });
    await engine.createInstance({ workflowId: 'guarded', instanceId: 'ready', context: { open: true, ready: true } });
    expect(await engine.getInstance('ready')).toMatchObject({ stateId: 'b', status: 'complete', historyLength: 2 });
  });

  it(`fault the instance past ${MAX_AUTOMATIC_STEPS} steps in one change, naming the states of the loop`, async () => {
    const loop: WorkflowDefinitionInput = {
      id: 'loop',
      displayName: 'Loop',
      initialStateId: 'start',
      states: {
        start: { transitions: [{ id: 'go', targetStateId: 'ping', conditions: [{ type: 'triggerName', name: 'Go' }] }] },
        ping: { transitions: [{ id: 'to-pong', targetStateId: 'pong', automatic: true }] },
        pong: { transitions: [{ id: 'to-ping', targetStateId: 'ping', automatic: true }] },
      },
    };
    const { engine } = await started(loop);
    const result = await engine.applyTrigger('c1', trigger('Go', { subjects: ['c1'] }));
    expect(result.outcome).toBe('faulted');
    expect(result.error).toContain(`more than ${MAX_AUTOMATIC_STEPS} automatic transitions in one change`);
    expect(result.error).toContain('the loop ping → pong → ping');
    const instance = await engine.getInstance('c1');
    expect(instance.status).toBe('faulted');
    expect(instance.fault?.message).toBe(result.error);
    // The fault is one entry: nothing of the loop is recorded as if it had happened.
    expect((await engine.getHistory('c1')).items.map((entry) => entry.event)).toEqual(['created', 'faulted']);
  });

  it('fault the change when a step fails: one `faulted` entry, in the state reached (the steps before it did not happen)', async () => {
    const failing: WorkflowDefinitionInput = {
      id: 'failing',
      displayName: 'Failing',
      initialStateId: 'a',
      states: {
        a: { transitions: [{ id: 'a-b', targetStateId: 'b', automatic: true }] },
        b: { transitions: [{ id: 'b-c', targetStateId: 'c', automatic: true }] },
        c: { entryActions: [{ type: 'setContext', expressions: { broken: '$error("no")' } }], transitions: [{ id: 'c-a', targetStateId: 'a', conditions: [{ type: 'triggerName', name: 'Again' }] }] },
      },
    };
    const { engine } = await started(failing);
    const instance = await engine.getInstance('c1');
    expect(instance).toMatchObject({ stateId: 'c', status: 'faulted', historyLength: 1 });
    expect(instance.fault?.message).toContain('entry action of state "c" [0] (setContext)');
    expect((await engine.getHistory('c1')).items.map((entry) => [entry.event, entry.transitionId, entry.fromStateId, entry.toStateId, entry.status])).toEqual([
      ['created', null, null, 'c', 'faulted'],
    ]);
  });

  it('are followed after a recovery', async () => {
    const { engine } = await started();
    await engine.applyTrigger('c1', trigger('Submit', { subjects: ['c1'], parameters: { amount: { not: 'a number' } } }));
    expect(await engine.getInstance('c1')).toMatchObject({ status: 'faulted', stateId: 'routing' });
    const recovered = await engine.recover('c1', 'routing', {}, { contextPatch: { amount: 2000 } });
    expect(recovered).toMatchObject({ status: 'waiting', stateId: 'second' });
    expect((await engine.getHistory('c1')).items.slice(-2).map((entry) => [entry.event, entry.transitionId, entry.toStateId])).toEqual([
      ['recovered', null, 'routing'],
      ['transitioned', 'second-approval', 'second'],
    ]);
  });

  it('are followed after a migration into a state that has them (a waiting instance; the migration report lists them)', async () => {
    const plain: WorkflowDefinitionInput = {
      id: 'moving',
      displayName: 'Moving',
      initialStateId: 'review',
      states: { review: { transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }] }, done: {} },
    };
    const routed: WorkflowDefinitionInput = {
      ...plain,
      states: {
        review: {
          transitions: [
            {
              id: 'big',
              targetStateId: 'check',
              automatic: true,
              conditions: [{ type: 'expression', expression: 'context.amount > 100' }],
              actions: [{ type: 'setContext', values: { checked: true } }],
            },
            { id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] },
          ],
        },
        check: { interests: ['checkers'], transitions: [{ id: 'ok', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Ok' }] }] },
        done: {},
      },
    };
    const { engine } = await started(plain, 'big', { amount: 500 });
    await engine.createInstance({ workflowId: 'moving', instanceId: 'small', context: { amount: 5 } });
    await engine.createInstance({ workflowId: 'moving', instanceId: 'paused', context: { amount: 500 } });
    await engine.suspend('paused');
    const version1 = await engine.getWorkflow('moving');
    await engine.addWorkflowVersion(routed, { ifMatch: version1.etag });
    const migration = { workflowId: 'moving', fromVersion: 1, toVersion: 2, stateMap: {} };

    const report = await engine.migrationsAndBulkActions.migrationReport(migration);
    expect(report.rows).toEqual([{ fromStateId: 'review', toStateId: 'review', count: 2, sample: ['big', 'small'], automaticTransitions: [{ transitionId: 'big', targetStateId: 'check' }] }]);
    // A suspended instance would wait in a state it is meant to leave at once: resume it first.
    expect(report.blocked).toEqual([
      { fromStateId: 'review', reason: 'state "review" has automatic transitions in version 2, which a suspended instance would not take: resume it first', count: 1, sample: ['paused'] },
    ]);

    expect(await engine.migrationsAndBulkActions.migrate('big', migration)).toMatchObject({ outcome: 'migrated', fromStateId: 'review', toStateId: 'check' });
    expect(await engine.getInstance('big')).toMatchObject({ workflowVersion: 2, stateId: 'check', status: 'waiting', context: { checked: true }, historyLength: 3, stateEntry: 2 });
    expect((await engine.getInstance('big')).interests).toContain('checkers');
    expect((await engine.getHistory('big')).items.slice(1).map((entry) => [entry.event, entry.transitionId, entry.fromStateId, entry.toStateId])).toEqual([
      ['migrated', null, 'review', 'review'],
      ['transitioned', 'big', 'review', 'check'],
    ]);
    expect(await engine.migrationsAndBulkActions.migrate('small', migration)).toMatchObject({ outcome: 'migrated', toStateId: 'review' });
    expect(await engine.getInstance('small')).toMatchObject({ stateId: 'review', historyLength: 2 });
    expect(await engine.migrationsAndBulkActions.migrate('paused', migration)).toMatchObject({ outcome: 'notMigratable' });
  });

  it('refuse a migration whose chain fails, changing nothing (`failed`)', async () => {
    const plain: WorkflowDefinitionInput = {
      id: 'm',
      displayName: 'M',
      initialStateId: 'a',
      states: { a: { transitions: [{ id: 'x', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'X' }] }] }, b: {} },
    };
    const broken: WorkflowDefinitionInput = {
      ...plain,
      states: { a: { transitions: [{ id: 'x', targetStateId: 'b', automatic: true, conditions: [{ type: 'expression', expression: '$error("no")' }] }] }, b: {} },
    };
    const { engine } = await started(plain, 'm1');
    await engine.addWorkflowVersion(broken, { ifMatch: (await engine.getWorkflow('m')).etag });
    const result = await engine.migrationsAndBulkActions.migrate('m1', { workflowId: 'm', fromVersion: 1, toVersion: 2, stateMap: {} });
    expect(result).toMatchObject({ outcome: 'failed' });
    expect(result.error).toContain('the automatic transitions of state "a" could not be followed');
    expect(await engine.getInstance('m1')).toMatchObject({ workflowVersion: 1, historyLength: 1 });
  });

  it('are never offered as triggers', async () => {
    const definition = validateDefinition(claim);
    expect(availableTriggers(definition, { status: 'waiting', stateId: 'routing' }).items).toEqual([]);
  });

  it('are shown by a dry run: the state the chain would end in, its events and actions; nothing saved', async () => {
    const { engine } = await started();
    const before = await engine.getInstance('c1');
    const dryRun = await engine.dryRunTrigger('c1', trigger('Submit', { subjects: ['c1'], parameters: { amount: 5000 } }));
    expect(dryRun).toMatchObject({ outcome: 'transitioned', toStateId: 'second', contextAfter: { amount: 5000, routed: true } });
    expect(dryRun.events.map((event) => [event.type, event.data.stateId, event.data.transitionId])).toEqual([
      ['transitioned', 'routing', 'submit'],
      ['transitioned', 'second', 'second-approval'],
    ]);
    expect(dryRun.actions.map((action) => action.step)).toEqual(['action of transition "submit" [0] (setContext)', 'entry action of state "routing" [0] (setContext)']);
    expect((await engine.getInstance('c1')).etag).toBe(before.etag);
  });

  it('may ask an external service, as any condition', async () => {
    const calls: ExternalRequest[] = [];
    const http = { send: async (request: ExternalRequest): Promise<ExternalResponse> => (calls.push(request), { status: 200, body: true }) };
    const checked: WorkflowDefinitionInput = {
      id: 'checked',
      displayName: 'Checked',
      initialStateId: 'a',
      states: {
        a: { transitions: [{ id: 'ok', targetStateId: 'b', automatic: true, conditions: [{ type: 'invokeExternalService', url: 'https://check.example/ok' }] }] },
        b: {},
      },
    };
    const test = testEngine({ http });
    await test.engine.createWorkflow(test.engine.validateWorkflow(checked));
    await test.engine.createInstance({ workflowId: 'checked', instanceId: 'x1' });
    expect(await test.engine.getInstance('x1')).toMatchObject({ stateId: 'b', status: 'complete' });
    expect(calls).toHaveLength(1);
  });
});

describe('automatic transitions in a definition', () => {
  const problems = (definition: unknown): Array<{ path: string; message: string }> => {
    try {
      validateDefinition(definition);
      return [];
    } catch (error) {
      if (error instanceof DefinitionInvalidError) return error.issues.map(({ path, message }) => ({ path, message }));
      throw error;
    }
  };
  const oneState = (transitions: unknown[]) => ({ id: 'w', displayName: 'W', initialStateId: 'a', states: { a: { transitions }, b: {} } });

  it('are valid with conditions, or none, and at most one `otherwise` per state', () => {
    expect(problems(claim)).toEqual([]);
  });

  it('name no trigger', () => {
    expect(problems(oneState([{ id: 'x', targetStateId: 'b', automatic: true, conditions: [{ type: 'triggerName', name: 'Go' }] }]))).toEqual([
      { path: 'states.a.transitions[0].conditions[0]', message: 'an automatic transition is taken without a trigger: it cannot test a trigger name' },
    ]);
  });

  it('have `otherwise` only when automatic, and at most once per state', () => {
    expect(problems(oneState([{ id: 'x', targetStateId: 'b', otherwise: true, conditions: [{ type: 'triggerName', name: 'Go' }] }]))).toEqual([
      { path: 'states.a.transitions[0].otherwise', message: '`otherwise` needs `"automatic": true`' },
    ]);
    expect(
      problems(
        oneState([
          { id: 'x', targetStateId: 'b', automatic: true, otherwise: true },
          { id: 'y', targetStateId: 'b', automatic: true, otherwise: true },
        ]),
      ),
    ).toEqual([{ path: 'states.a.transitions[1].otherwise', message: 'a state has at most one `otherwise` transition: transitions[0] is one already' }]);
  });

  it('have no timer', () => {
    expect(problems(oneState([{ id: 'x', targetStateId: 'b', automatic: true, timer: { after: 'PT1M' } }]))).toEqual([
      { path: 'states.a.transitions[0].timer', message: 'an automatic transition has no timer: it is taken as soon as the state is entered' },
    ]);
  });

  it('an otherwise with conditions is refused (it holds exactly when no other does)', () => {
    expect(problems(oneState([{ id: 'x', targetStateId: 'b', automatic: true, otherwise: true, conditions: [{ type: 'expression', expression: 'true' }] }]))).toEqual([
      { path: 'states.a.transitions[0].conditions', message: 'an `otherwise` transition has no conditions: it is taken when no other automatic transition holds' },
    ]);
  });
});
