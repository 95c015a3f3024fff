/** Lifecycle events on in-memory ports: what a save emits, CloudEvents fields, delivery, retries, dead-letters, order. */
import { HTTP } from 'cloudevents';
import type { ExternalRequest, ExternalResponse, ExternalServiceClient } from '../../src/engine';
import { ExternalServiceError } from '../../src/engine';
import { structuredMessage, toCloudEvent } from '../../src/engine/events';
import { defaultEventDeliveryPolicy, retryDelayInMs } from '../../src/engine/events';
import { lifecycleEventsOf } from '../../src/engine/decide';
import { collectAll } from '../../src/testing';
import { testEngine } from './support';

/** A subscriber endpoint in memory: answers each request with the next scripted status (200 when the script ends). */
class ScriptedSubscribers implements ExternalServiceClient {
  readonly requests: ExternalRequest[] = [];
  private readonly scripts = new Map<string, Array<number | 'network'>>();
  script(url: string, answers: Array<number | 'network'>): void {
    this.scripts.set(url, [...answers]);
  }
  async send(request: ExternalRequest): Promise<ExternalResponse> {
    this.requests.push(request);
    const next = this.scripts.get(request.url)?.shift() ?? 200;
    if (next === 'network') throw new ExternalServiceError('connect ECONNREFUSED');
    return { status: next, body: undefined };
  }
  to(url: string) {
    return this.requests.filter((request) => request.url === url).map((request) => JSON.parse(request.body!) as { id: string; type: string; data: Record<string, unknown> });
  }
}

/** An event id without the instance's incarnation (`o1:<incarnation>:0:created` → `o1:0:created`). */
const bare = (id: string) => id.replace(/^(o\d):[0-9a-f]{12}:/, '$1:');
/** The other way: `o1:0:created` with o1's incarnation. */
async function idOf(engine: { getInstance(id: string): Promise<{ incarnation?: string }> }, id: string): Promise<string> {
  const [instanceId, ...rest] = id.split(':');
  return [instanceId, (await engine.getInstance(instanceId!)).incarnation, ...rest].join(':');
}

const fastPolicy = { maxAttempts: 6, firstRetryDelayInMs: 2, maxRetryDelayInMs: 10 };

