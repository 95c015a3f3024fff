/**
 * Issue 9, items 5, 6 and two of item 9, each failing on the engine before issue 10:
 * raised trigger ids that collided (`go1` on `j.k1` and `go1.j` on `k1` both raised `go1.j.k1.0`, and one
 * was dropped); a transition raising its own trigger ran forever; a change too large to save was
 * reported `faulted` while the instance stayed as it was; a create refused for size left index rows.
 */
import { MAX_CAUSAL_DEPTH, RAISED_TRIGGER_ID_PREFIX, TooLargeError, ValidationError, parseTrigger, raisedTriggerId } from '../../src/engine';
import { testEngine } from './support';

const relay = {
  id: 'relay',
  displayName: 'Relay',
  initialStateId: 'a',
  states: {
    a: {
      transitions: [
        {
          id: 'go',
          targetStateId: 'b',
          conditions: [{ type: 'triggerName', name: 'Go' }],
          actions: [{ type: 'raiseTrigger', trigger: { name: 'Heard', subjects: ['listeners'], parameters: { from: '{{instance.id}}' } } }],
        },
      ],
    },
    b: {},
  },
};

describe('raised trigger ids (issue 9, item 5)', () => {
  it('differ for every (instance, cause, index), including the reported collision, and carry the reserved prefix', () => {
    const a = raisedTriggerId('j.k1', 't.go1', 0);
    const b = raisedTriggerId('k1', 't.go1.j', 0);
    expect(a).not.toBe(b);
    expect([a, b].every((id) => id.startsWith(RAISED_TRIGGER_ID_PREFIX))).toBe(true);
    const long = 'x'.repeat(120);
    const hashed = [raisedTriggerId(long, 't.a', 0), raisedTriggerId(long, 't.a', 1), raisedTriggerId(`${long}y`, 't.a', 0)];
    expect(new Set(hashed).size).toBe(3);
    for (const id of hashed) expect(id).toMatch(/^raised:h\.[0-9a-f]{32}$/);
  });

  it('two instances whose old ids collided both deliver their raised trigger', async () => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(relay);
    await engine.createInstance({ workflowId: 'relay', instanceId: 'j.k1' });
    await engine.createInstance({ workflowId: 'relay', instanceId: 'k1' });
    await engine.applyTrigger('j.k1', { id: 'go1', name: 'Go', subjects: ['j.k1'] });
    await engine.applyTrigger('k1', { id: 'go1.j', name: 'Go', subjects: ['k1'] });
    expect(delivery.delivered.map((trigger) => trigger.parameters)).toEqual([{ from: 'j.k1' }, { from: 'k1' }]);
  });

  it('a client trigger id may not use the reserved prefix (400 naming `id`)', () => {
    const attempt = () => parseTrigger({ id: 'raised:2:k1:t.go1:0', name: 'Go', subjects: ['k1'] }, () => 'unused');
    expect(attempt).toThrow(ValidationError);
    try {
      attempt();
    } catch (error) {
      expect((error as ValidationError).issues).toEqual([expect.objectContaining({ path: 'id', message: expect.stringContaining('reserved') })]);
    }
    expect(parseTrigger({ id: 'raisedx', name: 'Go', subjects: ['k1'] }, () => 'unused').id).toBe('raisedx');
  });
});

describe('trigger loops (issue 9, item 6)', () => {
  it(`a transition that raises its own trigger ends faulted at causal depth ${MAX_CAUSAL_DEPTH} instead of looping`, async () => {
    const { engine } = testEngine({ inProcess: true });
    await engine.createWorkflow({
      id: 'loop',
      displayName: 'Loop',
      initialStateId: 'spinning',
      states: {
        spinning: {
          transitions: [
            {
              id: 'again',
              targetStateId: 'spinning',
              conditions: [{ type: 'triggerName', name: 'Spin' }],
              actions: [{ type: 'raiseTrigger', trigger: { name: 'Spin', subjects: ['{{instance.id}}'] } }],
            },
          ],
        },
      },
    });
    await engine.createInstance({ workflowId: 'loop', instanceId: 'l1' });
    await engine.applyTrigger('l1', { id: 'start', name: 'Spin', subjects: ['l1'] });
    const instance = await engine.getInstance('l1');
    expect(instance).toMatchObject({
      status: 'faulted',
      stateId: 'spinning',
      fault: { message: expect.stringContaining(`causal depth limit: raising trigger "Spin" would be follow-up work at causal depth ${MAX_CAUSAL_DEPTH + 1}, more than ${MAX_CAUSAL_DEPTH}`) },
    });
    const history = (await engine.getHistory('l1', { maxPageSize: 1000 })).items;
    // created, the client's trigger and 31 raised ones transitioned, the 32nd raised one faulted.
    expect(history.map((entry) => entry.event)).toEqual(['created', ...Array(MAX_CAUSAL_DEPTH).fill('transitioned'), 'faulted']);
  });
});

