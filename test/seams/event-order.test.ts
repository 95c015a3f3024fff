/**
 * The seam "events in order": every subscription hears one instance's lifecycle events in the order of
 * the instance's history (sequence, then emission order), whatever caused them and whenever they were
 * handed to delivery, crossed with each kind of follow-up work. In-memory engine (the order is the
 * engine's: EventDeliveryService.attempt and the dispatcher); test/host/event-order.test.ts holds the
 * local server on Azurite, test/functions/event-delivery-orchestrator.test.ts the Azure orchestration.
 */
import { Engine, ExternalServiceError, type ExternalRequest, type ExternalResponse, type ExternalServiceClient } from '../../src/engine';
import { parseEventId } from '../../src/engine/decide';
import { EVENT_RANK } from '../../src/engine/definition';
import { ManualClock, createInMemoryPorts } from '../../src/testing';
import { FakeClock, recordingLogger } from '../engine/support';

/** A subscriber in memory: records the event ids it takes; `failing` answers 503 to everything. */
class RecordingSubscriber implements ExternalServiceClient {
  readonly taken: string[] = [];
  failing = false;
  /** Answers 503 to this many more requests (a subscriber that recovers: earlier events retry while later ones are queued). */
  failures = 0;
  async send(request: ExternalRequest): Promise<ExternalResponse> {
    if (this.failing || (this.failures > 0 && this.failures--)) throw new ExternalServiceError('the subscriber answered 503', 503);
    this.taken.push((JSON.parse(request.body!) as { id: string }).id);
    return { status: 204, body: undefined };
  }
  /** The ids taken for `instanceId`, each with its position (sequence, rank). */
  positions(instanceId: string): number[] {
    return this.taken.flatMap((id) => {
      const parsed = parseEventId(instanceId, id);
      return parsed ? [parsed.sequence * 100 + EVENT_RANK[parsed.type]] : [];
    });
  }
}

/** Inversions: pairs taken in the wrong order (0 when strictly increasing). */
function inversions(positions: readonly number[]): number {
  let count = 0;
  for (let i = 0; i < positions.length; i++) for (let j = i + 1; j < positions.length; j++) if (positions[i]! >= positions[j]!) count++;
  return count;
}

const policy = { maxAttempts: 5, firstRetryDelayInMs: 60_000, maxRetryDelayInMs: 60_000 };

/** Retries within milliseconds: for the rows where a recovering subscriber makes earlier events retry. */
const fastPolicy = { maxAttempts: 5, firstRetryDelayInMs: 2, maxRetryDelayInMs: 10 };

function engineOn(ports: ReturnType<typeof createInMemoryPorts>, subscriber: RecordingSubscriber, options: { fast?: boolean; clock?: ManualClock } = {}): Engine {
  let n = 0;
  return new Engine(ports, { clock: options.clock ?? new FakeClock(), logger: recordingLogger(), newId: () => `gen-${++n}`, events: { http: subscriber, policy: options.fast ? fastPolicy : policy } });
}

/** Every event recorded for `instanceId`, as ids in history order. */
async function recorded(engine: Engine, instanceId: string): Promise<string[]> {
  return (await engine.listEvents(instanceId, { maxPageSize: 1000 })).items.map((event) => event.id);
}

/** Waits until the subscriber took every recorded event of `instanceId`, then expects it took them in history order, once each. */
async function expectHeardInOrder(engine: Engine, subscriber: RecordingSubscriber, instanceId: string): Promise<string[]> {
  const ids = await recorded(engine, instanceId);
  await settled(engine, subscriber, instanceId, ids.length);
  expect(subscriber.taken.filter((id) => ids.includes(id))).toEqual(ids);
  return ids.map(withoutIncarnation);
}

/** An event id without its instance's incarnation (`o1:<12 hex>:0:created` → `o1:0:created`), to compare with readable expectations. */
function withoutIncarnation(id: string): string {
  return id.replace(/:[0-9a-f]{12}:(?=\d+:)/, ':');
}

