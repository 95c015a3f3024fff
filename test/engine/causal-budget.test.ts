/**
 * Issue 22, group 1: one causal budget for every kind of follow-up work. Each loop the issue found, on
 * in-memory ports: a workflow starting itself from its initial state, a parent and child answering each
 * other's ChildCompleted, a timer re-entering its own state with a zero or a past due time (and the depth
 * surviving a restart), a fast timer loop paced by a small positive delay; and the legitimate chains the
 * bounds must never fault. Loops that ran without end before are cut by a fuse (a store that refuses
 * after a few hundred writes, or a capped pump), so a failure is an assertion, not a hang.
 */
import { Engine, MAX_CAUSAL_BUDGET, MAX_CAUSAL_DEPTH, MAX_SELF_CAUSED_CHANGES_PER_MINUTE, type DueTimer, type WorkflowDefinitionInput } from '../../src/engine';
import { InMemoryDueTimerIndex, ManualClock, collectAll, createInMemoryPorts } from '../../src/testing';
import { recordingLogger, testEngine } from './support';

/** In-memory ports whose instance store refuses (a plain, non-retryable error) after `limit` creations. */
function fusedPorts(limit = 200) {
  const ports = createInMemoryPorts({ maxLeaseWaitInMs: 1000 });
  const create = ports.instances.create.bind(ports.instances);
  let created = 0;
  ports.instances.create = (...args: Parameters<typeof create>) => {
    if (++created > limit) return Promise.reject(new Error('fuse: too many instances'));
    return create(...args);
  };
  return { ports, created: () => created };
}

async function historyEvents(engine: Engine, instanceId: string): Promise<string[]> {
  return (await engine.getHistory(instanceId, { maxPageSize: 1000 })).items.map((entry) => entry.event);
}

