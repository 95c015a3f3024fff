/**
 * Lifecycle event delivery on Azure, through the real durable-functions replay engine: the orchestration
 * calls the attempt activity (a real engine on in-memory ports, a scripted subscriber), waits the
 * policy's delays on durable timers, and ends delivered or dead-lettered; the launcher starts one
 * orchestration per delivery unless it is running.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { eventId } from '../../src/engine/decide';
import { eventDeliveryOrchestrator } from '../../functions/event-delivery-orchestrator';
import { deliveryInstanceId, durableEventLauncher } from '../../functions/event-launcher';
import type { ExternalRequest, ExternalResponse } from '../../src/engine';
import { ATTEMPT_EVENT_DELIVERY, EVENT_DELIVERY_ORCHESTRATOR, type EventDeliveryTarget } from '../../src/host/contracts/event-activities';
import { collectAll } from '../../src/testing';
import { EventType, runOrchestration } from '../support/durable-replay';
import { testEngine } from '../engine/support';

function setup(answers: number[]) {
  const requests: ExternalRequest[] = [];
  const http = {
    async send(request: ExternalRequest): Promise<ExternalResponse> {
      requests.push(request);
      return { status: answers.shift() ?? 200, body: undefined };
    },
  };
  const policy = { maxAttempts: 4, firstRetryDelayInMs: 60_000, maxRetryDelayInMs: 600_000 };
  // Events are recorded by the save but handed to nobody: the orchestration delivers them.
  const { engine: base } = testEngine({ inProcess: true, events: { http, policy } });
  const engine = base.withDelivery({ event: async () => {} });
  const ready = (async () => {
    await engine.createWorkflow({ id: 'w', displayName: 'W', initialStateId: 'a', subscriptions: [{ id: 'hook', url: 'https://hook.example/' }], states: { a: {} } });
    const instance = await engine.createInstance({ workflowId: 'w', instanceId: 'i1' });
    // The created event's delivery (its id carries the instance's incarnation).
    return { ...created, eventId: eventId('i1', 0, 'created', instance.incarnation) };
  })();
  const run = (target: EventDeliveryTarget) =>
    runOrchestration(EVENT_DELIVERY_ORCHESTRATOR, target, deliveryInstanceId(target), {
      orchestrators: { [EVENT_DELIVERY_ORCHESTRATOR]: eventDeliveryOrchestrator },
      activities: { [ATTEMPT_EVENT_DELIVERY]: (input: EventDeliveryTarget) => engine.attemptEventDelivery(input) },
    });
  return { engine, requests, ready, run };
}

const created: EventDeliveryTarget = { instanceId: 'i1', eventId: 'i1:0:created', subscriptionId: 'hook' };

/**
 * Two events of one instance (`created`, then `transitioned`), each delivered by an orchestration of its
 * own; deliveries the engine hands over (`launched`) start their orchestration at once, as the durable
 * launcher would. The subscriber answers from `answers` (then 200) and records the ids it took.
 */