function orderWorkflow(subscriptions: unknown[]) {
  return {
    id: 'order',
    displayName: 'Order',
    initialStateId: 'new',
    subscriptions,
    states: {
      new: {
        entryActions: [{ type: 'setContext', values: { amount: 10, secret: 's' } }],
        transitions: [
          { id: 'approve', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Approve' }] },
          { id: 'reject', targetStateId: 'rejected', conditions: [{ type: 'triggerName', name: 'Reject' }] },
        ],
      },
      approved: { transitions: [{ id: 'ship', targetStateId: 'shipped', conditions: [{ type: 'triggerName', name: 'Ship' }] }] },
      shipped: {},
      rejected: { entryActions: [{ type: 'setContext', expressions: { x: '$error("boom")' } }] },
    },
  };
}

function setup(subscriptions: unknown[]) {
  const subscribers = new ScriptedSubscribers();
  const test = testEngine({ inProcess: true, events: { http: subscribers, policy: fastPolicy, sourcePrefix: '/contoso' } });
  return { ...test, subscribers, ready: test.engine.createWorkflow(test.engine.validateWorkflow(orderWorkflow(subscriptions))) };
}

describe('lifecycle events', () => {
  it('records suspended, resumed and migrated, the events of operating a live system (issue 15)', async () => {
    const { engine, ready } = setup([{ id: 'audit', url: 'https://audit.example/hook', events: ['suspended', 'resumed', 'migrated'] }]);
    const version1 = await ready;
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1' });
    await engine.suspend('o1');
    await engine.resume('o1');
    await engine.addWorkflowVersion(engine.validateWorkflow(orderWorkflow([{ id: 'audit', url: 'https://audit.example/hook', events: ['migrated'] }])), { ifMatch: version1.etag });
    expect((await engine.migrationsAndBulkActions.migrate('o1', { workflowId: 'order', fromVersion: 1, toVersion: 2, stateMap: {} })).outcome).toBe('migrated');
    await engine.eventDeliveriesIdle();

    const events = await collectAll((page) => engine.listEvents('o1', page));
    expect(events.map((event) => [bare(event.id), event.type])).toEqual([
      ['o1:1:suspended', 'suspended'],
      ['o1:2:resumed', 'resumed'],
      ['o1:3:migrated', 'migrated'],
    ]);
    expect(events[0]!.data).toMatchObject({ previousStatus: 'waiting', status: 'suspended', stateId: 'new' });
    expect(events[2]!.data).toMatchObject({ workflowVersion: 2, stateId: 'new', previousStateId: 'new' });
  });

  it('records created and transitioned with every documented field, and builds CloudEvents 1.0 with the SDK', async () => {
    const { engine, subscribers, ready } = setup([{ id: 'audit', url: 'https://audit.example/hook', contextItemsToInclude: ['amount'] }]);
    await ready;
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1' });
    await engine.applyTrigger('o1', { id: 'tr1', name: 'Approve', subjects: ['o1'] });
    await engine.eventDeliveriesIdle();

    const events = await collectAll((page) => engine.listEvents('o1', page));
    expect(events.map((event) => [bare(event.id), event.type])).toEqual([
      ['o1:0:created', 'created'],
      ['o1:1:transitioned', 'transitioned'],
    ]);
    expect(events.every((event) => event.deliveries[0]!.status === 'delivered' && event.deliveries[0]!.attempts === 1)).toBe(true);

    const sent = subscribers.requests[1]!;
    expect(sent.method).toBe('POST');
    expect(sent.headers['content-type']).toMatch(/^application\/cloudevents\+json/);
    const received = HTTP.toEvent({ headers: sent.headers, body: sent.body });
    expect(Array.isArray(received)).toBe(false);
    const event = received as ReturnType<typeof toCloudEvent>;
    expect(event.specversion).toBe('1.0');
    expect(bare(event.id)).toBe('o1:1:transitioned');
    expect(event.type).toBe('io.signalbox.instance.transitioned');
    expect(event.source).toBe('/contoso/signalbox/workflows/order');
    expect(event.subject).toBe('o1');
    expect(event.time).toBe(events[1]!.time);
    expect(event.datacontenttype).toBe('application/json');
    expect(event.data).toEqual({
      workflowId: 'order',
      workflowVersion: 1,
      instanceId: 'o1',
      previousStateId: 'new',
      stateId: 'approved',
      previousStatus: 'waiting',
      status: 'waiting',
      transitionId: 'approve',
      triggerId: 'tr1',
      context: { amount: 10 },
    });
    // The created event has no previous state, and the context holds only the included keys.
    expect(JSON.parse(subscribers.requests[0]!.body!).data).toMatchObject({
      previousStateId: null,
      previousStatus: null,
      stateId: 'new',
      transitionId: null,
      triggerId: null,
      context: { amount: 10 },
    });
  });

  it('emits transitioned then completed for a move into a final state, faulted with the fault, and only what each subscription asks for', async () => {
    const { engine, subscribers, ready } = setup([
      { id: 'all', url: 'https://all.example/' },
      { id: 'ends', url: 'https://ends.example/', events: ['completed', 'faulted'] },
    ]);
    await ready;
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1' });
    await engine.applyTrigger('o1', { id: 'a', name: 'Approve', subjects: ['o1'] });
    await engine.applyTrigger('o1', { id: 's', name: 'Ship', subjects: ['o1'] });
    await engine.createInstance({ workflowId: 'order', instanceId: 'o2' });
    await engine.applyTrigger('o2', { id: 'r', name: 'Reject', subjects: ['o2'] });
    await engine.eventDeliveriesIdle();
    expect(subscribers.to('https://all.example/').map((event) => bare(event.id))).toEqual(['o1:0:created', 'o1:1:transitioned', 'o1:2:transitioned', 'o1:2:completed', 'o2:0:created', 'o2:1:faulted']);
    expect(subscribers.to('https://ends.example/').map((event) => bare(event.id))).toEqual(['o1:2:completed', 'o2:1:faulted']);
    const faulted = subscribers.to('https://ends.example/')[1]!;
    expect(faulted.data).toMatchObject({ status: 'faulted', previousStatus: 'waiting', stateId: 'rejected', fault: { message: expect.stringContaining('boom'), triggerId: 'r' }, context: {} });
  });

  it('maps changes to events: several per save, recovery and cancellation', () => {
    const base = { workflowId: 'w', workflowVersion: 1, stateId: 'a', context: {}, interests: [], createdAt: '', updatedAt: '', appliedTriggers: [], outbox: [], historyLength: 1, id: 'i' } as const;
    const entry = { sequence: 1, at: '', triggerId: null, transitionId: null, fromStateId: null, toStateId: 'a' } as const;
    expect(lifecycleEventsOf(undefined, { instance: { ...base, status: 'faulted' }, historyEntry: { ...entry, event: 'created', status: 'faulted' } })).toEqual(['created', 'faulted']);
    expect(lifecycleEventsOf({ ...base, status: 'faulted' }, { instance: { ...base, status: 'complete' }, historyEntry: { ...entry, event: 'recovered', status: 'complete' } })).toEqual([
      'recovered',
      'completed',
    ]);
    expect(lifecycleEventsOf({ ...base, status: 'faulted' }, { instance: { ...base, status: 'faulted' }, historyEntry: { ...entry, event: 'faulted', status: 'faulted' } })).toEqual(['faulted']);
    expect(lifecycleEventsOf({ ...base, status: 'waiting' }, { instance: { ...base, status: 'cancelled' }, historyEntry: { ...entry, event: 'cancelled', status: 'cancelled' } })).toEqual([
      'cancelled',
    ]);
  });

  it('writes nothing for a save that fails, and no event rows for a workflow without subscriptions', async () => {
    const { engine, instances, subscribers, ready } = setup([{ id: 'audit', url: 'https://audit.example/' }]);
    await ready;
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1' });
    await engine.eventDeliveriesIdle();
    instances.beforeSave = () => {
      throw new Error('storage is down');
    };
    await expect(engine.applyTrigger('o1', { id: 'a', name: 'Approve', subjects: ['o1'] })).rejects.toThrow('storage is down');
    instances.beforeSave = undefined;
    await engine.eventDeliveriesIdle();
    expect((await collectAll((page) => engine.listEvents('o1', page))).map((event) => bare(event.id))).toEqual(['o1:0:created']);
    expect(await instances.listOutbox('o1')).toEqual([]);
    expect(subscribers.requests).toHaveLength(1);

    await engine.createWorkflow({ ...orderWorkflow([]), id: 'quiet', subscriptions: undefined });
    await engine.createInstance({ workflowId: 'quiet', instanceId: 'q1' });
    await engine.applyTrigger('q1', { id: 'a2', name: 'Approve', subjects: ['q1'] });
    expect(await collectAll((page) => engine.listEvents('q1', page))).toEqual([]);
    expect(await instances.listOutbox('q1')).toEqual([]);
  });

  it('retries network errors, 5xx and 429 with the same event id, dead-letters other statuses at once, and redelivers on request', async () => {
    const { engine, subscribers, ready } = setup([
      { id: 'flaky', url: 'https://flaky.example/' },
      { id: 'gone', url: 'https://gone.example/' },
      { id: 'fine', url: 'https://fine.example/' },
    ]);
    await ready;
    subscribers.script('https://flaky.example/', ['network', 503, 429, 500]);
    subscribers.script('https://gone.example/', [410]);
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1' });
    await engine.eventDeliveriesIdle();
    expect(subscribers.to('https://flaky.example/').map((event) => bare(event.id))).toEqual(Array(5).fill('o1:0:created'));
    expect(subscribers.to('https://fine.example/')).toHaveLength(1);
    const [created] = await collectAll((page) => engine.listEvents('o1', page));
    expect(created!.deliveries).toEqual([
      { subscriptionId: 'flaky', status: 'delivered', attempts: 5, lastAttemptAt: expect.any(String) },
      { subscriptionId: 'gone', status: 'deadLettered', attempts: 1, lastError: 'the subscriber answered 410', lastAttemptAt: expect.any(String) },
      { subscriptionId: 'fine', status: 'delivered', attempts: 1, lastAttemptAt: expect.any(String) },
    ]);

    await expect(engine.redeliverEvent('o1', await idOf(engine, 'o1:0:created'))).resolves.toBeUndefined();
    await engine.eventDeliveriesIdle();
    const [redelivered] = await collectAll((page) => engine.listEvents('o1', page));
    expect(redelivered!.deliveries[1]).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(subscribers.to('https://gone.example/').map((event) => bare(event.id))).toEqual(['o1:0:created', 'o1:0:created']);
    // Nothing dead-lettered any more: a conflict; an unknown event: not found.
    await expect(engine.redeliverEvent('o1', await idOf(engine, 'o1:0:created'))).rejects.toMatchObject({ code: 'conflict' });
    await expect(engine.redeliverEvent('o1', await idOf(engine, 'o1:9:created'))).rejects.toMatchObject({ code: 'notFound' });
  });

  it('redelivers once however many ask at once: one request wins, the others are told there is nothing dead-lettered', async () => {
    const { engine, subscribers, ready } = setup([{ id: 'gone', url: 'https://gone.example/', events: ['created'] }]);
    await ready;
    subscribers.script('https://gone.example/', [410]);
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1' });
    await engine.eventDeliveriesIdle();
    const createdId = await idOf(engine, 'o1:0:created');
    const asks = await Promise.allSettled(Array.from({ length: 5 }, () => engine.redeliverEvent('o1', createdId)));
    expect(asks.filter((ask) => ask.status === 'fulfilled')).toHaveLength(1);
    expect(asks.filter((ask) => ask.status === 'rejected').map((ask) => (ask as PromiseRejectedResult).reason.code)).toEqual(Array(4).fill('conflict'));
    await engine.eventDeliveriesIdle();
    // Once refused, once delivered: a late request cannot set a delivered event back to pending.
    expect(subscribers.to('https://gone.example/').map((event) => bare(event.id))).toEqual(['o1:0:created', 'o1:0:created']);
    await expect(engine.redeliverEvent('o1', createdId)).rejects.toMatchObject({ code: 'conflict' });
  });

  it("dead-letters after the policy's attempts, keeps each subscription in order, and never holds up the instance or others", async () => {
    const { engine, subscribers, ready } = setup([
      { id: 'down', url: 'https://down.example/' },
      { id: 'slow', url: 'https://slow.example/' },
      { id: 'fine', url: 'https://fine.example/' },
    ]);
    await ready;
    subscribers.script('https://down.example/', Array(fastPolicy.maxAttempts).fill(500));
    subscribers.script('https://slow.example/', [503, 503, 503]);
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1' });
    const instance = await engine.getInstance('o1');
    expect(instance.status).toBe('waiting');
    await engine.applyTrigger('o1', { id: 'a', name: 'Approve', subjects: ['o1'] });
    await engine.applyTrigger('o1', { id: 's', name: 'Ship', subjects: ['o1'] });
    expect((await engine.getInstance('o1')).status).toBe('complete');
    await engine.eventDeliveriesIdle();
    const expected = ['o1:0:created', 'o1:1:transitioned', 'o1:2:transitioned', 'o1:2:completed'];
    expect(subscribers.to('https://fine.example/').map((event) => bare(event.id))).toEqual(expected);
    // The slow one got each event in order, the first one four times.
    expect(subscribers.to('https://slow.example/').map((event) => bare(event.id))).toEqual([...Array(3).fill('o1:0:created'), ...expected]);
    const events = await collectAll((page) => engine.listEvents('o1', page));
    expect(events[0]!.deliveries[0]).toMatchObject({ status: 'deadLettered', attempts: fastPolicy.maxAttempts, lastError: 'the subscriber answered 500' });
    expect(events.slice(1).map((event) => event.deliveries[0]!.status)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('has production defaults of at least 10 attempts spread over at least an hour, with jitter', () => {
    expect(defaultEventDeliveryPolicy.maxAttempts).toBeGreaterThanOrEqual(10);
    let shortest = 0;
    for (let attempts = 1; attempts < defaultEventDeliveryPolicy.maxAttempts; attempts++) shortest += retryDelayInMs(defaultEventDeliveryPolicy, attempts, 0);
    expect(shortest).toBeGreaterThanOrEqual(60 * 60 * 1000);
    expect(retryDelayInMs(defaultEventDeliveryPolicy, 3, 0)).toBe(120_000);
    expect(retryDelayInMs(defaultEventDeliveryPolicy, 3, 0.999)).toBeGreaterThan(239_000);
    expect(retryDelayInMs(defaultEventDeliveryPolicy, 30, 0.5)).toBe(1_350_000);
  });

  it('serialises in structured mode with the SDK', () => {
    const record = {
      id: 'i:1:transitioned',
      type: 'transitioned',
      sequence: 1,
      time: '2026-01-01T00:00:00.000Z',
      deliveries: [],
      data: {
        workflowId: 'w',
        workflowVersion: 2,
        instanceId: 'i',
        previousStateId: 'a',
        stateId: 'b',
        previousStatus: 'waiting',
        status: 'waiting',
        transitionId: 't',
        triggerId: 'x',
        context: { a: 1, b: 2 },
      },
    } as const;
    const message = structuredMessage(toCloudEvent(record, { contextItemsToInclude: ['b', 'missing'] }));
    expect(message.headers['content-type']).toMatch(/^application\/cloudevents\+json/);
    expect(JSON.parse(message.body)).toEqual({
      specversion: '1.0',
      id: 'i:1:transitioned',
      type: 'io.signalbox.instance.transitioned',
      source: '/signalbox/workflows/w',
      subject: 'i',
      time: '2026-01-01T00:00:00.000Z',
      datacontenttype: 'application/json',
      data: { ...record.data, context: { b: 2 } },
    });
  });
});
