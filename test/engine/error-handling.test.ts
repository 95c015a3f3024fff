/**
 * Errors that are handled: `retry` on invokeExternalService steps (in place, and durably through a
 * pending retry and its timer) and `onError` on transitions and states. Against a real loopback HTTP
 * server that fails a given number of times, through the real outbound client (src/outbound).
 */
import type { ServerResponse } from 'node:http';
import expenseClaim from '../../examples/expense-claim.json';
import { Engine, TriggerOutcome, backoffDelayInMs, retryTimerOf, withJitter, type OnErrorDefinition, type RetryPolicyInput, type StoredInstance, type WorkflowDefinitionInput } from '../../src/engine';
import { createOutboundClient } from '../../src/outbound';
import { ManualClock, createInMemoryPorts } from '../../src/testing';
import { json, recordingLogger, startServer, type RecordedRequest } from './support';

type Answer = (request: RecordedRequest, response: ServerResponse) => void;

/** A loopback server that answers `failures` requests with `fail`, then 200 (`{}`). */
async function failingServer(failures: number, fail: Answer = (_request, response) => json(response, 503, { error: 'busy' })) {
  let failed = 0;
  return startServer((request, response) => {
    if (failed < failures) {
      failed++;
      fail(request, response);
      return;
    }
    json(response, 200, {});
  });
}

type Server = Awaited<ReturnType<typeof failingServer>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function orders(url: string, overrides: { retry?: RetryPolicyInput; onError?: OnErrorDefinition; stateOnError?: OnErrorDefinition; timeoutMs?: number } = {}): WorkflowDefinitionInput {
  return {
    id: 'orders',
    displayName: 'Orders',
    initialStateId: 'waiting',
    states: {
      waiting: {
        transitions: [
          {
            id: 'charge',
            targetStateId: 'charged',
            conditions: [{ type: 'triggerName', name: 'Charge' }],
            actions: [
              {
                type: 'invokeExternalService',
                id: 'payment',
                url: `${url}/charge`,
                ...(overrides.retry ? { retry: overrides.retry } : {}),
                ...(overrides.timeoutMs ? { timeoutMs: overrides.timeoutMs } : {}),
              },
            ],
            ...(overrides.onError ? { onError: overrides.onError } : {}),
          },
        ],
        ...(overrides.stateOnError ? { onError: overrides.stateOnError } : {}),
      },
      charged: {},
      failed: { transitions: [{ id: 'again', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'Again' }] }] },
      handledByState: {},
    },
  };
}

const FAST: RetryPolicyInput = { attempts: 3, initialDelay: 'PT0.01S', backoff: 'constant', jitter: 0 };
const TO_FAILED: OnErrorDefinition = {
  when: ['http:5xx', 'timeout'],
  targetStateId: 'failed',
  setContext: { lastError: 'error.message', lastType: 'error.type', lastStatus: 'error.status', failedStep: 'error.stepPath' },
};
const ACTION_PATH = 'states.waiting.transitions[0].actions[0]';

async function setup(definition: WorkflowDefinitionInput) {
  const clock = new ManualClock('2026-11-26T10:00:00.000Z');
  const ports = createInMemoryPorts();
  const events = { http: { send: async () => ({ status: 204, body: undefined }) } };
  const engine = new Engine(ports, { clock, logger: recordingLogger(), http: createOutboundClient({ allowedHosts: ['127.0.0.1'], retryDelayInMs: 1 }), events });
  await engine.createWorkflow({ ...definition, subscriptions: [{ id: 'hook', url: 'https://hook.example/' }] });
  await engine.createInstance({ workflowId: 'orders', instanceId: 'o1' });
  const charge = (id = 'charge-1') => engine.applyTrigger('o1', { id, name: 'Charge', subjects: ['o1'] });
  return { clock, engine, ports, charge };
}

