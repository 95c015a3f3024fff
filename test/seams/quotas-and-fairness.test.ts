/**
 * The seams "quota" (tenant-quotas.ts: the API's trigger rate, instances alive, operations running) and
 * "fairness" (the local runner's FairScheduler) crossed with each kind of follow-up work. A quota refuses
 * only what a client sends, before anything is recorded (a 429 or 409 records nothing, so no refused
 * trigger can be half-accepted and lost); follow-up work that a change already promised (raised triggers,
 * timers, children and their notifications, events, pending retries) is never refused, however far over
 * its quotas the tenant is. Fairness only orders work: an operation queued behind another tenant's
 * broadcast when the process stopped is resumed by the next start.
 *
 * The local server's own wiring (HostCore, runner, node:http routes) on in-memory ports, with a manual
 * clock for timers and retries; the quotas against Azurite are in test/host/quotas-api.test.ts.
 */
import {
  TriggerOutcome,
  dueTimersOf,
  retryTimerOf,
  timerTrigger,
  RetryLaterError,
  type ExternalRequest,
  type ExternalResponse,
  type ExternalServiceClient,
  type WorkflowDefinitionInput,
} from '../../src/engine';
import { InMemoryDueTimerIndex, ManualClock, createInMemoryPorts } from '../../src/testing';
import { createHostCore, type HostCore } from '../../src/host/host-services';
import { LocalOperationRunner } from '../../src/host/local/local-operation-runner';
import { FairScheduler } from '../../src/host/local/concurrency';
import { startLocalServer } from '../../src/host/local/local-server';
import { silentLogger } from '../../src/host/local/logger';
import type { OperationActivities } from '../../src/host/contracts/operation-activities';
import type { Environment } from '../../src/host/settings';
import { DEFAULT_QUOTAS } from '../../src/host/tenant-quotas';
import { httpClient } from '../host/http-client';

/** Asks for another attempt a minute later `failures` times (a pending retry), then answers 200. */
class LaterService implements ExternalServiceClient {
  constructor(private failures: number) {}
  async send(request: ExternalRequest): Promise<ExternalResponse> {
    if (this.failures-- > 0)
      throw new RetryLaterError({ type: 'http:5xx', message: `the external service ${request.url} answered HTTP 503`, status: 503 }, (request.retry?.firstAttempt ?? 1) + 1, 60_000);
    return { status: 200, body: {} };
  }
}

const flow: WorkflowDefinitionInput = {
  id: 'flow',
  displayName: 'Flow',
  initialStateId: 'a',
  subscriptions: [{ id: 'audit', url: 'https://audit.example.com/hook' }],
  states: {
    a: {
      transitions: [
        {
          id: 'go',
          targetStateId: 'b',
          conditions: [{ type: 'triggerName', name: 'Go' }],
          actions: [
            { type: 'raiseTrigger', trigger: { name: 'Echo', subjects: ['{{instance.id}}'] } },
            { type: 'startInstance', workflowId: 'leaf', instanceId: '{{instance.id}}-leaf' },
          ],
        },
        {
          id: 'pay',
          targetStateId: 'paid',
          conditions: [{ type: 'triggerName', name: 'Pay' }],
          actions: [{ type: 'invokeExternalService', url: 'https://pay.example/charge', retry: { attempts: 3, initialDelay: 'PT1M' } }],
        },
      ],
    },
    b: { transitions: [{ id: 'echo', targetStateId: 'c', conditions: [{ type: 'triggerName', name: 'Echo' }] }] },
    c: { transitions: [{ id: 'late', targetStateId: 'd', timer: { after: 'PT1M' } }] },
    d: {},
    paid: {},
  },
} as WorkflowDefinitionInput;
const leaf: WorkflowDefinitionInput = { id: 'leaf', displayName: 'Leaf', initialStateId: 'done', states: { done: {} } };

/** One token and then none for 1,000 s; `alive` instances alive at most. */
const quotaEnv = (alive: number): Environment => ({ SIGNALBOX_QUOTA_TRIGGER_BURST: '1', SIGNALBOX_QUOTA_TRIGGERS_PER_SECOND: '0.001', SIGNALBOX_QUOTA_INSTANCES_ALIVE: String(alive) });

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function startHost(options: { env: Environment; operationsRunning?: () => Promise<number>; service?: ExternalServiceClient }) {
  const clock = new ManualClock('2026-01-01T00:00:00.000Z');
  const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex(), checkHealth: async () => true };
  const core: HostCore = createHostCore({
    ports,
    logger: silentLogger,
    env: options.env,
    engineOptions: { clock, ...(options.service ? { http: options.service } : {}) },
    ...(options.operationsRunning ? { quotaCounts: { operationsRunning: options.operationsRunning } } : {}),
  });
  const runner = new LocalOperationRunner(silentLogger, (launcher) => core.activitiesFor(launcher), { now: () => clock.now() });
  const services = core.servicesFor(runner);
  const server = await startLocalServer(services, { port: 0, logger: silentLogger });
  stops.push(async () => {
    await server.close();
    await runner.stop();
  });
  const api = httpClient(server.url);
  for (const workflow of [flow, leaf]) expect((await api.request('PUT', `/api/workflows/${workflow.id}`, { json: workflow })).status).toBe(201);
  return { core, runner, services, clock, api };
}

