/**
 * The `concurrency` flow-control policy on in-memory ports: at most `limit` applications in flight per key,
 * the rest admitted in order, a bounded wait handed back as retryable, overrides audited, and no storage
 * request at all for a workflow without a policy.
 */
import { z } from 'zod';
import { DefinitionInvalidError, FlowQueuedError, createRegistry, defineCondition, isRetryable, validateDefinition, type WorkflowDefinitionInput } from '../../src/engine';
import { InMemoryFlowStore } from '../../src/testing';
import { testEngine, trigger } from './support';

/** In-flight applications per key, held open until released: the probe blocks until `open` is called. */
class InFlight {
  readonly now = new Map<string, number>();
  readonly most = new Map<string, number>();
  readonly order: string[] = [];
  private gates: (() => void)[] = [];
  private autoOpen = false;
  async enter(key: string, label: string): Promise<void> {
    this.order.push(label);
    const count = (this.now.get(key) ?? 0) + 1;
    this.now.set(key, count);
    this.most.set(key, Math.max(this.most.get(key) ?? 0, count));
    if (!this.autoOpen) await new Promise<void>((resolve) => this.gates.push(resolve));
    this.now.set(key, (this.now.get(key) ?? 1) - 1);
  }
  openAll(): void {
    this.autoOpen = true;
    for (const gate of this.gates.splice(0)) gate();
  }
  openOne(): boolean {
    const gate = this.gates.shift();
    gate?.();
    return gate !== undefined;
  }
  get waiting(): number {
    return this.gates.length;
  }
}

let inFlight = new InFlight();
const hold = defineCondition({
  type: 'hold',
  schema: z.strictObject({ type: z.literal('hold'), id: z.string().optional() }),
  evaluate: async (_config, { scope }) => {
    await inFlight.enter(String(scope.context.customer), String(scope.trigger?.parameters?.label ?? scope.instance.id));
    return true;
  },
});
const registry = createRegistry({ conditions: [hold] });

function workflow(flow: object | undefined): WorkflowDefinitionInput {
  return {
    id: 'orders',
    displayName: 'Orders',
    initialStateId: 'open',
    ...(flow ? { flow } : {}),
    states: {
      open: {
        transitions: [
          {
            id: 'work',
            targetStateId: 'open',
            conditions: [{ type: 'triggerName', name: 'Work' }, { type: 'hold' }],
            actions: [{ type: 'setContext', expressions: { n: '$exists(context.n) ? context.n + 1 : 1' } }] as never,
          },
        ],
      },
    },
  } as WorkflowDefinitionInput;
}

