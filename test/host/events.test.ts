/**
 * Lifecycle events and child workflows on the local server (Azurite, real loopback HTTP), with stub
 * subscribers on loopback: the documented fields, three subscribers, a failing one that harms nobody,
 * one that fails four times and then takes the same event, dead-lettering and redelivery, and a parent
 * that starts two children and moves on when both complete.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { prefixedStorageNames } from '../../src/storage/names';
import { startSubscriber, type LoopbackSubscriber } from '../support/event-subscriber';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from './http-client';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: { id: string; type: string; [key: string]: unknown };
}

/** Answers each path with its scripted statuses (then 200), recording every request. */
class Subscribers {
  readonly received: Received[] = [];
  readonly scripts = new Map<string, number[]>();
  private server?: LoopbackSubscriber;
  url = '';
  async start(): Promise<void> {
    this.server = await startSubscriber((path, headers, body, response) => {
      this.received.push({ path, headers, body: body as Received['body'] });
      response.writeHead(this.scripts.get(path)?.shift() ?? 200).end();
    });
    this.url = this.server.url;
  }
  at(path: string): Received[] {
    return this.received.filter((item) => item.path === path);
  }
  async stop(): Promise<void> {
    await this.server?.stop();
  }
}

const subscribers = new Subscribers();
let host: LocalHost;
let api: ReturnType<typeof httpClient>;

beforeAll(async () => {
  await subscribers.start();
  host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1', SIGNALBOX_EVENT_SOURCE_PREFIX: '/test-deployment' },
    port: 0,
    storageNames: prefixedStorageNames(uniquePrefix('events')),
    logger: silentLogger,
    // Short test settings: 6 attempts, 20 ms doubling to 100 ms.
    engineOptions: { events: { policy: { maxAttempts: 6, firstRetryDelayInMs: 20, maxRetryDelayInMs: 100 } } },
  });
  api = httpClient(host.url);
});

afterAll(async () => {
  await host?.stop();
  await subscribers.stop();
});

/** Polls the instance's events until no delivery is pending. */
async function settledEvents(instanceId: string) {
  for (let poll = 0; poll < 400; poll++) {
    const events = await api.request('GET', `/api/instances/${instanceId}/events`);
    expect(events.status).toBe(200);
    const items = events.body.items as Array<{ id: string; type: string; time: string; deliveries: Array<{ subscriptionId: string; status: string; attempts: number; lastError?: string }> }>;
    if (items.every((item) => item.deliveries.every((delivery) => delivery.status !== 'pending'))) return items;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`events of ${instanceId} did not settle`);
}

async function applied(instanceId: string, name: string) {
  const accepted = await api.request('POST', `/api/instances/${instanceId}/triggers`, { json: { name } });
  expect(accepted.status).toBe(202);
  expect((await api.waitForOperation(accepted.body.operationId)).status).toBe(200);
}

/** An event id without the instance's incarnation (`c1:<incarnation>:0:created` → `c1:0:created`). */
const bare = (id: string) => id.replace(/^([a-z]\d):[0-9a-f]{12}:/, '$1:');

