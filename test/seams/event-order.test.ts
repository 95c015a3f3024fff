/**
 * The seam "events in order": every subscription hears one instance's lifecycle events in the order of
 * the instance's history (sequence, then emission order), whatever caused them and whenever they were
 * handed to delivery, crossed with each kind of follow-up work. In-memory engine (the order is the
 * engine's: EventDeliveryService.attempt and the dispatcher); test/host/event-order.test.ts holds the
 * local server on Azurite, test/functions/event-delivery-orchestrator.test.ts the Azure orchestration.
 */
import { Engine, ExternalServiceError, type ExternalRequest, type ExternalResponse, type ExternalServiceClient } from '../../src/engine';
import { parseEventId } from '../../src/engine/events/lifecycle-events';
import { EVENT_RANK } from '../../src/engine/events/lifecycle-event-type';
import { createInMemoryPorts } from '../../src/testing';
import { FakeClock, recordingLogger } from '../engine/support';

/** A subscriber in memory: records the event ids it takes; `failing` answers 503 to everything. */
class RecordingSubscriber implements ExternalServiceClient {
  readonly taken: string[] = [];
  failing = false;
  async send(request: ExternalRequest): Promise<ExternalResponse> {
    if (this.failing) throw new ExternalServiceError('the subscriber answered 503', 503);
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

function engineOn(ports: ReturnType<typeof createInMemoryPorts>, subscriber: RecordingSubscriber): Engine {
  let n = 0;
  return new Engine(ports, { clock: new FakeClock(), logger: recordingLogger(), newId: () => `gen-${++n}`, events: { http: subscriber, policy } });
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
    expect(subscriber.taken).toEqual(['r1:0:created', 'r1:1:transitioned', 'r1:2:transitioned', 'r1:3:transitioned', 'r1:4:transitioned']);
  });
});
