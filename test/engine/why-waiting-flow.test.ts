/**
 * "Why is it stuck?" under flow control, on in-memory ports: a burst held back by `flow.debounce` is named
 * with when it will be applied, and a trigger waiting in a `flow.concurrency` key's queue with its place,
 * the key's count and limit and how to see the key; a workflow without a concurrency policy reads no row.
 */
import { z } from 'zod';
import { Engine, WaitingClass, createRegistry, defineCondition, type WaitingAnswer, type WorkflowDefinitionInput } from '../../src/engine';
import { InMemoryDueTimerIndex, InMemoryFlowStore, ManualClock, createInMemoryPorts } from '../../src/testing';
import { recordingLogger, testEngine, trigger } from './support';

const SECOND = 1000;
const reasonOf = <C extends WaitingClass>(answer: WaitingAnswer, cls: C) => answer.reasons.find((reason): reason is Extract<WaitingAnswer['reasons'][number], { class: C }> => reason.class === cls);

describe('why waiting: a debounced burst', () => {
  const profile: WorkflowDefinitionInput = {
    id: 'profile',
    displayName: 'Profile',
    initialStateId: 'open',
    flow: { debounce: [{ trigger: 'Update', periodMs: 5 * SECOND, maxWaitMs: 60 * SECOND }] },
    states: { open: { transitions: [{ id: 'update', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Update' }] }] } },
  };

  it('names the burst, how many it holds and when it will be applied (quiet, and at the latest); gone once applied', async () => {
    const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex() };
    const clock = new ManualClock('2026-11-26T10:00:00.000Z');
    const engine = new Engine(ports, { clock, logger: recordingLogger() });
    await engine.createWorkflow(profile);
    await engine.createInstance({ workflowId: 'profile', instanceId: 'p1' });
    await engine.applyTrigger('p1', { id: 'u1', name: 'Update', subjects: ['p1'], parameters: {} });
    await clock.advanceBy(2 * SECOND);
    await engine.applyTrigger('p1', { id: 'u2', name: 'Update', subjects: ['p1'], parameters: {} });

    const answer = await engine.whyWaiting('p1');
    expect(answer.class).toBe(WaitingClass.debounced);
    expect(reasonOf(answer, WaitingClass.debounced)).toEqual({
      class: WaitingClass.debounced,
      bursts: [{ triggerName: 'Update', coalesced: 2, firstAt: '2026-11-26T10:00:00.000Z', dueAt: '2026-11-26T10:00:07.000Z', latestAt: '2026-11-26T10:01:00.000Z', overdue: false }],
    });
    // It still answers triggers: the trigger reason follows.
    expect(answer.reasons.map((reason) => reason.class)).toEqual([WaitingClass.debounced, WaitingClass.waitingForTrigger]);

    await clock.advanceBy(5 * SECOND);
    expect((await engine.getInstance('p1')).debounces ?? []).toEqual([]);
    expect(reasonOf(await engine.whyWaiting('p1'), WaitingClass.debounced)).toBeUndefined();
  });
});

describe('why waiting: a trigger queued for a concurrency slot', () => {
  let release: () => void = () => undefined;
  let entered = 0;
  const hold = defineCondition({
    type: 'hold',
    schema: z.strictObject({ type: z.literal('hold'), id: z.string().optional() }),
    evaluate: async () => {
      entered++;
      await new Promise<void>((resolve) => (release = resolve));
      return true;
    },
  });
  const registry = createRegistry({ conditions: [hold] });
  const orders = (flow: object | undefined) =>
    ({
      id: 'orders',
      displayName: 'Orders',
      initialStateId: 'open',
      ...(flow ? { flow } : {}),
      states: { open: { transitions: [{ id: 'work', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Work' }, { type: 'hold' }] }] } },
    }) as WorkflowDefinitionInput;

  async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it("names the key, the trigger's place in its queue, what runs against the limit, and how to see the key", async () => {
    const { engine } = testEngine({ registry, maxLeaseWaitInMs: 20_000 });
    await engine.createWorkflow(orders({ concurrency: { key: "'customer:' & context.customer", limit: 1, maxWait: 'PT60S' } }));
    for (const id of ['a0', 'a1']) await engine.createInstance({ workflowId: 'orders', instanceId: id, context: { customer: 'A' } });
    const first = engine.applyTrigger('a0', trigger('Work', { subjects: ['a0'] }));
    await until(() => entered === 1, 'the first application');
    const second = engine.applyTrigger('a1', trigger('Work', { id: 'waiting-one', subjects: ['a1'], priority: 4 }));
    await until(async () => (await engine.flow!.view('orders', 'customer:A')).queued.length === 1, 'the second trigger queued');

    const answer = await engine.whyWaiting('a1');
    expect(answer.class).toBe(WaitingClass.queuedForSlot);
    expect(answer.reasons.map((reason) => reason.class)).toEqual([WaitingClass.queuedForSlot, WaitingClass.leaseHeld, WaitingClass.waitingForTrigger]);
    expect(reasonOf(answer, WaitingClass.queuedForSlot)).toEqual({
      class: WaitingClass.queuedForSlot,
      queued: [{ key: 'customer:A', triggerId: 'waiting-one', priority: 4, arrivedAt: expect.any(String), position: 1, queuedOnKey: 1, running: 1, limit: 1 }],
      view: { cli: 'signalbox flow orders customer:A', http: { method: 'GET', path: '/api/flow/orders/keys/customer%3AA' } },
    });
    // The holder is not queued.
    expect(reasonOf(await engine.whyWaiting('a0'), WaitingClass.queuedForSlot)).toBeUndefined();

    release();
    await first;
    await until(() => entered === 2, 'the second application');
    release();
    await second;
    expect(reasonOf(await engine.whyWaiting('a1'), WaitingClass.queuedForSlot)).toBeUndefined();
  });

  it('reads no flow row for a workflow without a concurrency policy', async () => {
    const { engine, flow } = testEngine({ registry });
    await engine.createWorkflow(orders(undefined));
    await engine.createInstance({ workflowId: 'orders', instanceId: 'a0', context: { customer: 'A' } });
    expect((await engine.whyWaiting('a0')).class).toBe(WaitingClass.waitingForTrigger);
    expect((flow as InMemoryFlowStore).requests).toBe(0);
  });
});
