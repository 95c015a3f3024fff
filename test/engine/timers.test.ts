/**
 * Timers in the engine (issue 13), on the test clock: arming on creation and on entry, `after` and `at`,
 * stale timers after leaving and re-entering a state, conditions false, faults from a bad `at`,
 * self-transitions re-arming, cancelled and completed instances never firing.
 */
import { DefinitionInvalidError, Engine, TriggerOutcome, ValidationError, parseTrigger, timerTriggerId, validateDefinition, type DueTimer, type WorkflowDefinitionInput } from '../../src/engine';
import { ManualClock, createInMemoryPorts } from '../../src/testing';
import { recordingLogger } from './support';

/** The id of c1's timer of `escalate` for `entry`, with the instance's incarnation. */
async function c1Timer(engine: { getInstance(id: string): Promise<{ incarnation?: string }> }, entry: number): Promise<string> {
  return timerTriggerId('c1', entry, 'escalate', (await engine.getInstance('c1')).incarnation);
}

const HOUR = 3600_000;

function escalation(overrides: Partial<WorkflowDefinitionInput> = {}): WorkflowDefinitionInput {
  return {
    id: 'claim',
    displayName: 'Claim',
    initialStateId: 'waiting',
    states: {
      waiting: {
        transitions: [
          { id: 'approve', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Approve' }] },
          { id: 'back', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'Again' }] },
          { id: 'park', targetStateId: 'parked', conditions: [{ type: 'triggerName', name: 'Park' }] },
          {
            id: 'escalate',
            targetStateId: 'escalated',
            timer: { after: 'PT48H' },
            actions: [
              { type: 'setContext', expressions: { escalatedAt: '$now()' } },
              { type: 'log', message: 'escalating {{instance.id}}' },
            ],
          },
        ],
      },
      parked: { transitions: [{ id: 'resume', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'Resume' }] }] },
      escalated: {},
      approved: {},
    },
    ...overrides,
  };
}

async function setup(definition: WorkflowDefinitionInput = escalation()) {
  const clock = new ManualClock('2026-11-20T16:00:00.000Z');
  const logger = recordingLogger();
  const ports = createInMemoryPorts();
  const engine = new Engine(ports, { clock, logger, newId: () => 'generated' });
  await engine.createWorkflow(definition);
  const send = (instanceId: string, name: string, id = `${name}-${clock.now().getTime()}`) => engine.applyTrigger(instanceId, { id, name, subjects: [instanceId] });
  return { clock, logger, engine, ports, send };
}

async function historyOf(engine: Engine, instanceId: string) {
  const page = await engine.getHistory(instanceId, { maxPageSize: 1000 });
  return page.items;
}

