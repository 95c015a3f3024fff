/**
 * Lifecycle event delivery on the local server (Azurite, real loopback HTTP) where it meets the rest of
 * the system: order per instance and subscription through raised triggers and bursts, one redelivery
 * however many ask at once, a URL the allow-list refuses dead-lettered at once (and warned about at PUT),
 * and a large 2xx answer taken as delivered.
 */
import type { ServerResponse } from 'node:http';
import { startSubscriber, type LoopbackSubscriber } from '../support/event-subscriber';
import { startTestHost, type TestHost } from '../support/local-host';

interface Taken {
  readonly path: string;
  readonly id: string;
  readonly subject: string;
}

/** Records each event it takes; `answer` may take over the response for a path. */
class Subscriber {
  readonly taken: Taken[] = [];
  readonly answers = new Map<string, (response: ServerResponse) => void>();
  private server?: LoopbackSubscriber;
  url = '';
  async start(): Promise<void> {
    this.server = await startSubscriber((path, _headers, body, response) => {
      const event = body as { id: string; subject: string };
      this.taken.push({ path, id: event.id, subject: event.subject });
      const answer = this.answers.get(path);
      if (answer) answer(response);
      else response.writeHead(204).end();
    });
    this.url = this.server.url;
  }
  /** The history sequences `subject`'s events arrived with at `path`, in arrival order. */
  sequences(path: string, subject: string): number[] {
    return this.taken.filter((item) => item.path === path && item.subject === subject).map((item) => Number(item.id.split(':').at(-2)));
  }
  async stop(): Promise<void> {
    await this.server?.stop();
  }
}

const subscriber = new Subscriber();
let test: TestHost;

beforeAll(async () => {
  await subscriber.start();
  test = await startTestHost('evorder', {
    env: { SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' },
    engineOptions: { events: { policy: { maxAttempts: 6, firstRetryDelayInMs: 20, maxRetryDelayInMs: 100 } } },
  });
});

afterAll(async () => {
  await test?.host.stop();
  await subscriber.stop();
});

type Deliveries = Array<{ id: string; deliveries: Array<{ subscriptionId: string; status: string; attempts: number; lastError?: string }> }>;

/** Polls the instance's events until `done` holds for them (generous deadline). */
async function eventsWhen(instanceId: string, done: (items: Deliveries) => boolean, beforeEachPoll?: () => Promise<void>): Promise<Deliveries> {
  let items: Deliveries = [];
  for (let poll = 0; poll < 600; poll++) {
    await beforeEachPoll?.();
    const events = await test.api.request('GET', `/api/instances/${instanceId}/events?maxPageSize=1000`);
    items = events.body.items as Deliveries;
    if (done(items)) return items;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`events of ${instanceId} did not settle: ${JSON.stringify(items.map((item) => [item.id, item.deliveries.map((delivery) => delivery.status)]))}`);
}
const allSettled = (items: Deliveries) => items.every((item) => item.deliveries.every((delivery) => delivery.status !== 'pending'));

function strictlyIncreasing(values: readonly number[]): boolean {
  return values.every((value, index) => index === 0 || value > values[index - 1]!);
}

describe('lifecycle events in order on the local server', () => {
  it("delivers each instance's events in history order through raised triggers and a burst of triggers", async () => {
    const workflow = {
      id: 'ticker',
      displayName: 'Ticker',
      initialStateId: 'on',
      subscriptions: [{ id: 'hook', url: `${subscriber.url}/ticker`, events: ['created', 'transitioned'] }],
      states: {
        // Every Tick raises a Tock on the instance itself: two changes, the second caused by the first.
        on: {
          transitions: [
            { id: 'tick', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Tick' }], actions: [{ type: 'raiseTrigger', trigger: { name: 'Tock', subjects: ['{{instance.id}}'] } }] },
            { id: 'tock', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Tock' }], actions: [{ type: 'log', message: 'tock' }] },
          ],
        },
      },
    };
    expect((await test.api.request('PUT', '/api/workflows/ticker', { json: workflow })).status).toBe(201);
    const instances = ['tk-1', 'tk-2', 'tk-3'];
    for (const instanceId of instances) expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'ticker', instanceId } })).status).toBe(201);
    // A burst: ten Ticks to each instance at once, each raising a Tock.
    const sent = await Promise.all(instances.flatMap((instanceId) => Array.from({ length: 10 }, () => test.api.request('POST', `/api/instances/${instanceId}/triggers`, { json: { name: 'Tick' } }))));
    expect(sent.every((response) => response.status === 202)).toBe(true);
    await Promise.all(sent.map((response) => test.api.waitForOperation(response.body.operationId)));
    for (const instanceId of instances) {
      // Raised Tocks run after the Ticks' operations end: wait until every change's event has arrived.
      let historyLength = 0;
      await eventsWhen(
        instanceId,
        (items) => items.length === historyLength && allSettled(items) && subscriber.sequences('/ticker', instanceId).length === historyLength,
        async () => {
          historyLength = ((await test.api.request('GET', `/api/instances/${instanceId}/history?maxPageSize=1000`)).body.items as unknown[]).length;
        },
      );
      const sequences = subscriber.sequences('/ticker', instanceId);
      expect(sequences).toHaveLength(21);
      expect(strictlyIncreasing(sequences)).toBe(true);
    }
  });

  it('redelivers a dead-lettered event once however many ask at once', async () => {
    let refuse = true;
    subscriber.answers.set('/picky', (response) => response.writeHead(refuse ? 400 : 204).end());
    const workflow = { id: 'picky', displayName: 'Picky', initialStateId: 'a', subscriptions: [{ id: 'picky', url: `${subscriber.url}/picky`, events: ['created'] }], states: { a: {} } };
    expect((await test.api.request('PUT', '/api/workflows/picky', { json: workflow })).status).toBe(201);
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'picky', instanceId: 'pk-1' } })).status).toBe(201);
    const [deadLettered] = await eventsWhen('pk-1', (items) => items[0]?.deliveries[0]?.status === 'deadLettered');
    // Its id carries the instance's incarnation: read, not spelt out.
    const createdId = deadLettered!.id;
    refuse = false;
    const asks = await Promise.all(Array.from({ length: 8 }, () => test.api.request('POST', `/api/instances/pk-1/events/${encodeURIComponent(createdId)}/redeliver`)));
    expect(asks.map((ask) => ask.status).sort()).toEqual([202, ...Array(7).fill(409)]);
    const [event] = await eventsWhen('pk-1', allSettled);
    expect(event!.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    // Time for any second delivery to show up: the queue is idle once the record says delivered.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(subscriber.taken.filter((item) => item.path === '/picky').map((item) => item.id)).toEqual([createdId, createdId]);
  });
});

