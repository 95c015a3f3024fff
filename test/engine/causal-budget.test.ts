/**
 * Issue 22, group 1: one causal budget for every kind of follow-up work. Each loop the issue found, on
 * in-memory ports: a workflow starting itself from its initial state, a parent and child answering each
 * other's ChildCompleted, a timer re-entering its own state with a zero or a past due time (and the depth
 * surviving a restart), a fast timer loop paced by a small positive delay; and the legitimate chains the
 * bounds must never fault. Loops that ran without end before are cut by a fuse (a store that refuses
 * after a few hundred writes, or a capped pump), so a failure is an assertion, not a hang.
 */
import { Engine, MAX_CAUSAL_DEPTH, MAX_SELF_CAUSED_CHANGES_PER_MINUTE, type DueTimer, type WorkflowDefinitionInput } from '../../src/engine';
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

  it('a parent and child answering each other\'s ChildCompleted stop at the limit: creating a child does not reset the depth', async () => {
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
            { id: 'step', targetStateId: 'working', conditions: [{ type: 'triggerName', name: 'Step' }], actions: [{ type: 'raiseTrigger', trigger: { name: 'Next', subjects: ['{{instance.id}}'] } }] },
          ],
        },
        working: {
          transitions: [
            { id: 'next', targetStateId: 'checking', conditions: [{ type: 'triggerName', name: 'Next' }], actions: [{ type: 'raiseTrigger', trigger: { name: 'Done', subjects: ['{{instance.id}}'] } }] },
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