const selfStarting: WorkflowDefinitionInput = {
  id: 'self-starter',
  displayName: 'Starts itself',
  initialStateId: 'born',
  states: {
    born: {
      entryActions: [{ type: 'startInstance', workflowId: 'self-starter' }],
      transitions: [{ id: 'stop', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Stop' }] }],
    },
    done: {},
  },
};

describe('one causal depth across every kind of follow-up work', () => {
  it('a workflow whose initial state starts an instance of itself stops at the causal depth limit, and its creation answers', async () => {
    const { ports, created } = fusedPorts();
    const engine = new Engine(ports, { logger: recordingLogger() });
    await engine.createWorkflow(selfStarting);
    const first = await engine.createInstance({ workflowId: 'self-starter', instanceId: 'adam' });
    expect(first.status).toBe('waiting');

    // The client's creation is depth 0, each generation one deeper: generations 0..MAX, and the last faults.
    expect(created()).toBe(MAX_CAUSAL_DEPTH + 1);
    const all = await collectAll((page) => engine.listInstances({ workflowId: 'self-starter' }, page));
    const faulted = all.filter((instance) => instance.status === 'faulted');
    expect(faulted).toHaveLength(1);
    expect(faulted[0]!.fault!.message).toMatch(/causal depth/);
    expect(faulted[0]!.fault!.message).toContain('starting an instance of workflow "self-starter"');
  });

  it("a parent and child answering each other's ChildCompleted stop at the limit: creating a child does not reset the depth", async () => {
    const { ports, created } = fusedPorts();
    const engine = new Engine(ports, { logger: recordingLogger() });
    await engine.createWorkflow({ id: 'pong', displayName: 'Pong', initialStateId: 'done', states: { done: {} } });
    await engine.createWorkflow({
      id: 'ping',
      displayName: 'Ping',
      initialStateId: 'asking',
      states: {
        asking: {
          entryActions: [{ type: 'startInstance', workflowId: 'pong' }],
          transitions: [{ id: 'again', targetStateId: 'asking', conditions: [{ type: 'triggerName', name: 'ChildCompleted' }] }],
        },
      },
    });
    await engine.createInstance({ workflowId: 'ping', instanceId: 'p1' });

    const parent = await engine.getInstance('p1');
    expect(parent.status).toBe('faulted');
    expect(parent.fault!.message).toMatch(/causal depth/);
    // Each round is two steps deep (the child's creation, then its notification): MAX / 2 children.
    const children = await collectAll((page) => engine.listInstances({ parentId: 'p1' }, page));
    expect(children).toHaveLength(MAX_CAUSAL_DEPTH / 2);
    expect(created()).toBe(MAX_CAUSAL_DEPTH / 2 + 1);
  });

  const timerLoop = (timer: { after?: string; at?: string }): WorkflowDefinitionInput => ({
    id: 'ticker',
    displayName: 'Ticker',
    initialStateId: 'tick',
    states: {
      tick: {
        transitions: [
          { id: 'again', targetStateId: 'tick', timer, actions: [{ type: 'setContext', expressions: { turns: '$count(context.turns) = 0 ? 1 : context.turns + 1' } }] },
          { id: 'stop', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Stop' }] },
        ],
      },
      done: {},
    },
  });

  /** Fires the recorded timers (as a host's scheduler would), at most `cap` of them. */
  async function pumpTimers(engine: Engine, timers: DueTimer[], cap = 300): Promise<number> {
    let fired = 0;
    while (timers.length > 0 && fired < cap) {
      await engine.fireTimer(timers.shift()!);
      fired++;
    }
    return fired;
  }

  it.each([
    ['after PT0S', { after: 'PT0S' }],
    ['a past "at"', { at: '"2000-01-01T00:00:00Z"' }],
  ])('a timer re-entering its own state with %s faults at the causal depth limit, naming the timer', async (_label, timer) => {
    const { engine, delivery } = testEngine();
    await engine.createWorkflow(timerLoop(timer));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 't1' });
    await pumpTimers(engine, delivery.timers);

    const instance = await engine.getInstance('t1');
    expect(instance.status).toBe('faulted');
    expect(instance.fault!.message).toMatch(/causal depth/);
    expect(instance.fault!.message).toContain('timer of transition "again"');
    // created (depth 0), then MAX - 1 turns whose timers were due at once, then the fault.
    expect(await historyEvents(engine, 't1')).toEqual(['created', ...Array(MAX_CAUSAL_DEPTH - 1).fill('transitioned'), 'faulted']);
  });

  it('the depth of a due timer survives a restart: the loop does not start again at 0', async () => {
    const clock = new ManualClock('2026-11-20T16:00:00.000Z');
    const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex() };
    const noScheduler = { timer: async () => undefined };
    // The local server's way: timers are fired from the due-timer index, not from memory.
    const fireFromIndex = async (engine: Engine, cap: number) => {
      let fired = 0;
      while (fired < cap) {
        const due: DueTimer[] = [];
        for await (const timer of ports.dueTimers.listDue(clock.now())) due.push(timer);
        if (due.length === 0) break;
        await ports.dueTimers.remove(due);
        for (const timer of due) {
          await engine.fireTimer(timer);
          fired++;
        }
      }
      return fired;
    };
    const before = new Engine(ports, { clock, logger: recordingLogger() }).withDelivery(noScheduler);
    await before.createWorkflow(timerLoop({ after: 'PT0S' }));
    await before.createInstance({ workflowId: 'ticker', instanceId: 't1' });
    expect(await fireFromIndex(before, 10)).toBe(10);

    const after = new Engine(ports, { clock, logger: recordingLogger() }).withDelivery(noScheduler);
    await fireFromIndex(after, 300);
    const instance = await after.getInstance('t1');
    expect(instance.status).toBe('faulted');
    expect(await historyEvents(after, 't1')).toHaveLength(MAX_CAUSAL_DEPTH + 1);
  });
});