/** A counter whose every Tick raises a Tock on itself: two changes per trigger, the second caused by the first. */
const ticker = {
  id: 'ticker',
  displayName: 'Ticker',
  initialStateId: 'on',
  subscriptions: [{ id: 'hook', url: 'https://hook.example/' }],
  states: {
    on: {
      transitions: [
        { id: 'tick', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Tick' }], actions: [{ type: 'raiseTrigger', trigger: { name: 'Tock', subjects: ['{{instance.id}}'] } }] },
        { id: 'tock', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Tock' }], actions: [{ type: 'log', message: 'tock' }] },
      ],
    },
  },
};

async function settled(engine: Engine, subscriber: RecordingSubscriber, instanceId: string, count: number): Promise<void> {
  for (let poll = 0; poll < 2_000 && subscriber.positions(instanceId).length < count; poll++) {
    await engine.eventDeliveriesIdle();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const timed = {
  id: 'timed',
  displayName: 'Timed',
  initialStateId: 'waiting',
  subscriptions: [{ id: 'hook', url: 'https://hook.example/' }],
  states: {
    waiting: {
      transitions: [
        { id: 'nudge', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'Nudge' }], actions: [{ type: 'log', message: 'nudged' }] },
        { id: 'expire', targetStateId: 'expired', timer: { after: 'PT1M' } },
      ],
    },
    expired: {},
  },
};

const parcel = {
  id: 'parcel',
  displayName: 'Parcel',
  initialStateId: 'packing',
  subscriptions: [{ id: 'hook', url: 'https://hook.example/' }],
  states: { packing: { transitions: [{ id: 'ship', targetStateId: 'shipped', conditions: [{ type: 'triggerName', name: 'Ship' }] }] }, shipped: {} },
};
const order = {
  id: 'order',
  displayName: 'Order',
  initialStateId: 'new',
  subscriptions: [{ id: 'hook', url: 'https://hook.example/' }],
  states: {
    new: {
      transitions: [
        {
          id: 'split',
          targetStateId: 'waiting',
          conditions: [{ type: 'triggerName', name: 'Split' }],
          actions: [{ type: 'startInstance', workflowId: 'parcel', instanceId: '{{instance.id}}-parcel' }],
        },
      ],
    },
    waiting: { transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'ChildCompleted' }] }] },
    done: {},
  },
};