function twoEvents(answers: number[]) {
  const taken: string[] = [];
  const launched: EventDeliveryTarget[] = [];
  const runs: Array<Promise<unknown>> = [];
  const http = {
    async send(request: ExternalRequest): Promise<ExternalResponse> {
      const status = answers.shift() ?? 200;
      if (status === 200) taken.push(JSON.parse(request.body!).id);
      return { status, body: undefined };
    },
  };
  const policy = { maxAttempts: 6, firstRetryDelayInMs: 60_000, maxRetryDelayInMs: 600_000 };
  const { engine: base } = testEngine({ inProcess: true, events: { http, policy } });
  const run = (target: EventDeliveryTarget) =>
    runOrchestration(EVENT_DELIVERY_ORCHESTRATOR, target, deliveryInstanceId(target), {
      orchestrators: { [EVENT_DELIVERY_ORCHESTRATOR]: eventDeliveryOrchestrator },
      activities: { [ATTEMPT_EVENT_DELIVERY]: (input: EventDeliveryTarget) => engine.attemptEventDelivery(input) },
    });
  const engine = base.withDelivery({
    event: async (row) => {
      for (const subscriptionId of row.payload.subscriptionIds) {
        const target = { instanceId: row.payload.instanceId, eventId: row.payload.eventId, subscriptionId };
        launched.push(target);
        runs.push(run(target));
      }
    },
  });
  const ready = (async () => {
    const workflow = {
      id: 'w',
      displayName: 'W',
      initialStateId: 'a',
      subscriptions: [{ id: 'hook', url: 'https://hook.example/' }],
      states: { a: { transitions: [{ id: 'go', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Go' }] }] }, b: {} },
    };
    await base.createWorkflow(base.validateWorkflow(workflow));
    // Made on the base engine: its in-process dispatcher must not see them, so nothing is handed over yet.
    await base.withDelivery({ event: async () => {} }).createInstance({ workflowId: 'w', instanceId: 'i1' });
    await base.withDelivery({ event: async () => {} }).applyTrigger('i1', { id: 'go', name: 'Go', subjects: ['i1'] });
  })();
  return { engine, taken, launched, runs, run, ready };
}
/** The two events' targets, with the ids i1's incarnation gives them. */
async function targetsOf(engine: { getInstance(id: string): Promise<{ incarnation?: string }> }): Promise<{ created: EventDeliveryTarget; transitioned: EventDeliveryTarget }> {
  const { incarnation } = await engine.getInstance('i1');
  return {
    created: { instanceId: 'i1', eventId: eventId('i1', 0, 'created', incarnation), subscriptionId: 'hook' },
    transitioned: { instanceId: 'i1', eventId: eventId('i1', 1, 'transitioned', incarnation), subscriptionId: 'hook' },
  };
}

describe('event delivery orchestration (durable replay)', () => {
  it("retries on durable timers with the policy's backoff until the subscriber takes the event, the same id each time", async () => {
    const { engine, requests, ready, run } = setup([503, 500, 429]);
    const target = await ready;
    const began = Date.now();
    const result = await run(target);
    // A timer's FireAt is reckoned from the attempt's clock and its history entry is stamped by the replay's, a
    // moment apart on a loaded machine: the bounds allow the run's own wall time (well under the jitter's range).
    const slack = Date.now() - began;
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.output).toBe('delivered');
    expect(requests.map((request) => JSON.parse(request.body!).id)).toEqual(Array(4).fill(target.eventId));
    const timers = result.history.filter((entry) => entry.EventType === EventType.TimerCreated).map((entry) => Date.parse(String(entry.FireAt)) - Date.parse(String(entry.Timestamp)));
    expect(timers).toHaveLength(3);
    // Equal jitter: each wait is between half and all of 1, 2 and 4 minutes.
    [60_000, 120_000, 240_000].forEach((nominal, index) => {
      expect(timers[index]).toBeGreaterThanOrEqual(nominal / 2 - slack);
      expect(timers[index]).toBeLessThanOrEqual(nominal + slack);
    });
    const [event] = await collectAll((page) => engine.listEvents('i1', page));
    expect(event!.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 4 });
  });

  it('dead-letters after the last attempt, and at once on a status that retrying cannot fix', async () => {
    const exhausted = setup([500, 500, 500, 500]);
    const target = await exhausted.ready;
    const run = await exhausted.run(target);
    expect(run.output).toBe('deadLettered');
    expect(exhausted.requests).toHaveLength(4);

    const refused = setup([400]);
    const target2 = await refused.ready;
    const once = await refused.run(target2);
    expect(once.output).toBe('deadLettered');
    expect(once.history.some((entry) => entry.EventType === EventType.TimerCreated)).toBe(false);
    const [event] = await collectAll((page) => refused.engine.listEvents('i1', page));
    expect(event!.deliveries[0]).toMatchObject({ status: 'deadLettered', attempts: 1, lastError: 'the subscriber answered 400' });
  });

  it('ends at once for a delivery already settled (a repeated start)', async () => {
    const { requests, ready, run } = setup([]);
    const target = await ready;
    expect((await run(target)).output).toBe('delivered');
    const again = await run(target);
    expect(again.output).toBe('delivered');
    expect(requests).toHaveLength(1);
  });

  it('event order: a later event waits for an earlier one that was never handed over, hands it over, and goes after it', async () => {
    const { engine, taken, launched, runs, run, ready } = twoEvents([]);
    await ready;
    const { created, transitioned } = await targetsOf(engine);
    const later = await run(transitioned);
    await Promise.all(runs);
    expect(later.output).toBe('delivered');
    expect(launched).toContainEqual(created);
    expect(taken).toEqual([created.eventId, transitioned.eventId]);
  });

  it('event order: behind an earlier event that is being retried, a later one waits at least until that retry, not polling every second', async () => {
    const { engine, taken, run, ready } = twoEvents([503, 503]);
    await ready;
    const { created, transitioned } = await targetsOf(engine);
    // The earlier event failed once: its next attempt is 30 to 60 s away.
    expect(await engine.attemptEventDelivery(created)).toMatchObject({ next: 'retry' });
    const [earlier, later] = await Promise.all([run(created), run(transitioned)]);
    expect([earlier.output, later.output]).toEqual(['delivered', 'delivered']);
    expect(taken).toEqual([created.eventId, transitioned.eventId]);
    const waits = later.history.filter((entry) => entry.EventType === EventType.TimerCreated).map((entry) => Date.parse(String(entry.FireAt)) - Date.parse(String(entry.Timestamp)));
    expect(waits.length).toBeGreaterThan(0);
    expect(waits[0]).toBeGreaterThanOrEqual(30_000);
  });

  it('starts one orchestration per delivery, skipping running ones and restarting finished ones (redelivery)', async () => {
    const statuses = new Map<string, string>([
      [deliveryInstanceId({ ...created, subscriptionId: 'running' }), 'Running'],
      [deliveryInstanceId({ ...created, subscriptionId: 'done' }), 'Completed'],
    ]);
    const started: Array<{ name: string; instanceId: string; input: unknown }> = [];
    const client = {
      getStatus: async (instanceId: string) => {
        const runtimeStatus = statuses.get(instanceId);
        if (!runtimeStatus) throw new Error('DurableClient error: Durable Functions extension replied with HTTP 404 response.');
        return { runtimeStatus } as never;
      },
      startNew: async (name: string, options?: { instanceId?: string; input?: unknown }) => {
        started.push({ name, instanceId: options!.instanceId!, input: options!.input });
        return options!.instanceId!;
      },
    };
    await durableEventLauncher(client).deliver(['new', 'running', 'done'].map((subscriptionId) => ({ ...created, subscriptionId })));
    expect(started).toEqual([
      { name: EVENT_DELIVERY_ORCHESTRATOR, instanceId: 'event:i1:0:created:new', input: { ...created, subscriptionId: 'new' } },
      { name: EVENT_DELIVERY_ORCHESTRATOR, instanceId: 'event:i1:0:created:done', input: { ...created, subscriptionId: 'done' } },
    ]);
    expect(deliveryInstanceId({ instanceId: 'x', eventId: `${'x'.repeat(200)}:1:created`, subscriptionId: 's' })).toMatch(/^event:h\.[0-9a-f]{32}$/);
  });
});