describe('lifecycle events over HTTP', () => {
  it('delivers created and transitioned to three subscribers; a failing one neither faults the instance nor stops the others; retries keep the id', async () => {
    const workflow = {
      id: 'claim',
      displayName: 'Claim',
      initialStateId: 'open',
      subscriptions: [
        { id: 'audit', url: `${subscribers.url}/audit`, contextItemsToInclude: ['amount'] },
        { id: 'flaky', url: `${subscribers.url}/flaky`, events: ['created', 'transitioned'] },
        { id: 'broken', url: `${subscribers.url}/broken` },
      ],
      states: {
        open: { transitions: [{ id: 'approve', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Approve' }] }] },
        approved: { transitions: [{ id: 'pay', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Pay' }] }] },
        paid: {},
      },
    };
    subscribers.scripts.set('/flaky', [503, 500, 429, 502]);
    subscribers.scripts.set('/broken', Array(100).fill(500));
    expect((await api.request('PUT', '/api/workflows/claim', { json: workflow })).status).toBe(201);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'claim', instanceId: 'c1', context: { amount: 120, ssn: 'secret' } } })).status).toBe(201);
    await applied('c1', 'Approve');
    await applied('c1', 'Pay');

    const instance = await api.request('GET', '/api/instances/c1');
    expect([instance.body.status, instance.body.stateId]).toEqual(['complete', 'paid']);
    const events = await settledEvents('c1');
    expect(events.map((event) => bare(event.id))).toEqual(['c1:0:created', 'c1:1:transitioned', 'c1:2:transitioned', 'c1:2:completed']);
    expect(events[0]!.deliveries).toEqual([
      { subscriptionId: 'audit', status: 'delivered', attempts: 1 },
      { subscriptionId: 'flaky', status: 'delivered', attempts: 5 },
      { subscriptionId: 'broken', status: 'deadLettered', attempts: 6, lastError: 'the subscriber answered 500' },
    ]);
    expect(events[3]!.deliveries.map((delivery) => delivery.subscriptionId)).toEqual(['audit', 'broken']);

    const audit = subscribers.at('/audit');
    expect(audit.map((item) => bare(item.body.id))).toEqual(['c1:0:created', 'c1:1:transitioned', 'c1:2:transitioned', 'c1:2:completed']);
    expect(audit[1]!.headers['content-type']).toMatch(/^application\/cloudevents\+json/);
    expect(audit[1]!.body).toEqual({
      specversion: '1.0',
      id: events[1]!.id,
      type: 'io.signalbox.instance.transitioned',
      source: '/test-deployment/signalbox/workflows/claim',
      subject: 'c1',
      time: events[1]!.time,
      datacontenttype: 'application/json',
      data: {
        workflowId: 'claim',
        workflowVersion: 1,
        instanceId: 'c1',
        previousStateId: 'open',
        stateId: 'approved',
        previousStatus: 'waiting',
        status: 'waiting',
        transitionId: 'approve',
        triggerId: expect.any(String),
        // Who made the change: an open local server's requests act as `anonymous`.
        actor: { id: 'anonymous', name: 'anonymous', roles: ['Signalbox.Admin'], via: 'key' },
        context: { amount: 120 },
      },
    });
    expect(audit[0]!.body.data).toMatchObject({ previousStateId: null, previousStatus: null, stateId: 'open', transitionId: null, triggerId: null });
    // Five attempts at the created event, each with the same id, then the later events in order.
    expect(subscribers.at('/flaky').map((item) => bare(item.body.id))).toEqual([...Array(5).fill('c1:0:created'), 'c1:1:transitioned', 'c1:2:transitioned']);
  });

  it('dead-letters at once on a 4xx, lists it, and redelivers it on request', async () => {
    const workflow = { id: 'dl', displayName: 'DL', initialStateId: 'a', subscriptions: [{ id: 'picky', url: `${subscribers.url}/picky` }], states: { a: {} } };
    subscribers.scripts.set('/picky', [400]);
    expect((await api.request('PUT', '/api/workflows/dl', { json: workflow })).status).toBe(201);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'dl', instanceId: 'd1' } })).status).toBe(201);
    let events = await settledEvents('d1');
    expect(events.map((event) => [bare(event.id), event.deliveries])).toEqual([
      ['d1:0:created', [{ subscriptionId: 'picky', status: 'deadLettered', attempts: 1, lastError: 'the subscriber answered 400' }]],
      ['d1:0:completed', [{ subscriptionId: 'picky', status: 'delivered', attempts: 1 }]],
    ]);
    expect((await api.request('POST', `/api/instances/d1/events/${encodeURIComponent(events[1]!.id)}/redeliver`)).status).toBe(409);
    expect((await api.request('POST', `/api/instances/d1/events/${encodeURIComponent(events[0]!.id.replace(':0:', ':7:'))}/redeliver`)).status).toBe(404);
    const redeliver = await api.request('POST', `/api/instances/d1/events/${encodeURIComponent(events[0]!.id)}/redeliver`);
    expect(redeliver.status).toBe(202);
    events = await settledEvents('d1');
    expect(events[0]!.deliveries).toEqual([{ subscriptionId: 'picky', status: 'delivered', attempts: 1 }]);
    expect(subscribers.at('/picky').map((item) => bare(item.body.id))).toEqual(['d1:0:created', 'd1:0:completed', 'd1:0:created']);
    expect((await api.request('GET', '/api/instances/nobody/events')).status).toBe(404);
  });

  it('refuses more than 10 subscriptions, naming the field, and stores nothing', async () => {
    const subscriptions = Array.from({ length: 11 }, (_, index) => ({ id: `s${index}`, url: `${subscribers.url}/s${index}` }));
    const refused = await api.request('PUT', '/api/workflows/many', { json: { id: 'many', displayName: 'Many', initialStateId: 'a', subscriptions, states: { a: {} } } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error: { path: string }) => error.path)).toContain('subscriptions');
    expect((await api.request('GET', '/api/workflows/many')).status).toBe(404);
  });
});