describe('retries in place', () => {
  it('retries a 503 within the step and takes the transition when an attempt passes; the trace lists each retry', async () => {
    server = await failingServer(2);
    const { engine, charge } = await setup(orders(server.url, { retry: FAST }));
    const result = await charge();
    expect(result).toMatchObject({ outcome: TriggerOutcome.transitioned, toStateId: 'charged' });
    expect(server.requests).toHaveLength(3);
    const retries = (result.trace ?? []).filter((entry) => entry.path === ACTION_PATH);
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatchObject({ type: 'invokeExternalService', result: 'error' });
    expect(retries[0]!.detail).toMatch(/^attempt 1 failed \(http:5xx\), retried in place after 10 ms/);
    expect(retries[1]!.detail).toMatch(/^attempt 2 failed/);
    expect((await engine.getInstance('o1')).pendingRetry).toBeUndefined();
  });

  it('uses the workflow default when the step has no policy; without either, the client default (2 retries) stays', async () => {
    server = await failingServer(4);
    const withDefault = { ...orders(server.url), retry: { ...FAST, attempts: 5 } };
    const { charge } = await setup(withDefault);
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.transitioned });
    expect(server.requests).toHaveLength(5);
  });

  it('does not retry what retryOn leaves out: a 500 with retryOn [timeout] faults at once', async () => {
    server = await failingServer(5);
    const { charge, engine } = await setup(orders(server.url, { retry: { ...FAST, retryOn: ['timeout'] } }));
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.faulted });
    expect(server.requests).toHaveLength(1);
    expect((await engine.getInstance('o1')).status).toBe('faulted');
  });

  it('retries a timed-out attempt when retryOn names timeout', async () => {
    let calls = 0;
    server = await startServer((_request, response) => {
      if (++calls === 1) return; // never answered: the attempt times out
      json(response, 200, {});
    });
    const { charge } = await setup(orders(server.url, { retry: { ...FAST, retryOn: ['timeout'] }, timeoutMs: 200 }));
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.transitioned });
    expect(server.requests).toHaveLength(2);
  });
});

describe('onError', () => {
  it("after the last attempt, takes the transition's onError: the target state, with setContext seeing `error`; history and events say so", async () => {
    server = await failingServer(100);
    const { engine, charge } = await setup(orders(server.url, { retry: FAST, onError: TO_FAILED }));
    const result = await charge();
    expect(result).toMatchObject({ outcome: TriggerOutcome.errorHandled, transitionId: 'charge', fromStateId: 'waiting', toStateId: 'failed' });
    expect(server.requests).toHaveLength(3);
    const instance = await engine.getInstance('o1');
    expect(instance).toMatchObject({ stateId: 'failed', status: 'waiting' });
    expect(instance.context).toEqual({
      lastError: expect.stringMatching(/^action of transition "charge" \[0\] \(invokeExternalService "payment"\): the external service http:\/\/127\.0\.0\.1:\d+\/charge answered HTTP 503$/),
      lastType: 'http:5xx',
      lastStatus: 503,
      failedStep: ACTION_PATH,
    });
    expect(result.trace?.at(-1)).toMatchObject({ path: 'states.waiting.transitions[0].onError', type: 'onError', result: true });
    const history = (await engine.getHistory('o1')).items;
    expect(history.at(-1)).toMatchObject({
      event: 'errorHandled',
      triggerId: 'charge-1',
      transitionId: 'charge',
      fromStateId: 'waiting',
      toStateId: 'failed',
      error: { type: 'http:5xx', status: 503, stepPath: ACTION_PATH },
    });
    expect((await engine.listEvents('o1')).items.map((event) => event.type)).toEqual(['created', 'errorHandled']);
    // Applied once: a repeated delivery answers from the record.
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.duplicate, applied: { outcome: 'errorHandled', toStateId: 'failed' } });
    expect(server.requests).toHaveLength(3);
  });

  it("falls back to the state's onError when the transition's does not handle the type", async () => {
    server = await failingServer(100, (_request, response) => json(response, 404, {}));
    const transitionOnly5xx = orders(server.url, { onError: TO_FAILED, stateOnError: { when: ['http:4xx'], targetStateId: 'handledByState' } });
    const { charge } = await setup(transitionOnly5xx);
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.errorHandled, toStateId: 'handledByState' });
  });

  it("prefers the transition's onError to the state's when both handle it", async () => {
    server = await failingServer(100);
    const { charge } = await setup(orders(server.url, { onError: TO_FAILED, stateOnError: { targetStateId: 'handledByState' } }));
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.errorHandled, toStateId: 'failed' });
  });

  it('without an onError that handles the error, faults as before', async () => {
    server = await failingServer(100, (_request, response) => json(response, 400, {}));
    const { charge, engine } = await setup(orders(server.url, { onError: TO_FAILED }));
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.faulted });
    expect((await engine.getInstance('o1')).fault?.message).toMatch(/answered HTTP 400/);
  });

  it("handles a timeout like any other error (Zenaton's onTimeout)", async () => {
    server = await startServer(() => undefined); // never answers
    const { charge } = await setup(orders(server.url, { onError: { when: ['timeout'], targetStateId: 'failed', setContext: { lastType: 'error.type' } }, timeoutMs: 150 }));
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.errorHandled, toStateId: 'failed' });
  });

  it("handles an expression error in a condition through the state's onError", async () => {
    const definition: WorkflowDefinitionInput = {
      id: 'orders',
      displayName: 'Orders',
      initialStateId: 'waiting',
      states: {
        waiting: {
          onError: { when: ['expression'], targetStateId: 'failed', setContext: { where: 'error.stepPath' } },
          transitions: [{ id: 'go', targetStateId: 'done', conditions: [{ type: 'expression', expression: '$error("no")' }] }],
        },
        done: {},
        failed: {},
      },
    };
    const { charge, engine } = await setup(definition);
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.errorHandled, toStateId: 'failed' });
    expect((await engine.getInstance('o1')).context).toEqual({ where: 'states.waiting.transitions[0].conditions[0]' });
  });
});