describe('the bound on changes an instance makes to itself without outside input', () => {
  it(`a timer loop paced by a small positive delay faults after ${MAX_SELF_CAUSED_CHANGES_PER_MINUTE} self-caused changes within a minute`, async () => {
    const clock = new ManualClock('2026-11-20T16:00:00.000Z');
    const engine = new Engine(createInMemoryPorts(), { clock, logger: recordingLogger() });
    await engine.createWorkflow({
      id: 'fast',
      displayName: 'Fast',
      initialStateId: 'tick',
      states: { tick: { transitions: [{ id: 'again', targetStateId: 'tick', timer: { after: 'PT0.1S' }, actions: [{ type: 'setContext', values: { ticking: true } }] }] } },
    });
    await engine.createInstance({ workflowId: 'fast', instanceId: 'f1' });
    await clock.advanceBy(60_000);

    const instance = await engine.getInstance('f1');
    expect(instance.status).toBe('faulted');
    expect(instance.fault!.message).toContain(`${MAX_SELF_CAUSED_CHANGES_PER_MINUTE} times within a minute`);
    expect(instance.fault!.message).toContain('timer of transition "again"');
    expect(await historyEvents(engine, 'f1')).toEqual(['created', ...Array(MAX_SELF_CAUSED_CHANGES_PER_MINUTE).fill('transitioned'), 'faulted']);
  });

  it('a timer loop paced at one second runs for ten minutes unfaulted (60 a minute is within the bound)', async () => {
    const clock = new ManualClock('2026-11-20T16:00:00.000Z');
    const engine = new Engine(createInMemoryPorts(), { clock, logger: recordingLogger() });
    await engine.createWorkflow({
      id: 'poller',
      displayName: 'Poller',
      initialStateId: 'poll',
      states: { poll: { transitions: [{ id: 'again', targetStateId: 'poll', timer: { after: 'PT1S' }, actions: [{ type: 'setContext', values: { polled: true } }] }] } },
    });
    await engine.createInstance({ workflowId: 'poller', instanceId: 'p1' });
    await clock.advanceBy(600_000);
    const instance = await engine.getInstance('p1');
    expect(instance.status).toBe('waiting');
    expect((await engine.getHistory('p1', { maxPageSize: 1000 })).items).toHaveLength(601);
  });

  it('a long chain driven by outside triggers is never faulted, however fast: each outside trigger starts the count again', async () => {
    const { engine } = testEngine({ inProcess: true });
    await engine.createWorkflow({
      id: 'stepper',
      displayName: 'Stepper',
      initialStateId: 'idle',
      states: {
        idle: {
          transitions: [
            {
              id: 'step',
              targetStateId: 'working',
              conditions: [{ type: 'triggerName', name: 'Step' }],
              actions: [{ type: 'raiseTrigger', trigger: { name: 'Next', subjects: ['{{instance.id}}'] } }],
            },
          ],
        },
        working: {
          transitions: [
            {
              id: 'next',
              targetStateId: 'checking',
              conditions: [{ type: 'triggerName', name: 'Next' }],
              actions: [{ type: 'raiseTrigger', trigger: { name: 'Done', subjects: ['{{instance.id}}'] } }],
            },
          ],
        },
        checking: { transitions: [{ id: 'done', targetStateId: 'idle', conditions: [{ type: 'triggerName', name: 'Done' }] }] },
      },
    });
    await engine.createInstance({ workflowId: 'stepper', instanceId: 's1' });
    // The fake clock stands still: 300 outside triggers and 600 self-raised changes all "at once".
    for (let round = 0; round < 300; round++) await engine.applyTrigger('s1', { id: `step-${round}`, name: 'Step', subjects: ['s1'] });
    const instance = await engine.getInstance('s1');
    expect(instance).toMatchObject({ status: 'waiting', stateId: 'idle' });
    expect(instance.historyLength).toBe(1 + 900);
  });
});