describe('quota', () => {
  it('quota × raised triggers, timers, children and events: the one trigger the rate let in carries all its follow-up work, none of it refused though the tenant is over its quotas', async () => {
    const { core, services, clock, api } = await startHost({ env: quotaEnv(1) });
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'flow', instanceId: 'f1' } })).status).toBe(201);
    const go = await api.request('POST', '/api/triggers', { json: { id: 'go-1', name: 'Go', subjects: ['f1'] }, headers: { prefer: 'wait=30' } });
    expect(go.status).toBe(200);
    // The bucket is empty and the one instance alive is the quota: the API refuses more.
    expect((await api.request('POST', '/api/triggers', { json: { id: 'go-2', name: 'Go', subjects: ['f1'] } })).status).toBe(429);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'flow', instanceId: 'f2' } })).status).toBe(409);

    // The raised Echo was applied, and the child started beyond the instances-alive quota.
    expect(await core.engine.getInstance('f1')).toMatchObject({ stateId: 'c' });
    expect(await core.engine.getInstance('f1-leaf')).toMatchObject({ workflowId: 'leaf' });
    // Every change recorded its lifecycle events.
    const events = (await core.engine.listEvents('f1')).items.filter((event) => event.type.endsWith('transitioned'));
    expect(events).toHaveLength(2);
    // The timer, due a minute later, fires through the same submitter as ever: not refused.
    clock.advanceBy(60_000);
    const [timer] = dueTimersOf(await core.engine.getInstance('f1'));
    const fired = await services.triggers.submit(timerTrigger(timer!));
    await services.awaitOperation(fired.id, 30_000);
    expect(await core.engine.getInstance('f1')).toMatchObject({ stateId: 'd' });
  });

  it('quota × pending retries: a retry waiting for its time is applied when due, whatever the rate', async () => {
    const { core, services, clock, api } = await startHost({ env: quotaEnv(10), service: new LaterService(1) });
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'flow', instanceId: 'p1' } })).status).toBe(201);
    const pay = await api.request('POST', '/api/triggers', { json: { id: 'pay-1', name: 'Pay', subjects: ['p1'] }, headers: { prefer: 'wait=30' } });
    expect(pay.body).toMatchObject({ status: 'succeeded', summary: { retryScheduled: 1 } });
    expect((await api.request('POST', '/api/triggers', { json: { id: 'pay-2', name: 'Pay', subjects: ['p1'] } })).status).toBe(429);
    clock.advanceBy(60_000);
    const retry = await services.triggers.submit(timerTrigger(retryTimerOf(await core.engine.getInstance('p1'))!));
    await services.awaitOperation(retry.id, 30_000);
    expect(await core.engine.getInstance('p1')).toMatchObject({ stateId: 'paid' });
  });

  it('quota × migrations and bulk actions: at the operations-running quota both answer 429 and record no operation; below it both are accepted', async () => {
    let running = DEFAULT_QUOTAS.operationsRunning; // the tenant is at its quota
    const { api } = await startHost({ env: {}, operationsRunning: async () => running });
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'flow', instanceId: 'm1' } })).status).toBe(201);
    const version = await api.request('GET', '/api/workflows/flow');
    expect((await api.request('PUT', '/api/workflows/flow', { json: { ...flow, displayName: 'Flow 2' }, headers: { 'if-match': version.headers.get('etag')! } })).status).toBe(200);
    const migration = { fromVersion: 1, toVersion: 2, stateMap: {} };
    const bulk = { action: 'suspend', filter: { workflowId: 'flow' } };
    const refusedMigration = await api.request('POST', '/api/workflows/flow/migrations', { json: migration });
    const refusedBulk = await api.request('POST', '/api/instances/bulk', { json: bulk });
    for (const refused of [refusedMigration, refusedBulk]) {
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body).toMatchObject({ title: 'Too many requests', detail: expect.stringContaining(`${DEFAULT_QUOTAS.operationsRunning} operations running, its quota; nothing was recorded`) });
    }
    expect((await api.request('GET', '/api/operations')).body.items).toEqual([]);

    // Operations finished meanwhile: read again (a second later at the quota), both are accepted.
    running = 0;
    const deadline = Date.now() + 30_000;
    let accepted = refusedMigration;
    while (accepted.status === 429 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      accepted = await api.request('POST', '/api/workflows/flow/migrations', { json: migration });
    }
    expect(accepted.status).toBe(202);
    expect((await api.request('POST', '/api/instances/bulk', { json: bulk })).status).toBe(202);
  });

  it('quota × deletion and re-creation: a deleted instance frees its place among those alive, and an id created again takes one', async () => {
    const { api } = await startHost({ env: quotaEnv(1) });
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'flow', instanceId: 'r1' } })).status).toBe(201);
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'flow', instanceId: 'r2' } })).status).toBe(409);
    expect((await api.request('POST', '/api/instances/r1/cancel')).status).toBe(200);
    expect((await api.request('DELETE', '/api/instances/r1')).status).toBeLessThan(300);
    const deadline = Date.now() + 30_000;
    let again = await api.request('POST', '/api/instances', { json: { workflowId: 'flow', instanceId: 'r1' } });
    while (again.status === 409 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      again = await api.request('POST', '/api/instances', { json: { workflowId: 'flow', instanceId: 'r1' } });
    }
    expect(again.status).toBe(201);
    // The re-created r1 is the one alive: r2 is still refused.
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'flow', instanceId: 'r2' } })).status).toBe(409);
  });
});