describe('child workflows over HTTP', () => {
  it('starts two children and moves on when both complete', async () => {
    const parcel = {
      id: 'parcel',
      displayName: 'Parcel',
      initialStateId: 'packing',
      states: {
        packing: { transitions: [{ id: 'ship', targetStateId: 'shipped', conditions: [{ type: 'triggerName', name: 'Ship' }], actions: [{ type: 'setContext', values: { tracking: 'T' } }] }] },
        shipped: {},
      },
    };
    const order = {
      id: 'order',
      displayName: 'Order',
      initialStateId: 'new',
      states: {
        new: {
          transitions: [
            {
              id: 'split',
              targetStateId: 'fulfilling',
              conditions: [{ type: 'triggerName', name: 'Split' }],
              actions: [1, 2].map((n) => ({ type: 'startInstance', workflowId: 'parcel', instanceId: `{{instance.id}}-parcel-${n}`, context: { values: { n } }, returnContextItems: ['tracking'] })),
            },
          ],
        },
        fulfilling: {
          transitions: [
            {
              id: 'allDone',
              targetStateId: 'done',
              conditions: [
                { type: 'triggerName', name: 'ChildCompleted' },
                { type: 'expression', expression: 'context.shipped = 1' },
              ],
            },
            { id: 'oneDone', targetStateId: 'fulfilling', conditions: [{ type: 'triggerName', name: 'ChildCompleted' }], actions: [{ type: 'setContext', values: { shipped: 1 } }] },
          ],
        },
        done: {},
      },
    };
    expect((await api.request('PUT', '/api/workflows/parcel', { json: parcel })).status).toBe(201);
    expect((await api.request('PUT', '/api/workflows/order', { json: order })).status).toBe(201);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'order', instanceId: 'o1' } })).status).toBe(201);
    await applied('o1', 'Split');

    const children = await api.request('GET', '/api/instances?parentId=o1');
    expect(children.status).toBe(200);
    expect(children.body.items.map((child: { id: string; parent: unknown; context: unknown }) => [child.id, child.parent, child.context])).toEqual([
      ['o1-parcel-1', { instanceId: 'o1' }, { n: 1 }],
      ['o1-parcel-2', { instanceId: 'o1' }, { n: 2 }],
    ]);
    expect((await api.request('GET', '/api/instances/o1-parcel-2')).body.parent).toEqual({ instanceId: 'o1' });
    expect((await api.request('GET', '/api/instances/o1')).body.parent).toBeUndefined();

    await applied('o1-parcel-1', 'Ship');
    expect((await api.request('GET', '/api/instances/o1')).body.stateId).toBe('fulfilling');
    await applied('o1-parcel-2', 'Ship');
    let parent = await api.request('GET', '/api/instances/o1');
    for (let poll = 0; poll < 200 && parent.body.status !== 'complete'; poll++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      parent = await api.request('GET', '/api/instances/o1');
    }
    expect([parent.body.stateId, parent.body.status]).toEqual(['done', 'complete']);
    const history = await api.request('GET', '/api/instances/o1/history');
    expect(history.body.items.map((entry: { transitionId: string | null }) => entry.transitionId)).toEqual([null, 'split', 'oneDone', 'allDone']);
  });
});