describe('event order', () => {
  it('event order × raised triggers: a change that raises a trigger is heard before the change the trigger makes', async () => {
    const ports = createInMemoryPorts();
    const subscriber = new RecordingSubscriber();
    const engine = engineOn(ports, subscriber);
    await engine.createWorkflow(engine.validateWorkflow(ticker));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 't1' });
    for (let tick = 0; tick < 10; tick++) await engine.applyTrigger('t1', { id: `tick-${tick}`, name: 'Tick', subjects: ['t1'] });
    // created + 10 × (tick, tock)
    await settled(engine, subscriber, 't1', 21);
    const positions = subscriber.positions('t1');
    expect(positions).toHaveLength(21);
    expect(inversions(positions)).toBe(0);
  });

  it('event order × bursts: concurrent triggers to one instance are heard in history order', async () => {
    const ports = createInMemoryPorts();
    const subscriber = new RecordingSubscriber();
    const engine = engineOn(ports, subscriber);
    await engine.createWorkflow(engine.validateWorkflow(ticker));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'b1' });
    await Promise.all(Array.from({ length: 15 }, (_, tick) => engine.applyTrigger('b1', { id: `burst-${tick}`, name: 'Tick', subjects: ['b1'] })));
    const history = (await engine.getInstance('b1')).historyLength;
    await settled(engine, subscriber, 'b1', history);
    expect(subscriber.positions('b1')).toHaveLength(history);
    expect(inversions(subscriber.positions('b1'))).toBe(0);
  });

  it('event order × restart: deliveries pending at a restart go before events of changes made after it, whoever is queued first', async () => {
    const ports = createInMemoryPorts();
    const subscriber = new RecordingSubscriber();
    const before = engineOn(ports, subscriber);
    await before.createWorkflow(before.validateWorkflow(ticker));
    subscriber.failing = true;
    await before.createInstance({ workflowId: 'ticker', instanceId: 'r1' });
    await before.applyTrigger('r1', { id: 'before-1', name: 'Tick', subjects: ['r1'] });
    // The first attempts failed; their retries wait a minute when the process stops.
    before.stopEventDeliveries();
    subscriber.failing = false;

    const after = engineOn(ports, subscriber);
    // A change made at once after the start, before the start-up re-queuing reaches the old events.
    await after.applyTrigger('r1', { id: 'after-1', name: 'Tick', subjects: ['r1'] });
    await after.resumeEventDeliveries();
    await settled(after, subscriber, 'r1', 5);
    expect(subscriber.taken.map(withoutIncarnation)).toEqual(['r1:0:created', 'r1:1:transitioned', 'r1:2:transitioned', 'r1:3:transitioned', 'r1:4:transitioned']);
  });

  it("event order × timers: a timer's change is heard after the changes before it, while the subscriber is still retrying them", async () => {
    const ports = createInMemoryPorts();
    const subscriber = new RecordingSubscriber();
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const engine = engineOn(ports, subscriber, { fast: true, clock });
    await engine.createWorkflow(engine.validateWorkflow(timed));
    subscriber.failures = 3;
    await engine.createInstance({ workflowId: 'timed', instanceId: 'tm1' });
    await engine.applyTrigger('tm1', { id: 'n1', name: 'Nudge', subjects: ['tm1'] });
    await clock.advanceBy(60_000);
    expect((await engine.getInstance('tm1')).stateId).toBe('expired');
    const ids = await expectHeardInOrder(engine, subscriber, 'tm1');
    expect(ids).toEqual(['tm1:0:created', 'tm1:1:transitioned', 'tm1:2:transitioned', 'tm1:2:completed']);
  });

  it("event order × children: a parent's change made by its child's ChildCompleted is heard after the change that started the child", async () => {
    const ports = createInMemoryPorts();
    const subscriber = new RecordingSubscriber();
    const engine = engineOn(ports, subscriber, { fast: true });
    await engine.createWorkflow(engine.validateWorkflow(parcel));
    await engine.createWorkflow(engine.validateWorkflow(order));
    subscriber.failures = 2;
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1' });
    await engine.applyTrigger('o1', { id: 'split', name: 'Split', subjects: ['o1'] });
    await engine.applyTrigger('o1-parcel', { id: 'ship', name: 'Ship', subjects: ['o1-parcel'] });
    for (let poll = 0; poll < 2_000 && (await engine.getInstance('o1')).stateId !== 'done'; poll++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await expectHeardInOrder(engine, subscriber, 'o1')).toEqual(['o1:0:created', 'o1:1:transitioned', 'o1:2:transitioned', 'o1:2:completed']);
    expect(await expectHeardInOrder(engine, subscriber, 'o1-parcel')).toEqual(['o1-parcel:0:created', 'o1-parcel:1:transitioned', 'o1-parcel:1:completed']);
  });

  it('event order × migrations and bulk actions: migrated, suspended and resumed are heard after the changes before them', async () => {
    const ports = createInMemoryPorts();
    const subscriber = new RecordingSubscriber();
    const engine = engineOn(ports, subscriber, { fast: true });
    const version1 = await engine.createWorkflow(engine.validateWorkflow(ticker));
    subscriber.failures = 2;
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'm1' });
    await engine.applyTrigger('m1', { id: 'tick', name: 'Tick', subjects: ['m1'] });
    await engine.addWorkflowVersion(engine.validateWorkflow({ ...ticker, displayName: 'Ticker 2' }), { ifMatch: version1.etag });
    expect((await engine.migrationsAndBulkActions.migrate('m1', { workflowId: 'ticker', fromVersion: 1, toVersion: 2, stateMap: {} })).outcome).toBe('migrated');
    expect((await engine.migrationsAndBulkActions.applyBulk('m1', { action: 'suspend', filter: { workflowId: 'ticker' } })).outcome).toBe('suspended');
    expect((await engine.migrationsAndBulkActions.applyBulk('m1', { action: 'resume', filter: { workflowId: 'ticker' } })).outcome).toBe('resumed');
    const ids = await expectHeardInOrder(engine, subscriber, 'm1');
    expect(ids.slice(-3).map((id) => id.split(':').at(-1))).toEqual(['migrated', 'suspended', 'resumed']);
  });

  it("event order × deletion: a deleted instance's pending deliveries end without holding up another instance's", async () => {
    const ports = createInMemoryPorts();
    const subscriber = new RecordingSubscriber();
    const engine = engineOn(ports, subscriber, { fast: true });
    await engine.createWorkflow(engine.validateWorkflow(ticker));
    subscriber.failing = true;
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'd1' });
    await engine.deleteInstance('d1', { force: true });
    subscriber.failing = false;
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'd2' });
    await engine.applyTrigger('d2', { id: 'tick', name: 'Tick', subjects: ['d2'] });
    await expectHeardInOrder(engine, subscriber, 'd2');
    await engine.eventDeliveriesIdle();
  });

  it("event order × events: with two subscriptions, one that fails and retries, each hears the instance's events in order, once", async () => {
    const ports = createInMemoryPorts();
    const subscriber = new RecordingSubscriber();
    // The second subscription fails its first 3 requests (fewer than the 5 attempts): its first event retries while the rest wait.
    const flaky = { failures: 3, taken: [] as string[] };
    const http: ExternalServiceClient = {
      send: async (request) => {
        if (!request.url.includes('flaky.example')) return subscriber.send(request);
        if (flaky.failures > 0 && flaky.failures--) throw new ExternalServiceError('the subscriber answered 503', 503);
        flaky.taken.push((JSON.parse(request.body!) as { id: string }).id);
        return { status: 204, body: undefined };
      },
    };
    let n = 0;
    const engine = new Engine(ports, { clock: new FakeClock(), logger: recordingLogger(), newId: () => `gen-${++n}`, events: { http, policy: fastPolicy } });
    await engine.createWorkflow(engine.validateWorkflow({ ...ticker, subscriptions: [...ticker.subscriptions, { id: 'flaky', url: 'https://flaky.example/' }] }));
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'two1' });
    for (let tick = 0; tick < 3; tick++) await engine.applyTrigger('two1', { id: `tick-${tick}`, name: 'Tick', subjects: ['two1'] });
    const ids = await recorded(engine, 'two1');
    expect(ids).toHaveLength(7);
    for (let poll = 0; poll < 2_000 && (subscriber.taken.length < ids.length || flaky.taken.length < ids.length); poll++) await new Promise((resolve) => setTimeout(resolve, 5));
    await engine.eventDeliveriesIdle();
    expect(subscriber.taken).toEqual(ids);
    expect(flaky.taken).toEqual(ids);
  });

  it("event order × re-creation: a re-created instance's events are heard in order, without waiting on the deleted incarnation's retries", async () => {
    const ports = createInMemoryPorts();
    const subscriber = new RecordingSubscriber();
    // Retries an hour apart: the deleted incarnation's event is waiting for its retry when the id is used again.
    let n = 0;
    const engine = new Engine(ports, {
      clock: new FakeClock(),
      logger: recordingLogger(),
      newId: () => `gen-${++n}`,
      events: { http: subscriber, policy: { maxAttempts: 5, firstRetryDelayInMs: 3_600_000, maxRetryDelayInMs: 3_600_000 } },
    });
    await engine.createWorkflow(engine.validateWorkflow(ticker));
    subscriber.failing = true;
    await engine.createInstance({ workflowId: 'ticker', instanceId: 'rc1' });
    const old = await recorded(engine, 'rc1');
    for (let poll = 0; poll < 2_000 && (await engine.listEvents('rc1')).items[0]?.deliveries[0]?.attempts !== 1; poll++) await new Promise((resolve) => setTimeout(resolve, 5));
    await engine.deleteInstance('rc1', { force: true });
    subscriber.failing = false;

    await engine.createInstance({ workflowId: 'ticker', instanceId: 'rc1' });
    await engine.applyTrigger('rc1', { id: 'tick', name: 'Tick', subjects: ['rc1'] });
    const ids = await recorded(engine, 'rc1');
    expect(ids.some((id) => old.includes(id))).toBe(false);
    await settled(engine, subscriber, 'rc1', ids.length);
    expect(subscriber.taken).toEqual(ids);
    engine.stopEventDeliveries();
  });
});