describe('lifecycle event delivery and the outbound pipeline', () => {
  it('warns at PUT about a subscription or a step whose host is not allowed, and dead-letters its events at the first attempt', async () => {
    const workflow = {
      id: 'elsewhere',
      displayName: 'Elsewhere',
      initialStateId: 'a',
      subscriptions: [
        { id: 'fine', url: `${subscriber.url}/fine`, events: ['created'] },
        { id: 'offlist', url: 'http://not-allowed.example.test/hook', events: ['created'] },
      ],
      states: {
        a: {
          transitions: [
            { id: 'call', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Call' }], actions: [{ type: 'invokeExternalService', url: 'https://api.not-allowed.example.test/x' }] },
          ],
        },
        b: {},
      },
    };
    const put = await test.api.request('PUT', '/api/workflows/elsewhere', { json: workflow });
    expect(put.status).toBe(201);
    expect(put.body.warnings.filter((warning: { code: string }) => warning.code === 'hostNotAllowed')).toEqual([
      {
        path: 'subscriptions[1].url',
        code: 'hostNotAllowed',
        message: 'subscription "offlist" would have every event dead-lettered: the host "not-allowed.example.test" is not on the allow-list (SIGNALBOX_ALLOWED_HOSTS)',
      },
      {
        path: 'states.a.transitions[0].actions[0].url',
        code: 'hostNotAllowed',
        message: 'every call of this step would fault: the host "api.not-allowed.example.test" is not on the allow-list (SIGNALBOX_ALLOWED_HOSTS)',
      },
    ]);
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'elsewhere', instanceId: 'el-1' } })).status).toBe(201);
    const [created] = await eventsWhen('el-1', allSettled);
    expect(created!.deliveries).toEqual([
      { subscriptionId: 'fine', status: 'delivered', attempts: 1 },
      { subscriptionId: 'offlist', status: 'deadLettered', attempts: 1, lastError: 'the host "not-allowed.example.test" is not on the allow-list (SIGNALBOX_ALLOWED_HOSTS)' },
    ]);
  });

  it('takes a 2xx answer over 1 MiB as delivered, without reading it', async () => {
    subscriber.answers.set('/chatty', (response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.alloc(3 * 1024 * 1024, 'x')));
    const workflow = { id: 'chatty', displayName: 'Chatty', initialStateId: 'a', subscriptions: [{ id: 'chatty', url: `${subscriber.url}/chatty`, events: ['created'] }], states: { a: {} } };
    expect((await test.api.request('PUT', '/api/workflows/chatty', { json: workflow })).status).toBe(201);
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'chatty', instanceId: 'ch-1' } })).status).toBe(201);
    const [created] = await eventsWhen('ch-1', allSettled);
    expect(created!.deliveries).toEqual([{ subscriptionId: 'chatty', status: 'delivered', attempts: 1 }]);
    expect(subscriber.taken.filter((item) => item.path === '/chatty')).toHaveLength(1);
  });
});