describe('a pending retry (a wait longer than fits in place)', () => {
  const SLOW: RetryPolicyInput = { attempts: 3, initialDelay: 'PT1M', backoff: 'exponential', jitter: 0 };

  it('records the pending retry, releases the instance, and its timer re-applies the trigger once', async () => {
    server = await failingServer(1);
    const { clock, engine, charge } = await setup(orders(server.url, { retry: SLOW, onError: TO_FAILED }));
    const first = await charge();
    expect(first).toMatchObject({ outcome: TriggerOutcome.retryScheduled, fromStateId: 'waiting' });
    expect(first.trace?.at(-1)).toMatchObject({ path: ACTION_PATH, type: 'retry', result: 'error' });
    const waiting = await engine.getInstance('o1');
    expect(waiting.pendingRetry).toEqual({
      triggerId: 'charge-1',
      triggerName: 'Charge',
      attempt: 2,
      nextAttemptAt: '2026-11-26T10:01:00.000Z',
      stepPath: ACTION_PATH,
      lastError: { type: 'http:5xx', message: expect.stringMatching(/answered HTTP 503$/), status: 503 },
    });
    expect(waiting).toMatchObject({ stateId: 'waiting', status: 'waiting', appliedTriggers: [] });
    // Delivered again meanwhile: not applied now (it applies once, when its retry comes).
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.retryScheduled });
    expect(server.requests).toHaveLength(1);

    await clock.advanceBy(60_000);
    const after = await engine.getInstance('o1');
    expect(after).toMatchObject({ stateId: 'charged', status: 'complete' });
    expect(after.pendingRetry).toBeUndefined();
    expect(after.appliedTriggers.map((applied) => applied.triggerId)).toEqual(['charge-1']);
    expect(server.requests).toHaveLength(2);
    // The retry's timer delivered again (a durable timer waking twice): stale, nothing happens.
    expect(await engine.fireTimer(retryTimerOf(waiting)!)).toMatchObject({ outcome: TriggerOutcome.notInterested });
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.duplicate });
    expect(server.requests).toHaveLength(2);
  });

  it('counts attempts across re-applications, backing off, and takes onError after the last', async () => {
    server = await failingServer(100);
    const { clock, engine, charge } = await setup(orders(server.url, { retry: SLOW, onError: TO_FAILED }));
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.retryScheduled });
    await clock.advanceBy(60_000);
    const second = await engine.getInstance('o1');
    expect(second.pendingRetry).toMatchObject({ attempt: 3, nextAttemptAt: '2026-11-26T10:03:00.000Z' }); // 2 minutes: exponential
    await clock.advanceBy(120_000);
    const handled = await engine.getInstance('o1');
    expect(handled).toMatchObject({ stateId: 'failed', context: { lastType: 'http:5xx' } });
    expect(handled.pendingRetry).toBeUndefined();
    expect(server.requests).toHaveLength(3);
  });

  it('honours Retry-After on a 429', async () => {
    server = await failingServer(1, (_request, response) => {
      response.writeHead(429, { 'retry-after': '120' });
      response.end();
    });
    const { engine, charge } = await setup(orders(server.url, { retry: { ...FAST, attempts: 2 } }));
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.retryScheduled });
    expect((await engine.getInstance('o1')).pendingRetry).toMatchObject({ attempt: 2, nextAttemptAt: '2026-11-26T10:02:00.000Z', lastError: { status: 429 } });
  });

  it('waits while the instance is suspended and is scheduled again by the resume', async () => {
    server = await failingServer(1);
    const { clock, engine, charge } = await setup(orders(server.url, { retry: SLOW }));
    await charge();
    const pending = await engine.getInstance('o1');
    await engine.suspend('o1');
    await clock.advanceBy(120_000); // its timer fires: notActive, kept
    expect((await engine.getInstance('o1')).pendingRetry).toEqual(pending.pendingRetry);
    expect(server.requests).toHaveLength(1);
    const resumed = await engine.resume('o1');
    expect(resumed.pendingRetry?.nextAttemptAt).toBe('2026-11-26T10:02:00.000Z');
    // The spent schedule is not the new one.
    expect(await engine.fireTimer(retryTimerOf(pending)!)).toMatchObject({ outcome: TriggerOutcome.notInterested });
    await clock.advanceBy(1);
    expect(await engine.getInstance('o1')).toMatchObject({ stateId: 'charged' });
    expect(server.requests).toHaveLength(2);
  });

  it('never reaches a new instance of the same id (deleted and re-created meanwhile)', async () => {
    server = await failingServer(1);
    const { engine, charge } = await setup(orders(server.url, { retry: SLOW }));
    await charge();
    const old = await engine.getInstance('o1');
    await engine.deleteInstance('o1', { force: true });
    await engine.createInstance({ workflowId: 'orders', instanceId: 'o1' });
    expect(await engine.fireTimer(retryTimerOf(old)!)).toMatchObject({ outcome: TriggerOutcome.notInterested });
    const fresh: StoredInstance = await engine.getInstance('o1');
    expect(fresh).toMatchObject({ stateId: 'waiting', appliedTriggers: [] });
    expect(fresh.pendingRetry).toBeUndefined();
    // The new incarnation takes the same trigger id as a trigger of its own.
    expect(await charge()).toMatchObject({ outcome: TriggerOutcome.transitioned });
  });
});