describe('one causal budget for a whole tree of follow-up work', () => {
  const twinStarting: WorkflowDefinitionInput = {
    id: 'twin-starter',
    displayName: 'Starts itself twice',
    initialStateId: 'born',
    states: {
      born: {
        entryActions: [
          { type: 'startInstance', workflowId: 'twin-starter' },
          { type: 'startInstance', workflowId: 'twin-starter' },
        ],
        transitions: [{ id: 'stop', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Stop' }] }],
      },
      done: {},
    },
  };

  it(`a workflow whose initial state starts itself twice makes at most ${MAX_CAUSAL_BUDGET} instances, not 2^33: the branches fault naming the budget`, async () => {
    // The fuse stops the run a little past the budget, so a failing bound is an assertion, not 2^33 creations.
    const { ports, created } = fusedPorts(MAX_CAUSAL_BUDGET + 50);
    const engine = new Engine(ports, { logger: recordingLogger() });
    await engine.createWorkflow(twinStarting);
    const first = await engine.createInstance({ workflowId: 'twin-starter', instanceId: 'eve' });
    expect(first.status).toBe('waiting');

    expect(created()).toBeLessThanOrEqual(MAX_CAUSAL_BUDGET);
    const all = await collectAll((page) => engine.listInstances({ workflowId: 'twin-starter' }, page));
    expect(all).toHaveLength(created());
    const faulted = all.filter((instance) => instance.status === 'faulted');
    expect(faulted.length).toBeGreaterThan(0);
    expect(all.filter((instance) => instance.status !== 'faulted').every((instance) => instance.status === 'waiting')).toBe(true);
    for (const instance of faulted) {
      expect(instance.fault!.message).toMatch(/^causal budget/);
      expect(instance.fault!.message).toContain('starting an instance of workflow "twin-starter"');
    }
    // Each creation spends 1 and gives each of its two children half the rest, rounded down: 10,000,
    // 4,999, 2,499, 1,249, 624, 311, 155, 77, 38, 18, 8, 3, 1. Thirteen generations; the last cannot start any.
    expect(created()).toBe(2 ** 13 - 1);
    expect(faulted).toHaveLength(2 ** 12);
    // The tree stops long before the depth would: the budget, not the depth, ended every branch.
    expect(faulted.every((instance) => !/causal depth/.test(instance.fault!.message))).toBe(true);
  }, 120_000);

  it('a legitimate wide tree works: a parent starts 50 children that each start 5 grandchildren, and hears all of them complete', async () => {
    const engine = new Engine(createInMemoryPorts({ maxLeaseWaitInMs: 5000 }), { logger: recordingLogger() });
    const gatherer = (id: string, childWorkflowId: string, children: number): WorkflowDefinitionInput => ({
      id,
      displayName: id,
      initialStateId: 'starting',
      states: {
        starting: {
          entryActions: Array.from({ length: children }, () => ({ type: 'startInstance', workflowId: childWorkflowId })),
          transitions: [{ id: 'first', targetStateId: 'gathering', conditions: [{ type: 'triggerName', name: 'ChildCompleted' }], actions: [{ type: 'setContext', values: { heard: 1 } }] }],
        },
        gathering: {
          transitions: [
            {
              id: 'last',
              targetStateId: 'done',
              conditions: [
                { type: 'triggerName', name: 'ChildCompleted' },
                { type: 'expression', expression: `context.heard = ${children - 1}` },
              ],
            },
            { id: 'next', targetStateId: 'gathering', conditions: [{ type: 'triggerName', name: 'ChildCompleted' }], actions: [{ type: 'setContext', expressions: { heard: 'context.heard + 1' } }] },
          ],
        },
        done: {},
      },
    });
    await engine.createWorkflow({ id: 'leaf', displayName: 'Leaf', initialStateId: 'done', states: { done: {} } });
    await engine.createWorkflow(gatherer('middle', 'leaf', 5));
    await engine.createWorkflow(gatherer('root', 'middle', 50));
    await engine.createInstance({ workflowId: 'root', instanceId: 'root-1' });

    expect(await engine.getInstance('root-1')).toMatchObject({ status: 'complete', stateId: 'done' });
    const middles = await collectAll((page) => engine.listInstances({ workflowId: 'middle' }, page));
    const leaves = await collectAll((page) => engine.listInstances({ workflowId: 'leaf' }, page));
    expect(middles).toHaveLength(50);
    expect(leaves).toHaveLength(250);
    expect([...middles, ...leaves].every((instance) => instance.status === 'complete')).toBe(true);
  }, 60_000);

  it('a broadcast to 10,000 instances works, from a client and raised by an instance: every recipient applies it with the budget it carries', async () => {
    const engine = new Engine(createInMemoryPorts({ maxLeaseWaitInMs: 5000 }), { logger: recordingLogger() });
    await engine.createWorkflow({
      id: 'member',
      displayName: 'Member',
      initialStateId: 'idle',
      states: {
        idle: {
          interests: ['fleet'],
          // Each recipient's change makes follow-up work of its own: a trigger to itself.
          transitions: [
            { id: 'ping', targetStateId: 'pinged', conditions: [{ type: 'triggerName', name: 'Ping' }], actions: [{ type: 'raiseTrigger', trigger: { name: 'Pong', subjects: ['{{instance.id}}'] } }] },
          ],
        },
        pinged: { transitions: [{ id: 'pong', targetStateId: 'idle', conditions: [{ type: 'triggerName', name: 'Pong' }] }] },
      },
    });
    await engine.createWorkflow({
      id: 'caller',
      displayName: 'Caller',
      initialStateId: 'idle',
      states: {
        idle: {
          transitions: [
            { id: 'call', targetStateId: 'idle', conditions: [{ type: 'triggerName', name: 'Call' }], actions: [{ type: 'raiseTrigger', trigger: { name: 'Ping', subjects: ['fleet'] } }] },
          ],
        },
      },
    });
    const fleet = 10_000;
    for (let index = 0; index < fleet; index++) await engine.createInstance({ workflowId: 'member', instanceId: `m-${index}` });
    await engine.createInstance({ workflowId: 'caller', instanceId: 'caller-1' });

    const fromClient = await engine.publish({ id: 'ping-1', name: 'Ping', subjects: ['fleet'] });
    expect(fromClient.filter((result) => result.outcome === 'transitioned')).toHaveLength(fleet);
    // Raised by an instance: more recipients than the budget, each applying it (and raising more) unfaulted.
    await engine.applyTrigger('caller-1', { id: 'call-1', name: 'Call', subjects: ['caller-1'] });
    const members = await collectAll((page) => engine.listInstances({ workflowId: 'member' }, page));
    expect(members.filter((instance) => instance.status === 'faulted')).toEqual([]);
    expect(members.every((instance) => instance.stateId === 'idle' && instance.historyLength === 5)).toBe(true);
  }, 300_000);
});