describe('fairness', () => {
  it("fairness × crash resumption: an operation queued behind another tenant's broadcast when the process stopped is resumed by the next start, each instance applied once", async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex(), checkHealth: async () => true };
    const core = createHostCore({ ports, logger: silentLogger, env: {}, engineOptions: { clock } });
    await core.engine.createWorkflow(flow);
    await core.engine.createWorkflow(leaf);
    for (let index = 0; index < 20; index += 1) await core.engine.createInstance({ workflowId: 'flow', instanceId: `a${index}` });
    await core.engine.createInstance({ workflowId: 'flow', instanceId: 'b0' });

    // The first process: one slot, held by tenant A's broadcast (its first application never ends).
    const scheduler = new FairScheduler(1);
    const hanging = (activities: OperationActivities): OperationActivities => ({
      beginOperation: (input) => activities.beginOperation(input),
      findCandidates: (input) => activities.findCandidates(input),
      applyOperation: () => new Promise(() => {}),
      recordProgress: (input) => activities.recordProgress(input),
      completeOperation: (input) => activities.completeOperation(input),
    });
    const first = (tenantId: string) => new LocalOperationRunner(silentLogger, (launcher) => hanging(core.activitiesFor(launcher)), { scheduler, tenantId, now: () => clock.now() });
    const runnerA = first('tenant-a');
    const runnerB = first('tenant-b');
    const broadcast = Array.from({ length: 20 }, (_, index) => `a${index}`);
    await core.servicesFor(runnerA).triggers.submit({ id: 'flood', name: 'Echo', subjects: broadcast });
    await core.servicesFor(runnerB).triggers.submit({ id: 'single', name: 'Go', subjects: ['b0'] });
    for (let turn = 0; turn < 10_000 && scheduler.waiting < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(scheduler.waiting).toBe(20); // A's 19 and B's 1, behind the one that holds the slot
    // The process stops: nothing of B's was applied.
    await Promise.all([runnerA.stop(50), runnerB.stop(50)]);
    expect(await core.engine.getInstance('b0')).toMatchObject({ stateId: 'a' });

    // The next start resumes both, B's included; each instance applied once.
    const next = new LocalOperationRunner(silentLogger, (launcher) => core.activitiesFor(launcher), { now: () => clock.now() });
    stops.push(() => next.stop());
    expect(await next.resumeUnfinished(core.operations)).toBe(2);
    await Promise.all([next.whenDone('flood'), next.whenDone('single')]);
    const single = await core.operations.get('single');
    expect(single).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
    // Go raised Echo: its own operation, which the resumed runner runs too.
    const deadline = Date.now() + 30_000;
    while ((await core.engine.getInstance('b0')).stateId !== 'c' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await core.engine.getInstance('b0')).toMatchObject({ stateId: 'c' });
    expect((await core.engine.getHistory('b0')).items.filter((entry) => entry.transitionId === 'go')).toHaveLength(1);
    expect((await core.operations.get('flood'))!.summary[TriggerOutcome.noTransition]).toBe(20);
  });
});