async function setUp(flow: object | undefined, instances: { id: string; customer: string }[]) {
  const test = testEngine({ registry, maxLeaseWaitInMs: 20_000 });
  await test.engine.createWorkflow(workflow(flow));
  for (const { id, customer } of instances) await test.engine.createInstance({ workflowId: 'orders', instanceId: id, context: { customer } });
  return test;
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

beforeEach(() => {
  inFlight = new InFlight();
});

describe('flow.concurrency', () => {
  it('rejects a malformed key and a limit out of range, naming the field', () => {
    const pathsOf = (concurrency: object) => {
      try {
        validateDefinition(workflow({ concurrency }), registry);
        return [];
      } catch (error) {
        return (error as DefinitionInvalidError).issues.map((issue) => issue.path);
      }
    };
    expect(pathsOf({ key: 'context.(', limit: 2 })).toEqual(['flow.concurrency.key']);
    expect(pathsOf({ key: 'context.customer', limit: 0 })).toEqual(['flow.concurrency.limit']);
    expect(pathsOf({ key: 'context.customer', limit: 2, maxWait: 'PT10M' })).toEqual(['flow.concurrency.maxWait']);
    expect(pathsOf({ key: 'context.customer', limit: 2, maxWait: 'PT10S' })).toEqual([]);
  });

  it('holds at most `limit` applications in flight per key; other keys go on; the rest are admitted in arrival order', async () => {
    const instances = [...Array.from({ length: 6 }, (_, i) => ({ id: `a${i}`, customer: 'A' })), { id: 'b0', customer: 'B' }];
    const { engine } = await setUp({ concurrency: { key: "'customer:' & context.customer", limit: 2 } }, instances);

    const results = instances.slice(0, 6).map((instance, i) => engine.applyTrigger(instance.id, trigger('Work', { subjects: [instance.id], parameters: { label: `a${i}` } })));
    await until(() => inFlight.waiting === 2, 'two applications of key A in flight');
    // Give the waiters time to queue before another key's trigger shows that key B is not held up.
    await until(() => inFlight.order.length === 2, 'the first two');
    const b = engine.applyTrigger('b0', trigger('Work', { subjects: ['b0'], parameters: { label: 'b0' } }));
    await until(() => inFlight.waiting === 3, "key B's application beside A's two");
    expect(inFlight.now.get('A')).toBe(2);
    while (inFlight.order.length < 7 || inFlight.waiting > 0) {
      if (!inFlight.openOne()) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const settled = await Promise.all([...results, b]);

    expect(settled.map((result) => result.outcome)).toEqual(Array(7).fill('transitioned'));
    expect(inFlight.most.get('A')).toBe(2);
    expect(inFlight.order.filter((label) => label.startsWith('a'))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
    expect(settled[0]!.trace?.[0]).toEqual({ path: 'flow.concurrency', type: 'concurrency', result: true, detail: 'admitted: customer:A at 1/2' });
    expect(settled[5]!.trace?.[0]?.detail).toMatch(/^admitted: customer:A at \d\/2, after queued: customer:A at 2\/2$/);
    const view = await engine.flow!.view('orders', 'customer:A');
    expect(view).toMatchObject({ limit: 2, definedLimit: 2, running: [], queued: [], nextRelease: null });
  });

  it('hands a trigger back as retryable after the wait, saying where it stood, and changes nothing', async () => {
    const { engine } = await setUp({ concurrency: { key: 'context.customer', limit: 1, maxWait: 'PT0.2S' } }, [
      { id: 'a0', customer: 'A' },
      { id: 'a1', customer: 'A' },
    ]);
    const first = engine.applyTrigger('a0', trigger('Work', { subjects: ['a0'] }));
    await until(() => inFlight.waiting === 1, 'the first application');

    const refused = await engine.applyTrigger('a1', trigger('Work', { subjects: ['a1'] })).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(FlowQueuedError);
    expect(isRetryable(refused)).toBe(true);
    expect((refused as FlowQueuedError).detail).toBe('queued: A at 1/1');
    expect((await engine.getInstance('a1')).context.n).toBeUndefined();
    expect((await engine.flow!.view('orders', 'A')).queued).toEqual([]);
    inFlight.openAll();
    await first;
    // Retried later, it is applied.
    expect((await engine.applyTrigger('a1', trigger('Work', { id: 'again', subjects: ['a1'] }))).outcome).toBe('transitioned');
  });

  it('with no wait in place (a runner that parks), hands a trigger back at once naming its queue, keeps it listed in the queue under one entry while parked, and announces releases', async () => {
    const { engine } = await setUp({ concurrency: { key: 'context.customer', limit: 1 } }, [
      { id: 'a0', customer: 'A' },
      { id: 'a1', customer: 'A' },
    ]);
    const released: string[] = [];
    engine.runtime.slots!.onRelease((workflowId, key) => released.push(`${workflowId}/${key}`));
    const first = engine.applyTrigger('a0', trigger('Work', { subjects: ['a0'] }));
    await until(() => inFlight.waiting === 1, 'the first application');

    const parked = trigger('Work', { subjects: ['a1'] });
    const refused = await engine.applyTrigger('a1', parked, { maxSlotWaitInMs: 0 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FlowQueuedError);
    expect((refused as FlowQueuedError).queue).toEqual({ workflowId: 'orders', key: 'A' });
    const listed = (await engine.flow!.view('orders', 'A')).queued;
    expect(listed.map((waiter) => [waiter.instanceId, waiter.triggerId])).toEqual([['a1', parked.id]]);

    // Its next attempt while the key is still full keeps the one entry and its place.
    await expect(engine.applyTrigger('a1', parked, { maxSlotWaitInMs: 0 })).rejects.toBeInstanceOf(FlowQueuedError);
    expect((await engine.flow!.view('orders', 'A')).queued.map((waiter) => [waiter.triggerId, waiter.arrivedAt])).toEqual([[parked.id, listed[0]!.arrivedAt]]);
    expect(released).toEqual([]);
    inFlight.openAll();
    await first;
    expect(released).toEqual(['orders/A']);

    // Once the slot is free the parked trigger is admitted and leaves the queue.
    await engine.applyTrigger('a1', parked, { maxSlotWaitInMs: 0 });
    expect(inFlight.order).toEqual(['a0', 'a1']);
    expect((await engine.flow!.view('orders', 'A')).queued).toEqual([]);
  });

  it('admits a higher priority first among waiters', async () => {
    const instances = Array.from({ length: 4 }, (_, i) => ({ id: `a${i}`, customer: 'A' }));
    const { engine } = await setUp({ concurrency: { key: 'context.customer', limit: 1 } }, instances);
    const first = engine.applyTrigger('a0', trigger('Work', { subjects: ['a0'], parameters: { label: 'a0' } }));
    await until(() => inFlight.waiting === 1, 'the first application');
    const low = engine.applyTrigger('a1', trigger('Work', { subjects: ['a1'], parameters: { label: 'low' }, priority: 1 }));
    await until(async () => (await engine.flow!.view('orders', 'A')).queued.length === 1, 'the low one queued');
    const high = engine.applyTrigger('a2', trigger('Work', { subjects: ['a2'], parameters: { label: 'high' }, priority: 5 }));
    await until(async () => (await engine.flow!.view('orders', 'A')).queued.length === 2, 'the high one queued');
    expect((await engine.flow!.view('orders', 'A')).queued.map((waiter) => waiter.priority)).toEqual([5, 1]);

    inFlight.openAll();
    await Promise.all([first, low, high]);

    expect(inFlight.order).toEqual(['a0', 'high', 'low']);
  });

  it('a run-time override changes the limit of one key, and is audited (who, when, old, new)', async () => {
    const instances = Array.from({ length: 3 }, (_, i) => ({ id: `a${i}`, customer: 'A' }));
    const { engine } = await setUp({ concurrency: { key: 'context.customer', limit: 1 } }, instances);
    const actor = { id: 'u1', name: 'Ada', roles: ['Signalbox.Admin'], via: 'token' } as const;

    const view = await engine.flow!.setLimit('orders', 'A', 3, actor);

    expect(view).toMatchObject({ limit: 3, definedLimit: 1, override: { limit: 3, by: 'Ada' } });
    expect(view.audit).toEqual([{ key: 'A', by: 'Ada', at: expect.any(String), old: 1, new: 3 }]);
    const results = instances.map((instance) => engine.applyTrigger(instance.id, trigger('Work', { subjects: [instance.id] })));
    await until(() => inFlight.waiting === 3, 'three applications at once');
    inFlight.openAll();
    await Promise.all(results);

    const reset = await engine.flow!.setLimit('orders', 'A', null, actor);
    expect(reset.limit).toBe(1);
    expect(reset.audit.map((entry) => [entry.old, entry.new])).toEqual([
      [3, null],
      [1, 3],
    ]);
  });

  it("evaluates a key's `$now()` on the engine's clock, not the wall clock", async () => {
    const { engine, clock } = await setUp({ concurrency: { key: "'day:' & $substring($now(), 0, 10)", limit: 1 } }, [{ id: 'a0', customer: 'A' }]);
    inFlight.openAll();
    const result = await engine.applyTrigger('a0', trigger('Work', { subjects: ['a0'] }));
    expect(result.trace?.[0]).toMatchObject({ type: 'concurrency', detail: `admitted: day:${clock.now().toISOString().slice(0, 10)} at 1/1` });
  });

  it('costs a workflow without a policy no flow-store request', async () => {
    const { engine, flow } = await setUp(undefined, [{ id: 'a0', customer: 'A' }]);
    inFlight.openAll();

    await engine.applyTrigger('a0', trigger('Work', { subjects: ['a0'] }));

    expect((flow as InMemoryFlowStore).requests).toBe(0);
  });

  it('costs two reads and two writes per trigger with a policy and no contention', async () => {
    const { engine, flow } = await setUp({ concurrency: { key: 'context.customer', limit: 5 } }, [{ id: 'a0', customer: 'A' }]);
    inFlight.openAll();

    await engine.applyTrigger('a0', trigger('Work', { subjects: ['a0'] }));

    expect((flow as InMemoryFlowStore).requests).toBe(4);
  });
});