describe('timers in the engine', () => {
  it('arms `after` on creation, shows it, and fires at the due time through the normal path', async () => {
    const { clock, engine, logger } = await setup();
    const created = await engine.createInstance({ workflowId: 'claim', instanceId: 'c1' });
    expect(created.timers).toEqual([{ transitionId: 'escalate', dueAt: '2026-11-22T16:00:00.000Z' }]);
    expect(created.stateEntry).toBe(0);

    await clock.advanceBy(48 * HOUR - 1);
    expect((await engine.getInstance('c1')).stateId).toBe('waiting');

    await clock.advanceBy(1);
    const fired = await engine.getInstance('c1');
    expect(fired).toMatchObject({ stateId: 'escalated', status: 'complete', timers: [], context: { escalatedAt: '2026-11-22T16:00:00.000Z' } });
    const history = await historyOf(engine, 'c1');
    expect(history[1]).toMatchObject({ event: 'transitioned', triggerId: await c1Timer(engine, 0), transitionId: 'escalate', fromStateId: 'waiting', toStateId: 'escalated' });
    expect(logger.lines.map((line) => line.message)).toContain('escalating c1');
  });

  it('never lets an ordinary trigger choose a timer transition', async () => {
    const { engine, send } = await setup();
    await engine.createInstance({ workflowId: 'claim', instanceId: 'c1' });
    // The timer transition has no conditions: it would match anything if ordinary triggers considered it.
    const result = await send('c1', 'Whatever');
    expect(result.outcome).toBe(TriggerOutcome.noTransition);
    expect((await engine.getInstance('c1')).stateId).toBe('waiting');
  });

  it('arms on entering a state by a transition, counting from the moment of entry', async () => {
    const { clock, engine, send } = await setup();
    await engine.createInstance({ workflowId: 'claim', instanceId: 'c1' });
    await send('c1', 'Park');
    await clock.advanceBy(10 * HOUR);
    await send('c1', 'Resume');
    const resumed = await engine.getInstance('c1');
    expect(resumed.stateEntry).toBe(2);
    expect(resumed.timers).toEqual([{ transitionId: 'escalate', dueAt: '2026-11-23T02:00:00.000Z' }]);
  });

  it('treats a timer armed for an earlier entry as stale after leaving and re-entering the state: nothing saved', async () => {
    const { clock, engine, send } = await setup();
    await engine.createInstance({ workflowId: 'claim', instanceId: 'c1' });
    const first: DueTimer = { timerId: timerTriggerId('c1', 0, 'escalate'), instanceId: 'c1', transitionId: 'escalate', stateEntry: 0, dueAt: '2026-11-22T16:00:00.000Z' };
    await send('c1', 'Park');
    await clock.advanceBy(HOUR);
    await send('c1', 'Resume'); // back in `waiting`: entry 2, its own timer due 49 hours after the start

    await clock.advanceBy(47 * HOUR); // the first timer's due time passes: it fired and found itself stale
    const before = await engine.getInstance('c1');
    expect(before.stateId).toBe('waiting');
    expect(await historyOf(engine, 'c1')).toHaveLength(3);
    // A late delivery of the stale timer (a durable timer waking up, a restart) changes nothing either.
    expect(await engine.fireTimer(first)).toMatchObject({ outcome: TriggerOutcome.notInterested });
    const after = await engine.getInstance('c1');
    expect(after.etag).toBe(before.etag);
    expect(await historyOf(engine, 'c1')).toHaveLength(3);

    await clock.advanceBy(HOUR);
    expect(await engine.getInstance('c1')).toMatchObject({ stateId: 'escalated' });
    expect((await historyOf(engine, 'c1'))[3]).toMatchObject({ triggerId: await c1Timer(engine, 2), transitionId: 'escalate' });
  });

  it('a timer whose conditions are false is `noTransition` and spent: no history row, it does not fire again', async () => {
    const definition = escalation();
    const waiting = definition.states.waiting!;
    waiting.transitions!.find((transition) => transition.id === 'escalate')!.conditions = [{ type: 'expression', expression: 'context.urgent = true' }];
    const { clock, engine } = await setup(definition);
    await engine.createInstance({ workflowId: 'claim', instanceId: 'c1', context: { urgent: false } });
    const timer: DueTimer = { timerId: timerTriggerId('c1', 0, 'escalate'), instanceId: 'c1', transitionId: 'escalate', stateEntry: 0, dueAt: '2026-11-22T16:00:00.000Z' };
    await clock.advanceBy(48 * HOUR);
    const spent = await engine.getInstance('c1');
    expect(spent).toMatchObject({ stateId: 'waiting', status: 'waiting', timers: [] });
    expect(await historyOf(engine, 'c1')).toHaveLength(1);
    // Delivered again: spent, so stale; nothing saved.
    expect(await engine.fireTimer(timer)).toMatchObject({ outcome: TriggerOutcome.notInterested });
    expect((await engine.getInstance('c1')).etag).toBe(spent.etag);
  });

  it('reports what the firing did: transitioned, then duplicate for a repeated delivery', async () => {
    const { clock, engine } = await setup();
    const { incarnation } = await engine.createInstance({ workflowId: 'claim', instanceId: 'c1' });
    const timer: DueTimer = {
      timerId: timerTriggerId('c1', 0, 'escalate', incarnation),
      instanceId: 'c1',
      transitionId: 'escalate',
      stateEntry: 0,
      dueAt: '2026-11-22T16:00:00.000Z',
      incarnation: incarnation!,
    };
    await clock.advanceTo('2026-11-22T16:00:00.000Z');
    expect(await engine.fireTimer(timer)).toMatchObject({ outcome: TriggerOutcome.duplicate, applied: { outcome: 'transitioned', transitionId: 'escalate' } });
    expect(await historyOf(engine, 'c1')).toHaveLength(2);
  });

  it('evaluates `at` against the context after the entry actions; an instant in the past fires at once', async () => {
    const definition: WorkflowDefinitionInput = {
      id: 'quote',
      displayName: 'Quote',
      initialStateId: 'open',
      states: {
        open: {
          entryActions: [{ type: 'setContext', expressions: { validUntil: 'context.quote.validUntil' } }],
          transitions: [{ id: 'expire', targetStateId: 'expired', timer: { at: 'context.validUntil' } }],
        },
        expired: {},
      },
    };
    const { clock, engine } = await setup(definition);
    const open = await engine.createInstance({ workflowId: 'quote', instanceId: 'q1', context: { quote: { validUntil: '2026-12-01T12:00:00+01:00' } } });
    expect(open.timers).toEqual([{ transitionId: 'expire', dueAt: '2026-12-01T11:00:00.000Z' }]);
    await clock.advanceTo('2026-12-01T11:00:00.000Z');
    expect(await engine.getInstance('q1')).toMatchObject({ stateId: 'expired', status: 'complete' });

    await engine.createInstance({ workflowId: 'quote', instanceId: 'q2', context: { quote: { validUntil: '2026-01-01T00:00:00Z' } } });
    expect(await engine.getInstance('q2')).toMatchObject({ stateId: 'expired' });
    expect(clock.pendingTimers).toBe(0);
  });

  it('faults the instance like a failing entry action when `at` gives no instant', async () => {
    const definition: WorkflowDefinitionInput = {
      id: 'quote',
      displayName: 'Quote',
      initialStateId: 'draft',
      states: {
        draft: { transitions: [{ id: 'open', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Open' }] }] },
        open: { transitions: [{ id: 'expire', targetStateId: 'expired', timer: { at: 'context.validUntil' } }] },
        expired: {},
      },
    };
    const { engine, send } = await setup(definition);
    await engine.createInstance({ workflowId: 'quote', instanceId: 'q1', context: { validUntil: 'next Tuesday' } });
    const result = await send('q1', 'Open');
    expect(result).toMatchObject({ outcome: TriggerOutcome.faulted, toStateId: 'open' });
    expect(result.error).toContain('"at" gave "next Tuesday", not an ISO 8601 instant');
    expect(await engine.getInstance('q1')).toMatchObject({ status: 'faulted', stateId: 'open', timers: [] });

    // On creation too: the initial state's timer with nothing to count to faults the new instance.
    await engine.createWorkflow({ ...definition, id: 'quote-open', initialStateId: 'open' });
    const created = await engine.createInstance({ workflowId: 'quote-open', instanceId: 'q2', context: {} });
    expect(created).toMatchObject({ status: 'faulted', stateId: 'open', timers: [], fault: { message: expect.stringContaining('"at" gave nothing') } });
  });

  it('faults naming the field and the limit when `at` gives an instant past the limit', async () => {
    const definition: WorkflowDefinitionInput = {
      id: 'far',
      displayName: 'Far',
      initialStateId: 'open',
      states: { open: { transitions: [{ id: 'expire', targetStateId: 'expired', timer: { at: 'context.until' } }] }, expired: {} },
    };
    const { engine } = await setup(definition);
    for (const [instanceId, until] of [
      ['far-1', '2200-01-01T00:00:00Z'],
      ['far-2', '9999-12-31T23:59:59Z'],
    ] as const) {
      const created = await engine.createInstance({ workflowId: 'far', instanceId, context: { until } });
      expect(created).toMatchObject({ status: 'faulted', timers: [] });
      expect(created.fault?.message).toContain('the timer of transition "expire": "at" is due more than 36,525 days (100 years) after the state was entered, the limit');
    }
  });

  it("re-arms on a self-transition: the earlier entry's timer is stale, the new one counts from the re-entry", async () => {
    const { clock, engine, send } = await setup();
    await engine.createInstance({ workflowId: 'claim', instanceId: 'c1' });
    await clock.advanceBy(24 * HOUR);
    await send('c1', 'Again');
    const again = await engine.getInstance('c1');
    expect(again.stateEntry).toBe(1);
    expect(again.timers).toEqual([{ transitionId: 'escalate', dueAt: '2026-11-23T16:00:00.000Z' }]);
    await clock.advanceBy(24 * HOUR); // the first timer's due time
    expect((await engine.getInstance('c1')).stateId).toBe('waiting');
    await clock.advanceBy(24 * HOUR);
    expect(await engine.getInstance('c1')).toMatchObject({ stateId: 'escalated' });
    expect((await historyOf(engine, 'c1')).map((entry) => entry.triggerId)).toEqual([null, `Again-${Date.parse('2026-11-21T16:00:00.000Z')}`, await c1Timer(engine, 1)]);
  });

  it('never fires for cancelled or completed instances', async () => {
    const { clock, engine, send } = await setup();
    await engine.createInstance({ workflowId: 'claim', instanceId: 'cancelled' });
    await engine.createInstance({ workflowId: 'claim', instanceId: 'approved' });
    expect((await engine.cancel('cancelled')).timers).toEqual([]);
    await send('approved', 'Approve');
    expect((await engine.getInstance('approved')).timers).toEqual([]);
    await clock.advanceBy(100 * HOUR);
    expect(await engine.getInstance('cancelled')).toMatchObject({ status: 'cancelled', stateId: 'waiting' });
    expect(await engine.getInstance('approved')).toMatchObject({ status: 'complete', stateId: 'approved' });
    expect(await historyOf(engine, 'cancelled')).toHaveLength(2);
    expect(await historyOf(engine, 'approved')).toHaveLength(2);
    const stale: DueTimer = { timerId: timerTriggerId('cancelled', 0, 'escalate'), instanceId: 'cancelled', transitionId: 'escalate', stateEntry: 0, dueAt: '2026-11-22T16:00:00.000Z' };
    expect(await engine.fireTimer(stale)).toMatchObject({ outcome: TriggerOutcome.notActive });
  });

  it('arms again on recovery of a faulted instance', async () => {
    const { clock, engine, ports } = await setup();
    await engine.createInstance({ workflowId: 'claim', instanceId: 'c1' });
    const stored = (await ports.instances.get('c1'))!;
    const { etag, ...plain } = stored;
    await ports.instances.save({ ...plain, status: 'faulted', fault: { message: 'broken', triggerId: null, at: plain.createdAt }, timers: [], historyLength: 1 }, {}, { ifMatch: etag });
    await clock.advanceBy(HOUR);
    const recovered = await engine.recover('c1', 'waiting');
    expect(recovered).toMatchObject({ status: 'waiting', stateEntry: 1, timers: [{ transitionId: 'escalate', dueAt: '2026-11-22T17:00:00.000Z' }] });
    await clock.advanceBy(48 * HOUR);
    expect(await engine.getInstance('c1')).toMatchObject({ stateId: 'escalated' });
  });

  it('reserves the `timer:` prefix: a client trigger id using it is refused at `id`', () => {
    expect(() => parseTrigger({ id: 'timer:c1:0:escalate', name: 'X', subjects: ['c1'] }, () => 'n')).toThrow(ValidationError);
    try {
      parseTrigger({ id: 'timer:c1:0:escalate', name: 'X', subjects: ['c1'] }, () => 'n');
    } catch (error) {
      expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual(['id']);
    }
  });

  it('gives every timer a distinct, deterministic id, hashed when the readable form could be ambiguous or long', () => {
    expect(timerTriggerId('c1', 3, 'escalate')).toBe('timer:c1:3:escalate');
    expect(timerTriggerId('c1', 3, 'escalate')).toBe(timerTriggerId('c1', 3, 'escalate'));
    // "a:1" entry 2 "x" and "a" entry 1 "2:x" would read the same: an instance id with ':' is hashed.
    expect(timerTriggerId('a:1', 2, 'x')).not.toBe(timerTriggerId('a', 1, '2:x'));
    expect(timerTriggerId('a:1', 2, 'x')).toMatch(/^timer:h\.[0-9a-f]{32}$/);
    expect(timerTriggerId('c'.repeat(128), 0, 'escalate')).toMatch(/^timer:h\.[0-9a-f]{32}$/);
    expect(timerTriggerId('c1', 0, 'with space')).toMatch(/^timer:h\./);
  });
});

describe('timer definitions', () => {
  function problems(definition: unknown): { path: string; message: string }[] {
    try {
      validateDefinition(definition);
    } catch (error) {
      if (error instanceof DefinitionInvalidError) return error.issues.map(({ path, message }) => ({ path, message }));
      throw error;
    }
    return [];
  }
  const withTimer = (timer: unknown, calendars?: unknown) => ({
    ...escalation(),
    ...(calendars ? { calendars } : {}),
    states: { waiting: { transitions: [{ id: 'escalate', targetStateId: 'done', timer }] }, done: {} },
  });
  const office = { timeZone: 'Europe/London', workingHours: [{ days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], from: '09:00', to: '17:30' }], holidays: ['2026-12-25'] };

  it('accepts after, at, and after with a calendar', () => {
    expect(problems(withTimer({ after: 'PT48H' }))).toEqual([]);
    expect(problems(withTimer({ after: 'P1DT12H' }))).toEqual([]);
    expect(problems(withTimer({ at: 'context.quote.validUntil' }))).toEqual([]);
    expect(problems(withTimer({ after: 'PT16H', calendar: 'office' }, { office }))).toEqual([]);
  });

  it('names the path of a malformed duration', () => {
    expect(problems(withTimer({ after: '48 hours' }))).toEqual([{ path: 'states.waiting.transitions[0].timer.after', message: expect.stringContaining('not an ISO 8601 duration') }]);
    expect(problems(withTimer({ after: '-PT1H' }))).toEqual([{ path: 'states.waiting.transitions[0].timer.after', message: expect.stringContaining('negative') }]);
  });

  it('refuses an `after` longer than the limit, naming the field and the limit', () => {
    expect(problems(withTimer({ after: 'P1000000Y' }))).toEqual([
      { path: 'states.waiting.transitions[0].timer.after', message: '"P1000000Y" is longer than the 36,525 days (100 years) a timer may wait' },
    ]);
    expect(problems(withTimer({ after: 'PT900000H', calendar: 'office' }, { office }))).toEqual([
      { path: 'states.waiting.transitions[0].timer.after', message: expect.stringContaining('36,525 days') },
    ]);
    expect(problems(withTimer({ after: 'P100Y' }))).toEqual([]);
  });

  it('needs exactly one of after and at; a calendar only with after, and one the workflow declares', () => {
    expect(problems(withTimer({}))[0]).toMatchObject({ path: 'states.waiting.transitions[0].timer', message: expect.stringContaining('exactly one') });
    expect(problems(withTimer({ after: 'PT1H', at: 'context.x' }))[0]).toMatchObject({ path: 'states.waiting.transitions[0].timer' });
    expect(problems(withTimer({ at: 'context.x', calendar: 'office' }, { office }))).toEqual([
      { path: 'states.waiting.transitions[0].timer.calendar', message: expect.stringContaining('working time') },
    ]);
    expect(problems(withTimer({ after: 'PT1H', calendar: 'office' }))).toEqual([
      { path: 'states.waiting.transitions[0].timer.calendar', message: expect.stringContaining("not among the workflow's calendars") },
    ]);
    expect(problems(withTimer({ after: 'P2D', calendar: 'office' }, { office }))).toEqual([
      { path: 'states.waiting.transitions[0].timer.after', message: expect.stringContaining('hours, minutes and seconds') },
    ]);
    expect(problems(withTimer({ at: 'context.(' }))).toEqual([{ path: 'states.waiting.transitions[0].timer.at', message: expect.stringContaining('malformed expression') }]);
  });

  it('checks calendars: time zone, working hours, holidays', () => {
    const bad = { timeZone: 'Europe/Atlantis', workingHours: [{ days: ['Mon', 'Funday'], from: '09:00', to: '25:00' }], holidays: ['2026-02-30'] };
    const paths = problems(withTimer({ after: 'PT1H', calendar: 'office' }, { office: bad })).map((problem) => problem.path);
    expect(paths).toEqual(['calendars.office.timeZone', 'calendars.office.workingHours[0].days[1]', 'calendars.office.workingHours[0].to', 'calendars.office.holidays[0]']);
    const backwards = { ...office, workingHours: [{ days: ['Mon'], from: '17:00', to: '09:00' }] };
    expect(problems(withTimer({ after: 'PT1H', calendar: 'office' }, { office: backwards }))).toEqual([
      { path: 'calendars.office.workingHours[0].to', message: expect.stringContaining('earlier than') },
    ]);
  });
});

describe('timers and operating a live system', () => {
  it('a timer due while the instance is suspended fires once after it is resumed, and not before', async () => {
    const { clock, engine } = await setup();
    await engine.createInstance({ workflowId: 'claim', instanceId: 'c1' });
    await engine.suspend('c1');
    await clock.advanceBy(49 * HOUR);
    // The timer fell due while suspended: answered notActive, nothing saved, still armed.
    expect(await engine.getInstance('c1')).toMatchObject({ stateId: 'waiting', status: 'suspended', timers: [{ transitionId: 'escalate' }] });

    const resumed = await engine.resume('c1');
    // The resume is a new entry for timer purposes: same due time, a new timer id.
    expect(resumed.stateEntry).toBe(2);
    await clock.advanceBy(0);
    const after = await engine.getInstance('c1');
    expect(after).toMatchObject({ stateId: 'escalated', status: 'complete' });
    const history = await historyOf(engine, 'c1');
    expect(history.map((entry) => entry.event)).toEqual(['created', 'suspended', 'resumed', 'transitioned']);
    expect(history[3]).toMatchObject({ triggerId: await c1Timer(engine, 2), transitionId: 'escalate' });
    // The schedule armed for the first entry is stale now.
    const stale = await engine.fireTimer({ timerId: timerTriggerId('c1', 0, 'escalate'), instanceId: 'c1', transitionId: 'escalate', stateEntry: 0, dueAt: '2026-11-22T16:00:00.000Z' });
    expect(stale.outcome).toBe(TriggerOutcome.notActive);
  });

  it('a timer not yet due when the instance is resumed fires at its own due time, once', async () => {
    const { clock, engine } = await setup();
    await engine.createInstance({ workflowId: 'claim', instanceId: 'c1' });
    await engine.suspend('c1');
    await clock.advanceBy(HOUR);
    await engine.resume('c1');
    await clock.advanceBy(47 * HOUR - 1);
    expect((await engine.getInstance('c1')).stateId).toBe('waiting');
    await clock.advanceBy(1);
    expect((await engine.getInstance('c1')).stateId).toBe('escalated');
    expect((await historyOf(engine, 'c1')).filter((entry) => entry.event === 'transitioned')).toHaveLength(1);
  });

  it('a migration keeps the due time of a timer the target state still has, and arms one it adds from the migration', async () => {
    const { clock, engine } = await setup();
    await engine.createInstance({ workflowId: 'claim', instanceId: 'c1' });
    const version1 = await engine.getWorkflow('claim');
    const base = escalation();
    const waiting = base.states.waiting!;
    await engine.addWorkflowVersion(
      {
        ...base,
        states: {
          ...base.states,
          waiting: {
            ...waiting,
            transitions: [...(waiting.transitions ?? []), { id: 'remind', targetStateId: 'parked', timer: { after: 'PT10H' }, actions: [{ type: 'setContext', values: { reminded: true } }] }],
          },
        },
      },
      { ifMatch: version1.etag },
    );
    await clock.advanceBy(HOUR);
    const migrated = await engine.migrationsAndBulkActions.migrate('c1', { workflowId: 'claim', fromVersion: 1, toVersion: 2, stateMap: {} });
    expect(migrated.outcome).toBe('migrated');
    const instance = await engine.getInstance('c1');
    expect(instance).toMatchObject({ workflowVersion: 2, stateEntry: 1 });
    expect(instance.timers).toEqual([
      { transitionId: 'escalate', dueAt: '2026-11-22T16:00:00.000Z' },
      { transitionId: 'remind', dueAt: '2026-11-21T03:00:00.000Z' },
    ]);
    // Timers armed for the entry before the migration are stale.
    const stale = await engine.fireTimer({ timerId: timerTriggerId('c1', 0, 'escalate'), instanceId: 'c1', transitionId: 'escalate', stateEntry: 0, dueAt: '2026-11-22T16:00:00.000Z' });
    expect(stale.outcome).toBe(TriggerOutcome.notInterested);
    await clock.advanceBy(10 * HOUR);
    expect(await engine.getInstance('c1')).toMatchObject({ stateId: 'parked', context: { reminded: true } });
  });
});