describe('size limits (issue 9, item 9)', () => {
  // A store made with a 1 MiB limit (SIGNALBOX_MAX_INSTANCE_MB=1): the default 16 MiB behaves the same, at 16 times the size.
  const limited = { maxInstanceBytes: 1024 * 1024 };
  const big = {
    id: 'big',
    displayName: 'Big',
    initialStateId: 'a',
    states: {
      a: {
        interests: ['owner:{{context.owner}}'],
        transitions: [
          {
            id: 'grow',
            targetStateId: 'b',
            conditions: [{ type: 'triggerName', name: 'Grow' }],
            actions: [{ type: 'setContext', expressions: { blob1: '$pad("", 600000, "x")', blob2: '$pad("", 600000, "y")' } }],
          },
        ],
      },
      b: { interests: ['b-watchers'] },
    },
  };

  it('a change too large to save faults the instance for real, with a small record', async () => {
    const { engine, instances, interests } = testEngine(limited);
    await engine.createWorkflow(big);
    await engine.createInstance({ workflowId: 'big', instanceId: 'g1', context: { owner: 'ann' } });
    const result = await engine.applyTrigger('g1', { id: 'grow-1', name: 'Grow', subjects: ['g1'] });
    expect(result).toMatchObject({ outcome: 'faulted', transitionId: 'grow', error: expect.stringContaining('larger than 1 MiB') });
    const stored = await instances.get('g1');
    expect(stored).toMatchObject({ status: 'faulted', stateId: 'a', context: { owner: 'ann' }, fault: { triggerId: 'grow-1', message: expect.stringContaining('could not be saved') } });
    expect(JSON.stringify(stored).length).toBeLessThan(10_000);
    expect((await engine.getHistory('g1')).items.map((entry) => entry.event)).toEqual(['created', 'faulted']);
    expect((await engine.applyTrigger('g1', { id: 'grow-1', name: 'Grow', subjects: ['g1'] })).outcome).toBe('duplicate');
    expect(interests.subjectsOf('g1')).toEqual(expect.arrayContaining(['g1', 'owner:ann']));
  });

  it('a create refused for size (413) leaves no interest rows behind', async () => {
    const { engine, interests } = testEngine(limited);
    await engine.createWorkflow(big);
    const creating = engine.createInstance({ workflowId: 'big', instanceId: 'huge', context: { owner: 'bob', blob: 'x'.repeat(1_100_000) } });
    await expect(creating).rejects.toBeInstanceOf(TooLargeError);
    expect(interests.subjectsOf('huge')).toEqual([]);
    expect((await engine.findCandidates(['owner:bob'])).items).toEqual([]);
  });
});

describe('the interest index (documented behaviour)', () => {
  it('a failed removal of stale interest rows is only logged: the change stands', async () => {
    const { engine, interests, logger } = testEngine();
    await engine.createWorkflow({
      id: 'moving',
      displayName: 'Moving',
      initialStateId: 'a',
      states: {
        a: { interests: ['owner:{{context.owner}}'], transitions: [{ id: 'move', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Move' }] }] },
        b: { transitions: [{ id: 'end', targetStateId: 'c', conditions: [{ type: 'triggerName', name: 'End' }] }] },
        c: {},
      },
    });
    await engine.createInstance({ workflowId: 'moving', instanceId: 'm1', context: { owner: 'ann' } });
    interests.remove = async () => {
      throw new Error('index unavailable');
    };
    expect((await engine.applyTrigger('m1', { id: 'move-1', name: 'Move', subjects: ['m1'] })).outcome).toBe('transitioned');
    expect((await engine.getInstance('m1')).stateId).toBe('b');
    expect(logger.lines).toContainEqual({ level: 'warn', message: 'Could not remove stale interest rows', properties: { instanceId: 'm1', error: 'Error: index unavailable' } });
    // The stale row stays: a trigger for it is offered and answered notInterested.
    expect(interests.subjectsOf('m1')).toContain('owner:ann');
    expect((await engine.publish({ id: 'late', name: 'Move', subjects: ['owner:ann'] })).map((result) => result.outcome)).toEqual(['notInterested']);
  });
});
