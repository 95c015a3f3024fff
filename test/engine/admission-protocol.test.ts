/**
 * The admission protocol of states with `capacity` (decision 0023: plan, reserve, save, confirm or release),
 * crashed at each of its points. A "process" is an Engine; a crash is a store call that never answers (so
 * nothing after it runs, not even a `finally`), and the lease's expiry is the in-memory lease broken. A
 * fresh engine on the same stores must then converge: no place held by a non-member, no member missing from
 * the row, the limit never exceeded. In memory, on the manual clock.
 */
import { Engine, type Trigger, type WorkflowDefinitionInput } from '../../src/engine';
import { capacityRowKey, capacityRows, rowValue } from '../../src/engine/admission';
import { InMemoryDueTimerIndex, InMemorySearchIndex, ManualClock, createInMemoryPorts } from '../../src/testing';
import { recordingLogger } from './support';

const LIMIT = 2;
const KEY = 'customer:42';

const workflow = {
  id: 'desk',
  displayName: 'Desk',
  initialStateId: 'idle',
  states: {
    idle: { transitions: [{ id: 'enter', targetStateId: 'busy', conditions: [{ type: 'triggerName', name: 'Step' }] }] },
    busy: {
      capacity: { key: 'customer:{{context.customer}}', limit: LIMIT },
      transitions: [{ id: 'leave', targetStateId: 'idle', conditions: [{ type: 'triggerName', name: 'Step' }] }],
    },
  },
} as WorkflowDefinitionInput;

let round = 0;
const step = (instanceId: string): Trigger => ({ id: `step-${instanceId}-${++round}`, name: 'Step', subjects: [instanceId] });

async function setUp(ids: readonly string[]) {
  const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex(), search: new InMemorySearchIndex() };
  const clock = new ManualClock('2026-12-03T10:00:00.000Z');
  let n = 0;
  /** A process: an engine of its own over the shared stores. */
  const start = () => new Engine(ports, { clock, logger: recordingLogger(), newId: () => `gen-${++n}` });
  const first = start();
  await first.createWorkflow(workflow);
  for (const id of ids) await first.createInstance({ workflowId: 'desk', instanceId: id, context: { customer: '42' } });
  /** The row's members and the instances really in `busy`, each sorted. */
  const places = async () => {
    const members = rowValue(await ports.flow.getRow('desk', capacityRows, capacityRowKey('busy', KEY))).members.map((member) => member.instanceId);
    const inBusy: string[] = [];
    for (const id of ids) if ((await ports.instances.get(id))?.stateId === 'busy') inBusy.push(id);
    return { members: [...members].sort(), inBusy: inBusy.sort() };
  };
  return { ports, clock, first, start, places };
}

/** A call that stops the process there: it never answers. `reached` resolves when it is made. */
function crashPoint() {
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return { reached, stop: <T>(): Promise<T> => (reach(), new Promise<T>(() => {})) };
}