describe('validation of retry and onError', () => {
  const base = (url = 'https://pay.example/charge') => orders(url);
  async function problems(definition: unknown) {
    const engine = new Engine(createInMemoryPorts(), { logger: recordingLogger() });
    try {
      engine.validateWorkflow(definition);
      return [];
    } catch (error) {
      return (error as { issues?: { path: string; message: string }[] }).issues ?? [];
    }
  }

  it('names the field of a bad retry policy', async () => {
    const definition = base();
    const step = definition.states.waiting!.transitions![0]!.actions![0]!;
    Object.assign(step, { retry: { attempts: 0, initialDelay: 'soon', backoff: 'random', jitter: 2, retryOn: ['http:404'] } });
    const paths = (await problems(definition)).map((problem) => problem.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'states.waiting.transitions[0].actions[0].retry.attempts',
        'states.waiting.transitions[0].actions[0].retry.initialDelay',
        'states.waiting.transitions[0].actions[0].retry.backoff',
        'states.waiting.transitions[0].actions[0].retry.jitter',
        'states.waiting.transitions[0].actions[0].retry.retryOn[0]',
      ]),
    );
    expect(await problems({ ...base(), retry: { attempts: 2, maxDelay: 'P2D' } })).toEqual([{ path: 'retry.maxDelay', message: expect.stringMatching(/longer than the 1 day/) }]);
  });

  it('refuses an onError to a missing state, an unknown error type and a malformed setContext expression', async () => {
    const found = await problems(
      orders('https://pay.example', { onError: { when: ['http:5xx'], targetStateId: 'nowhere' }, stateOnError: { when: ['teapot' as never], targetStateId: 'failed', setContext: { x: '(' } } }),
    );
    expect(found.map((problem) => problem.path).sort()).toEqual(['states.waiting.onError.setContext.x', 'states.waiting.onError.when[0]', 'states.waiting.transitions[0].onError.targetStateId']);
  });
});

