/** Why an instance is not moving: one test per class of the closed set, the precedence, and the workflow tally. */
import { MAX_FAULT_CAUSES, WaitingClass, WaitingTally, waitingClassValues, whyWaiting, type WaitingAnswer } from '../../src/engine';
import { definition, instanceIn, testEngine, trigger } from './support';

const claim = definition({
  id: 'claim',
  displayName: 'Claim',
  initialStateId: 'submitted',
  states: {
    submitted: {
      interests: ['team:finance'],
      transitions: [
        { id: 'approve', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Approve' }] },
        {
          id: 'reject',
          targetStateId: 'paid',
          conditions: [
            {
              type: 'any',
              conditions: [
                { type: 'triggerName', name: 'Reject' },
                { type: 'triggerName', name: 'Withdraw' },
              ],
            },
          ],
        },
        { id: 'expire', targetStateId: 'paid', timer: { after: 'P7D' } },
      ],
    },
    sleeping: { transitions: [{ id: 'wake', targetStateId: 'paid', timer: { after: 'PT1H' } }] },
    paid: {},
  },
});

const now = new Date('2026-11-26T12:00:00.000Z');
const classesOf = (answer: WaitingAnswer) => answer.reasons.map((reason) => reason.class);

describe('whyWaiting', () => {
  it('waiting for a trigger: the names its state answers and the subjects that reach it; no `who` where no actors rule narrows it', () => {
    const answer = whyWaiting(instanceIn(claim, 'submitted', { id: 'c1', interests: ['c1', 'team:finance'] }), claim, { now });
    expect(answer.class).toBe(WaitingClass.waitingForTrigger);
    const reason = answer.reasons[0];
    if (reason?.class !== WaitingClass.waitingForTrigger) throw new Error('not waiting for a trigger');
    expect(reason.triggers).toEqual([
      { transitionId: 'approve', triggerNames: ['Approve'], targetStateId: 'paid' },
      { transitionId: 'reject', triggerNames: ['Reject', 'Withdraw'], targetStateId: 'paid' },
    ]);
    expect(reason.triggers.every((item) => item.who === undefined)).toBe(true);
    expect(reason.subjects).toEqual(['c1', 'team:finance']);
  });

  it("waiting for a trigger: `who` reads the transition's actors rule, every part of it", () => {
    const guarded = definition({
      id: 'guarded',
      displayName: 'Guarded',
      initialStateId: 'submitted',
      states: {
        submitted: {
          transitions: [
            {
              id: 'approve',
              targetStateId: 'paid',
              conditions: [{ type: 'triggerName', name: 'Approve' }],
              actors: { roles: ['Finance', 'Director'], users: ['carol'], expression: '$not(actor.id = context.claimantId)' },
            },
          ],
        },
        paid: {},
      },
    });
    const reason = whyWaiting(instanceIn(guarded, 'submitted', { id: 'g1' }), guarded, { now }).reasons[0];
    if (reason?.class !== WaitingClass.waitingForTrigger) throw new Error('not waiting for a trigger');
    expect(reason.triggers[0]!.who).toEqual(['role: Finance or Director', 'user: carol', 'expression: $not(actor.id = context.claimantId)']);
  });

  it('waiting for a timer comes before the triggers of the same state, and says when it is due and whether it is overdue', () => {
    const instance = instanceIn(claim, 'submitted', { timers: [{ transitionId: 'expire', dueAt: '2026-11-26T11:00:00.000Z' }] });
    const answer = whyWaiting(instance, claim, { now });
    expect(classesOf(answer)).toEqual([WaitingClass.waitingForTimer, WaitingClass.waitingForTrigger]);
    expect(answer.reasons[0]).toEqual({ class: 'waitingForTimer', timers: [{ transitionId: 'expire', targetStateId: 'paid', dueAt: '2026-11-26T11:00:00.000Z', overdue: true }] });
  });

  it('stranded: a timer-only state whose timer is not armed any more', () => {
    const answer = whyWaiting(instanceIn(claim, 'sleeping', { timers: [] }), claim, { now });
    expect(answer.class).toBe(WaitingClass.stranded);
    expect(answer.reasons).toEqual([{ class: 'stranded', stateId: 'sleeping' }]);
  });

  it('waiting for children: which, in what state', () => {
    const child = { instanceId: 'c1-parcel', workflowId: 'parcel', stateId: 'packing', status: 'waiting' as const };
    const answer = whyWaiting(instanceIn(claim, 'submitted'), claim, { now, runningChildren: { items: [child], more: 2 } });
    expect(answer.class).toBe(WaitingClass.waitingForChildren);
    expect(answer.reasons[0]).toEqual({ class: 'waitingForChildren', children: [child], moreChildren: 2 });
    // Children that all ended are no reason.
    expect(whyWaiting(instanceIn(claim, 'submitted'), claim, { now, runningChildren: { items: [], more: 0 } }).class).toBe(WaitingClass.waitingForTrigger);
  });

  it('waiting for a retry: the attempt and when the next one is', () => {
    const pendingRetry = {
      triggerId: 't1',
      triggerName: 'Approve',
      attempt: 2,
      nextAttemptAt: '2026-11-26T12:05:00.000Z',
      stepPath: 'transitions.approve.actions[0]',
      lastError: { type: 'http:5xx' as const, message: 'HTTP 503', status: 503 },
    };
    const answer = whyWaiting(instanceIn(claim, 'submitted', { pendingRetry }), claim, { now });
    expect(answer.class).toBe(WaitingClass.waitingForRetry);
    expect(answer.reasons[0]).toEqual({ class: 'waitingForRetry', ...pendingRetry });
  });

  it('suspended: since when and by whom, with the resume command', () => {
    const answer = whyWaiting(instanceIn(claim, 'submitted', { id: 'c 1', status: 'suspended' }), claim, { now, suspension: { at: '2026-11-20T00:00:00.000Z', by: 'api-key' } });
    expect(answer.class).toBe(WaitingClass.suspended);
    expect(answer.since).toBe('2026-11-20T00:00:00.000Z');
    expect(answer.reasons[0]).toEqual({
      class: 'suspended',
      since: '2026-11-20T00:00:00.000Z',
      by: 'api-key',
      resume: { cli: "signalbox resume 'c 1'", http: { method: 'POST', path: '/api/instances/c%201/resume' } },
    });
  });

  it('faulted: the cause and the recover command, for the CLI and over HTTP', () => {
    const fault = { message: 'host "evil.example" is not on the allow-list', triggerId: 't9', at: '2026-11-25T00:00:00.000Z' };
    const answer = whyWaiting(instanceIn(claim, 'submitted', { id: 'c2', status: 'faulted', fault }), claim, { now });
    expect(answer.class).toBe(WaitingClass.faulted);
    expect(answer.since).toBe(fault.at);
    expect(answer.reasons[0]).toEqual({
      class: 'faulted',
      cause: fault.message,
      triggerId: 't9',
      at: fault.at,
      recover: { cli: 'signalbox recover c2 --state submitted', http: { method: 'POST', path: '/api/instances/c2/recover', body: { stateId: 'submitted' } } },
    });
  });

  it('lease held elsewhere: possibly a crashed worker, expiring within the longest fixed lease; an infinite one never expires', () => {
    const elsewhere = whyWaiting(instanceIn(claim, 'submitted'), claim, { now, lease: { held: true, infinite: false } });
    expect(elsewhere.class).toBe(WaitingClass.leaseHeld);
    expect(elsewhere.reasons[0]).toEqual({ class: 'leaseHeld', heldByThisProcess: false, expiresBy: '2026-11-26T12:01:00.000Z', infinite: false, possiblyCrashedWorker: true });
    const infinite = whyWaiting(instanceIn(claim, 'submitted'), claim, { now, lease: { held: true, infinite: true } });
    expect(infinite.reasons[0]).toEqual({ class: 'leaseHeld', heldByThisProcess: false, infinite: true, possiblyCrashedWorker: true });
    const here = whyWaiting(instanceIn(claim, 'submitted'), claim, {
      now,
      lease: { held: true, infinite: false, heldHere: { since: '2026-11-26T11:59:59.000Z', expiresAt: '2026-11-26T12:00:59.000Z' } },
    });
    expect(here.reasons[0]).toEqual({
      class: 'leaseHeld',
      heldByThisProcess: true,
      since: '2026-11-26T11:59:59.000Z',
      expiresBy: '2026-11-26T12:00:59.000Z',
      infinite: false,
      possiblyCrashedWorker: false,
    });
    expect(whyWaiting(instanceIn(claim, 'submitted'), claim, { now, lease: { held: false } }).class).toBe(WaitingClass.waitingForTrigger);
  });

  it('held notifications: listed after what holds them (a suspension)', () => {
    const held = [trigger('ChildCompleted', { id: 'child-done' })];
    const answer = whyWaiting(instanceIn(claim, 'submitted', { status: 'suspended', heldTriggers: held }), claim, { now });
    // Suspended, it takes no trigger: its state's triggers are no reason.
    expect(classesOf(answer)).toEqual([WaitingClass.suspended, WaitingClass.heldNotifications]);
    expect(answer.reasons[1]).toEqual({ class: 'heldNotifications', count: 1, triggers: [{ triggerId: 'child-done', name: 'ChildCompleted' }] });
  });

  it('final: complete and cancelled instances answer the class `final`, nothing else', () => {
    for (const status of ['complete', 'cancelled'] as const) {
      const answer = whyWaiting(instanceIn(claim, 'paid', { status, updatedAt: '2026-11-01T00:00:00.000Z' }), claim, { now, lease: { held: true } });
      expect(answer.reasons).toEqual([{ class: 'final', status, at: '2026-11-01T00:00:00.000Z' }]);
    }
  });

  it('orders every reason by the documented precedence, the primary first', () => {
    const pendingRetry = { triggerId: 't1', triggerName: 'Approve', attempt: 1, nextAttemptAt: '2026-11-26T12:05:00.000Z', stepPath: 'x', lastError: { type: 'http:5xx' as const, message: 'e' } };
    const facts = { now, lease: { held: true }, runningChildren: { items: [], more: 1 } };
    const overrides = { pendingRetry, timers: [{ transitionId: 'expire', dueAt: '2026-12-01T00:00:00.000Z' }], heldTriggers: [trigger('ChildCompleted')] };
    const waiting = whyWaiting(instanceIn(claim, 'submitted', overrides), claim, facts);
    expect(classesOf(waiting)).toEqual(['leaseHeld', 'waitingForRetry', 'waitingForChildren', 'waitingForTimer', 'waitingForTrigger', 'heldNotifications']);
    // Faulted, it takes no trigger and fires no timer: those of its state are no reason.
    const faulted = whyWaiting(instanceIn(claim, 'submitted', { ...overrides, status: 'faulted' }), claim, facts);
    expect(classesOf(faulted)).toEqual(['faulted', 'leaseHeld', 'waitingForRetry', 'waitingForChildren', 'heldNotifications']);
    expect(waitingClassValues).toEqual([
      'final',
      'faulted',
      'suspended',
      'queuedForSlot',
      'waitingForRoom',
      'leaseHeld',
      'waitingForRetry',
      'debounced',
      'waitingForChildren',
      'waitingForTimer',
      'waitingForTrigger',
      'heldNotifications',
      'stranded',
    ]);
  });
});

describe('WaitingTally', () => {
  it('counts per class and state with the oldest, the trigger names, and fault causes grouped', () => {
    const tally = new WaitingTally();
    const waiting = (id: string, updatedAt: string) => whyWaiting(instanceIn(claim, 'submitted', { id, updatedAt }), claim, { now });
    tally.add(waiting('a', '2026-11-20T00:00:00.000Z'));
    tally.add(waiting('b', '2026-11-17T00:00:00.000Z'));
    tally.add(whyWaiting(instanceIn(claim, 'paid', { status: 'complete' }), claim, { now }));
    for (let index = 0; index < MAX_FAULT_CAUSES + 4; index++) {
      const message = index < 3 ? 'not on the allow-list' : `cause ${index}`;
      tally.add(whyWaiting(instanceIn(claim, 'submitted', { id: `f${index}`, status: 'faulted', fault: { message, triggerId: null, at: `2026-11-2${index % 5}T00:00:00.000Z` } }), claim, { now }));
    }
    const summary = tally.summary('claim', false);
    expect(summary).toMatchObject({ workflowId: 'claim', scanned: 17, notFinal: 16, truncated: false });
    const [faulted, trigger] = summary.groups;
    expect(trigger).toEqual({
      class: 'waitingForTrigger',
      stateId: 'submitted',
      count: 2,
      oldest: { instanceId: 'b', since: '2026-11-17T00:00:00.000Z' },
      triggerNames: ['Approve', 'Reject', 'Withdraw'],
    });
    expect(faulted).toMatchObject({ class: 'faulted', stateId: 'submitted', count: 14, oldest: { instanceId: 'f0', since: '2026-11-20T00:00:00.000Z' }, otherCauses: 2 });
    expect(faulted?.causes).toHaveLength(MAX_FAULT_CAUSES);
    expect(faulted?.causes?.[0]).toEqual({ cause: 'not on the allow-list', count: 3 });
  });
});

describe('Engine.whyWaiting and Engine.waitingSummary (in-memory ports)', () => {
  it('reads what the instance row holds (a pending retry), the lease, and the entry that suspended it', async () => {
    const { engine, instances, leases, clock } = testEngine();
    await engine.createWorkflow(claim);
    await engine.createInstance({ workflowId: 'claim', instanceId: 'r1' });
    const stored = await engine.getInstance('r1');
    const pendingRetry = {
      triggerId: 't1',
      triggerName: 'Approve',
      attempt: 2,
      nextAttemptAt: '2030-01-01T00:00:00.000Z',
      stepPath: 'states.submitted.transitions[0].actions[0]',
      lastError: { type: 'http:5xx' as const, message: 'HTTP 503' },
    };
    await instances.save({ ...stored, pendingRetry }, {}, { ifMatch: stored.etag });
    const retrying = await engine.whyWaiting('r1');
    expect(retrying.class).toBe('waitingForRetry');
    expect(retrying.reasons[0]).toEqual({ class: 'waitingForRetry', ...pendingRetry });

    // While a change holds its lease, in this process: since when it was taken.
    const during = await leases.withLease('r1', () => engine.whyWaiting('r1'));
    expect(during.reasons[0]).toMatchObject({ class: 'leaseHeld', heldByThisProcess: true, possiblyCrashedWorker: false, since: expect.any(String) });

    await engine.createInstance({ workflowId: 'claim', instanceId: 's1' });
    await engine.suspend('s1');
    const suspended = await engine.whyWaiting('s1');
    expect(suspended.reasons[0]).toMatchObject({ class: 'suspended', since: clock.now().toISOString() });

    const summary = await engine.waitingSummary('claim');
    expect(summary.groups.map((group) => [group.class, group.stateId, group.count])).toEqual(
      expect.arrayContaining([
        ['waitingForRetry', 'submitted', 1],
        ['suspended', 'submitted', 1],
      ]),
    );
    await expect(engine.whyWaiting('nobody')).rejects.toThrow('does not exist');
    await expect(engine.waitingSummary('nothing')).rejects.toThrow();
  });
});