describe('the admission protocol, crashed at each point', () => {
  it('a trigger admitted writes its row once, when the run loop reserves the plan; a full row queues the next one', async () => {
    const { ports, first, places } = await setUp(['a', 'b', 'c']);
    const writes: string[] = [];
    const putRow = ports.flow.putRow.bind(ports.flow);
    ports.flow.putRow = async (workflowId, kind, rowKey, value, options) => {
      writes.push(rowKey);
      return putRow(workflowId, kind, rowKey, value, options);
    };
    expect((await first.applyTrigger('a', step('a'))).outcome).toBe('transitioned');
    expect(writes).toEqual([capacityRowKey('busy', KEY)]);
    await first.applyTrigger('b', step('b'));
    expect((await first.applyTrigger('c', step('c'))).outcome).toBe('capacityQueued');
    expect(await places()).toEqual({ members: ['a', 'b'], inBusy: ['a', 'b'] });
  });

  it('reserve lost its race: another process took the last place between the plan and the reservation, so the trigger is decided again and queued', async () => {
    const { ports, first, start, places } = await setUp(['a', 'b', 'c']);
    await first.applyTrigger('b', step('b'));
    const other = start();
    const putRow = ports.flow.putRow.bind(ports.flow);
    let raced = false;
    ports.flow.putRow = async (workflowId, kind, rowKey, value, options) => {
      if (!raced) {
        raced = true;
        // Between a's plan (1/2: room) and its reservation, c is counted in by another process.
        expect((await other.applyTrigger('c', step('c'))).outcome).toBe('transitioned');
      }
      return putRow(workflowId, kind, rowKey, value, options);
    };
    const a = await first.applyTrigger('a', step('a'));
    expect(a.outcome).toBe('capacityQueued');
    expect(a.trace?.[0]).toMatchObject({ type: 'capacity', result: false, detail: `queued: ${KEY} at 2/2 in busy` });
    expect(await places()).toEqual({ members: ['b', 'c'], inBusy: ['b', 'c'] });
  });

  it('crash after reserve, before save: the place counts while the lease is held; after it runs out the next full check drops it, and the retried trigger is counted once', async () => {
    const { ports, clock, first, start, places } = await setUp(['a', 'b', 'c', 'd']);
    await first.applyTrigger('b', step('b'));
    const crash = crashPoint();
    const save = ports.instances.save.bind(ports.instances);
    ports.instances.save = (instance, write, options) => (instance.id === 'a' ? crash.stop() : save(instance, write, options));
    void first.applyTrigger('a', step('a'));
    await crash.reached;
    ports.instances.save = save;
    const restarted = start();
    // a's reservation is on the row and its lease is held (its process may yet save): c waits.
    expect((await restarted.applyTrigger('c', step('c'))).outcome).toBe('capacityQueued');
    expect((await places()).members).toEqual(['a', 'b']);
    // The dead process's lease runs out; the operation's retry applies a's trigger again: already counted, it enters once.
    await clock.advanceBy(61_000);
    ports.leases.break('a');
    expect((await restarted.applyTrigger('a', step('a'))).outcome).toBe('transitioned');
    expect(await places()).toEqual({ members: ['a', 'b'], inBusy: ['a', 'b'] });
    expect((await restarted.applyTrigger('d', step('d'))).outcome).toBe('capacityQueued');
  });

  it('crash after reserve, before save, never retried: once the lease ran out the next full check frees the place for a waiter', async () => {
    const { ports, first, start, places } = await setUp(['a', 'b', 'c']);
    await first.applyTrigger('b', step('b'));
    const crash = crashPoint();
    const save = ports.instances.save.bind(ports.instances);
    ports.instances.save = (instance, write, options) => (instance.id === 'a' ? crash.stop() : save(instance, write, options));
    void first.applyTrigger('a', step('a'));
    await crash.reached;
    ports.instances.save = save;
    ports.leases.break('a');
    const restarted = start();
    expect((await restarted.applyTrigger('c', step('c'))).outcome).toBe('transitioned');
    expect(await places()).toEqual({ members: ['b', 'c'], inBusy: ['b', 'c'] });
  });

  it('a save slower than the pending window, its lease held (the cause of seed 777): the place still counts, so no third instance enters', async () => {
    const { ports, clock, first, start, places } = await setUp(['a', 'b', 'c']);
    await first.applyTrigger('b', step('b'));
    let resume!: () => void;
    const slow = new Promise<void>((resolve) => (resume = resolve));
    const atSave = crashPoint();
    const save = ports.instances.save.bind(ports.instances);
    ports.instances.save = async (instance, write, options) => {
      if (instance.id === 'a') {
        void atSave.stop();
        await slow;
      }
      return save(instance, write, options);
    };
    const applying = first.applyTrigger('a', step('a'));
    await atSave.reached;
    // Longer than the lease's duration (60 s): a fixed window would have dropped a's reservation and let c in.
    await clock.advanceBy(61_000);
    expect((await start().applyTrigger('c', step('c'))).outcome).toBe('capacityQueued');
    resume();
    expect((await applying).outcome).toBe('transitioned');
    expect(await places()).toEqual({ members: ['a', 'b'], inBusy: ['a', 'b'] });
  });

  it('after save, before confirm: a reservation dropped while the save was slow (its lease lost) is listed again, so the row never counts fewer than are in the state', async () => {
    const { ports, clock, first, start, places } = await setUp(['a', 'b', 'c', 'd']);
    await first.applyTrigger('b', step('b'));
    let resume!: () => void;
    const slow = new Promise<void>((resolve) => (resume = resolve));
    const atSave = crashPoint();
    const save = ports.instances.save.bind(ports.instances);
    ports.instances.save = async (instance, write, options) => {
      if (instance.id === 'a') {
        void atSave.stop();
        await slow;
      }
      return save(instance, write, options);
    };
    const applying = first.applyTrigger('a', step('a'));
    await atSave.reached;
    await clock.advanceBy(61_000);
    // The lease is lost after the save was sent (past its last check): another process sees it free and drops a.
    ports.leases.break('a');
    const other = start();
    expect((await other.applyTrigger('c', step('c'))).outcome).toBe('transitioned');
    resume();
    await applying;
    // The save landed: a is in the state, and the confirmation listed it again (3 of 2, said so, not hidden).
    expect(await places()).toEqual({ members: ['a', 'b', 'c'], inBusy: ['a', 'b', 'c'] });
    expect((await other.applyTrigger('d', step('d'))).outcome).toBe('capacityQueued');
  });

  it('crash after save, before the count out: the instance left, the row still lists it; the next full check reads its record and drops it', async () => {
    const { ports, first, start, places } = await setUp(['a', 'b', 'c']);
    await first.applyTrigger('a', step('a'));
    await first.applyTrigger('b', step('b'));
    const crash = crashPoint();
    const save = ports.instances.save.bind(ports.instances);
    const putRow = ports.flow.putRow.bind(ports.flow);
    let saved = false;
    ports.instances.save = async (instance, write, options) => {
      const done = await save(instance, write, options);
      saved ||= instance.id === 'a';
      return done;
    };
    ports.flow.putRow = (workflowId, kind, rowKey, value, options) => (saved ? crash.stop() : putRow(workflowId, kind, rowKey, value, options));
    void first.applyTrigger('a', step('a'));
    await crash.reached;
    ports.instances.save = save;
    ports.flow.putRow = putRow;
    ports.leases.break('a');
    expect(await places()).toEqual({ members: ['a', 'b'], inBusy: ['b'] });
    expect((await start().applyTrigger('c', step('c'))).outcome).toBe('transitioned');
    expect(await places()).toEqual({ members: ['b', 'c'], inBusy: ['b', 'c'] });
  });

  it('a failed change (its error answered) settles against the stored instance: the place it reserved is given back at once', async () => {
    const { ports, first, places } = await setUp(['a', 'b', 'c']);
    await first.applyTrigger('b', step('b'));
    const save = ports.instances.save.bind(ports.instances);
    ports.instances.save = async (instance, write, options) => {
      if (instance.id === 'a') throw new Error('storage unavailable');
      return save(instance, write, options);
    };
    await expect(first.applyTrigger('a', step('a'))).rejects.toThrow('storage unavailable');
    ports.instances.save = save;
    expect(await places()).toEqual({ members: ['b'], inBusy: ['b'] });
    expect((await first.applyTrigger('c', step('c'))).outcome).toBe('transitioned');
  });
});