describe('the expense claim example: a bank transfer retried, then onError', () => {
  /** The example with its bank's URL pointing at the loopback server. */
  function claimFor(url: string): WorkflowDefinitionInput {
    return JSON.parse(JSON.stringify(expenseClaim).replace('https://bank.example/transfers', `${url}/transfers`)) as WorkflowDefinitionInput;
  }

  async function claimWaitingForPayment(url: string) {
    const clock = new ManualClock('2026-11-26T10:00:00.000Z');
    const engine = new Engine(createInMemoryPorts(), { clock, logger: recordingLogger(), http: createOutboundClient({ allowedHosts: ['127.0.0.1'] }) });
    await engine.createWorkflow(claimFor(url));
    await engine.createInstance({ workflowId: 'expense-claim', instanceId: 'claim-1', context: { claimantId: 'u7' } });
    let n = 0;
    const apply = (name: string, parameters?: Record<string, string | number>) => engine.applyTrigger('claim-1', { id: `c${++n}`, name, subjects: ['claim-1'], ...(parameters ? { parameters } : {}) });
    await apply('Update', { amount: 42, description: 'train' });
    await apply('Submit', { at: '2026-11-26' });
    await apply('Approve', { by: 'boss' });
    return { clock, engine, apply };
  }

  it('pays once the bank answers, after a pending retry (the first wait, 2 s, fits in place; the bank asks for a minute)', async () => {
    server = await failingServer(2, (_request, response) => {
      response.writeHead(503, { 'retry-after': '60' });
      response.end();
    });
    const { clock, engine, apply } = await claimWaitingForPayment(server.url);
    expect(await apply('PayByTransfer')).toMatchObject({ outcome: TriggerOutcome.retryScheduled });
    expect((await engine.getInstance('claim-1')).pendingRetry).toMatchObject({ triggerName: 'PayByTransfer', attempt: 2, stepPath: 'states["waiting-for-payment"].transitions[1].actions[0]' });
    await clock.advanceBy(60_000); // attempt 2: 503 asking for a minute again
    await clock.advanceBy(60_000); // attempt 3 passes
    expect(await engine.getInstance('claim-1')).toMatchObject({ stateId: 'paid', status: 'complete' });
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]!.body).toMatchObject({ instanceId: 'claim-1', context: { claimantId: 'u7', amount: 42 } });
  });

  it('goes to payment-failed with the error in the context when the bank refuses, and can be paid by hand from there', async () => {
    server = await failingServer(100, (_request, response) => json(response, 422, { error: 'no such account' }));
    const { engine, apply } = await claimWaitingForPayment(server.url);
    expect(await apply('PayByTransfer')).toMatchObject({ outcome: TriggerOutcome.errorHandled, toStateId: 'payment-failed' });
    expect((await engine.getInstance('claim-1')).context).toMatchObject({ paymentErrorType: 'http:4xx', paymentError: expect.stringMatching(/answered HTTP 422$/) });
    expect(await apply('Pay', { at: '2026-11-27' })).toMatchObject({ outcome: TriggerOutcome.transitioned, toStateId: 'paid' });
  });
});

describe('backoff', () => {
  const policy = (backoff: 'constant' | 'linear' | 'exponential', jitter = 0) => ({ attempts: 10, initialDelayInMs: 1000, backoff, maxDelayInMs: 5000, jitter, retryOn: [] });

  it('waits the same, n times longer, or twice as long each time, never past maxDelay', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffDelayInMs(policy('constant'), attempt))).toEqual([1000, 1000, 1000, 1000]);
    expect([1, 2, 3, 4, 6].map((attempt) => backoffDelayInMs(policy('linear'), attempt))).toEqual([1000, 2000, 3000, 4000, 5000]);
    expect([1, 2, 3, 4].map((attempt) => backoffDelayInMs(policy('exponential'), attempt))).toEqual([1000, 2000, 4000, 5000]);
  });

  it('moves a wait by up to the jitter fraction either way', () => {
    expect(withJitter(policy('constant', 0.2), 1000, () => 0)).toBe(800);
    expect(withJitter(policy('constant', 0.2), 1000, () => 1)).toBe(1200);
    expect(withJitter(policy('constant', 0.2), 5000, () => 1)).toBe(5000); // capped at maxDelay
  });
});

describe('a pending retry and the end of its instance', () => {
  it('is dropped when the instance is cancelled, and its timer then changes nothing', async () => {
    server = await failingServer(1);
    const { engine, charge } = await setup(orders(server.url, { retry: { attempts: 3, initialDelay: 'PT1M' } }));
    await charge();
    const pending = await engine.getInstance('o1');
    const cancelled = await engine.cancel('o1');
    expect(cancelled.pendingRetry).toBeUndefined();
    expect(await engine.fireTimer(retryTimerOf(pending)!)).toMatchObject({ outcome: TriggerOutcome.notInterested });
    expect(server.requests).toHaveLength(1);
  });
});
