/**
 * Concurrency slots (engine/admission/concurrency-slots.ts, a workflow's `flow.concurrency`) crossed with every
 * kind of follow-up work. A slot is taken for a trigger's application only (a raised trigger's, a timer's,
 * a child's notification, a pending retry's all count; creating, migrating, cancelling, deleting do not),
 * and it is given back before the change's follow-up work is relayed: a trigger a change raises to its own
 * key under limit 1 is applied, never deadlocked, and no slot is left held.
 */
import { Engine, RetryLaterError, type ExternalRequest, type ExternalResponse, type ExternalServiceClient, type WorkflowDefinitionInput } from '../../src/engine';
import { InMemoryDueTimerIndex, ManualClock, createInMemoryPorts } from '../../src/testing';
import { createHostCore } from '../../src/host/host-services';
import { LocalOperationRunner } from '../../src/host/local/local-operation-runner';
import { silentLogger } from '../../src/host/local/logger';
import { recordingLogger } from '../engine/support';

const limited: WorkflowDefinitionInput = {
  id: 'limited',
  displayName: 'Limited',
  initialStateId: 'open',
  flow: { concurrency: { key: "'all'", limit: 1 } },
  subscriptions: [{ id: 'audit', url: 'https://audit.example/hook', events: ['transitioned'] }],
  states: {
    open: {
      transitions: [
        { id: 'bump', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Bump' }], actions: [{ type: 'setContext', expressions: { n: '$exists(context.n) ? context.n + 1 : 1' } }] },
        { id: 'echo', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Echo' }], actions: [{ type: 'raiseTrigger', trigger: { name: 'Bump', subjects: ['{{instance.id}}'] } }] },
        { id: 'spawn', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'Spawn' }], actions: [{ type: 'startInstance', workflowId: 'limited-child', instanceId: 'child-1' }] },
        { id: 'escalate', targetStateId: 'escalated', timer: { after: 'PT1H' } },
      ],
    },
    waiting: { transitions: [{ id: 'done', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'ChildCompleted' }] }] },
    escalated: {},
  },
} as WorkflowDefinitionInput;

const child: WorkflowDefinitionInput = {
  id: 'limited-child',
  displayName: 'Limited child',
  initialStateId: 'work',
  states: { work: { transitions: [{ id: 'finish', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Finish' }] }] }, done: {} },
};

function setUp(http?: ExternalServiceClient) {
  const clock = new ManualClock('2026-11-26T12:00:00.000Z');
  const ports = createInMemoryPorts();
  const subscriber: ExternalServiceClient = { send: async () => ({ status: 204, body: undefined }) };
  const engine = new Engine(ports, { clock, logger: recordingLogger(), ...(http ? { http } : {}), events: { http: subscriber } });
  const held = async () => (await engine.flow!.view('limited', 'all')).running.length;
  return { clock, engine, ports, held };
}

describe('concurrency slots', () => {
  it('concurrency slots × raised triggers: a trigger raised to its own key under limit 1 is applied after the slot is given back, never deadlocked', async () => {
    const { engine, held } = setUp();
    await engine.createWorkflow(limited);
    await engine.createInstance({ workflowId: 'limited', instanceId: 'a' });
    const result = await engine.applyTrigger('a', { id: 'echo-1', name: 'Echo', subjects: ['a'] });
    expect(result.trace?.[0]).toMatchObject({ type: 'concurrency', detail: 'admitted: all at 1/1' });
    for (let poll = 0; poll < 200 && (await engine.getInstance('a')).context.n !== 1; poll++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await engine.getInstance('a')).context.n).toBe(1);
    expect(await held()).toBe(0);
  });

  it('concurrency slots × timers: a timer is applied as a trigger under the policy, and gives its slot back', async () => {
    const { engine, clock, held } = setUp();
    await engine.createWorkflow(limited);
    await engine.createInstance({ workflowId: 'limited', instanceId: 't' });
    await clock.advanceBy(3_600_000);
    expect((await engine.getInstance('t')).stateId).toBe('escalated');
    expect(await held()).toBe(0);
  });

  it("concurrency slots × children: starting a child takes no slot; the child's notification to its parent is admitted like any trigger", async () => {
    const { engine, held } = setUp();
    await engine.createWorkflow(child);
    await engine.createWorkflow(limited);
    await engine.createInstance({ workflowId: 'limited', instanceId: 'p' });
    await engine.applyTrigger('p', { id: 'spawn-1', name: 'Spawn', subjects: ['p'] });
    const started = () =>
      engine.getInstance('child-1').then(
        () => true,
        () => false,
      );
    for (let poll = 0; poll < 200 && !(await started()); poll++) await new Promise((resolve) => setTimeout(resolve, 5));
    await engine.applyTrigger('child-1', { id: 'finish-1', name: 'Finish', subjects: ['child-1'] });
    for (let poll = 0; poll < 200 && (await engine.getInstance('p')).stateId !== 'open'; poll++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await engine.getInstance('p')).stateId).toBe('open');
    expect(await held()).toBe(0);
  });

  it('concurrency slots × events: a change that records lifecycle events gives its slot back when it is saved', async () => {
    const { engine, held } = setUp();
    await engine.createWorkflow(limited);
    await engine.createInstance({ workflowId: 'limited', instanceId: 'e' });
    await engine.applyTrigger('e', { id: 'bump-1', name: 'Bump', subjects: ['e'] });
    expect((await engine.listEvents('e')).items.map((event) => event.type)).toContain('transitioned');
    expect(await held()).toBe(0);
  });

  it('concurrency slots × migrations and bulk actions: neither takes a slot, so they go on while the key is full', async () => {
    const { engine } = setUp();
    await engine.createWorkflow(limited);
    for (const id of ['m', 'b']) await engine.createInstance({ workflowId: 'limited', instanceId: id });
    await engine.flow!.setLimit('limited', 'all', 1, undefined);
    // Fill the key's only slot from outside, as another worker's application in flight would.
    await engine.runtime.slots!.acquire({ workflowId: 'limited', key: 'all', limit: 1, instanceId: 'other', triggerId: 'x', maxWaitInMs: 0 });
    await engine.putWorkflow('limited', { ...limited, displayName: 'Limited v2' }, { ifMatch: '*' });
    expect(await engine.migrationsAndBulkActions.migrate('m', { workflowId: 'limited', fromVersion: 1, toVersion: 2, stateMap: {} })).toMatchObject({ outcome: 'migrated' });
    expect(await engine.migrationsAndBulkActions.applyBulk('b', { action: 'cancel', filter: { workflowId: 'limited' } }, { operationId: 'bulk-1' })).toMatchObject({ outcome: 'cancelled' });
  });

  it('concurrency slots × deletion: deleting an instance takes no slot and leaves none held', async () => {
    const { engine, held } = setUp();
    await engine.createWorkflow(limited);
    await engine.createInstance({ workflowId: 'limited', instanceId: 'd' });
    await engine.applyTrigger('d', { id: 'bump-1', name: 'Bump', subjects: ['d'] });
    await engine.deleteInstance('d', { force: true });
    expect(await held()).toBe(0);
  });

  it('concurrency slots × re-creation: a re-created id takes slots as a new instance, its first trigger admitted', async () => {
    const { engine, held } = setUp();
    await engine.createWorkflow(limited);
    await engine.createInstance({ workflowId: 'limited', instanceId: 'r' });
    await engine.deleteInstance('r', { force: true });
    await engine.createInstance({ workflowId: 'limited', instanceId: 'r' });
    const result = await engine.applyTrigger('r', { id: 'bump-r', name: 'Bump', subjects: ['r'] });
    expect(result.outcome).toBe('transitioned');
    expect(result.trace?.[0]).toMatchObject({ detail: 'admitted: all at 1/1' });
    expect(await held()).toBe(0);
  });

  it("concurrency slots × pending retries: the retry's later attempt is admitted like any trigger and gives its slot back", async () => {
    let failures = 1;
    const http: ExternalServiceClient = {
      async send(request: ExternalRequest): Promise<ExternalResponse> {
        if (failures-- > 0) throw new RetryLaterError({ type: 'http:5xx', message: 'HTTP 503', status: 503 }, (request.retry?.firstAttempt ?? 1) + 1, 60_000);
        return { status: 200, body: {} };
      },
    };
    const { engine, clock, held } = setUp(http);
    await engine.createWorkflow({
      ...limited,
      states: {
        open: {
          transitions: [
            {
              id: 'pay',
              targetStateId: 'paid',
              conditions: [{ type: 'triggerName', name: 'Pay' }],
              actions: [{ type: 'invokeExternalService', url: 'https://pay.example/charge', retry: { attempts: 3, initialDelay: 'PT1M' } }],
            },
          ],
        },
        paid: {},
      },
    } as WorkflowDefinitionInput);
    await engine.createInstance({ workflowId: 'limited', instanceId: 'p1' });
    expect(await engine.applyTrigger('p1', { id: 'pay-1', name: 'Pay', subjects: ['p1'] })).toMatchObject({ outcome: 'retryScheduled' });
    expect(await held()).toBe(0);
    await clock.advanceBy(60_000);
    for (let poll = 0; poll < 200 && (await engine.getInstance('p1')).stateId !== 'paid'; poll++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await engine.getInstance('p1')).stateId).toBe('paid');
    expect(await held()).toBe(0);
  });
  it('concurrency slots × debounced triggers: a held trigger gives its slot back at once; the burst, applied when quiet, is admitted like any trigger and gives its slot back', async () => {
    const { engine, clock, held } = setUp();
    await engine.createWorkflow({ ...limited, flow: { concurrency: { key: "'all'", limit: 1 }, debounce: [{ trigger: 'Bump', periodMs: 5000 }] } } as WorkflowDefinitionInput);
    await engine.createInstance({ workflowId: 'limited', instanceId: 'd' });
    for (const id of ['bump-1', 'bump-2', 'bump-3']) {
      const result = await engine.applyTrigger('d', { id, name: 'Bump', subjects: ['d'] });
      expect(result.outcome).toBe('debounced');
      expect(await held()).toBe(0);
    }
    expect((await engine.getInstance('d')).context.n).toBeUndefined();
    await clock.advanceBy(5000);
    for (let poll = 0; poll < 200 && (await engine.getInstance('d')).context.n !== 1; poll++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await engine.getInstance('d')).context.n).toBe(1);
    expect(await held()).toBe(0);
  });

  it('concurrency slots × crash resumption (parked): a trigger the local runner parked for a slot when it stopped is resumed by the next start and applied once', async () => {
    const clock = new ManualClock('2026-11-26T12:00:00.000Z');
    const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex(), checkHealth: async () => true };
    const core = createHostCore({ ports, logger: silentLogger, env: {}, engineOptions: { clock } });
    await core.engine.createWorkflow(limited);
    await core.engine.createInstance({ workflowId: 'limited', instanceId: 'a' });
    // Another worker holds the key's one slot.
    const elsewhere = await core.engine.runtime.slots!.acquire({ workflowId: 'limited', key: 'all', limit: 1, instanceId: 'x', triggerId: 'x-1', maxWaitInMs: 0 });
    const runnerOf = () => new LocalOperationRunner(silentLogger, (launcher) => core.activitiesFor(launcher), { now: () => clock.now(), parkedRetryIntervalInMs: 3_600_000 });
    const first = runnerOf();
    await core.servicesFor(first).triggers.submit({ id: 'bump-1', name: 'Bump', subjects: ['a'] }, undefined, { instanceId: 'a' });
    const deadline = Date.now() + 20_000;
    while (first.parked === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(first.parked).toBe(1);
    // The process stops with the trigger parked: nothing applied, the operation left to resume.
    await first.stop(50);
    expect((await core.engine.getInstance('a')).context.n).toBeUndefined();
    expect((await core.operations.get('bump-1'))!.status).not.toBe('succeeded');

    await core.engine.runtime.slots!.release(elsewhere);
    const next = runnerOf();
    expect(await next.resumeUnfinished(core.operations)).toBe(1);
    await next.whenDone('bump-1');
    await next.stop();
    expect(await core.operations.get('bump-1')).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
    expect((await core.engine.getInstance('a')).context.n).toBe(1);
    expect((await core.engine.getHistory('a')).items.filter((entry) => entry.triggerId === 'bump-1')).toHaveLength(1);
  });
  /**
   * A host over in-memory ports on the manual clock whose instance leases are counted: each application that
   * loads an instance takes its lease first, so the count says which triggers loaded it. Another worker
   * holds the key's one slot.
   */
  async function hintedHost() {
    const clock = new ManualClock('2026-11-26T12:00:00.000Z');
    const base = createInMemoryPorts();
    const leasesTaken: string[] = [];
    const leases = {
      ...base.leases,
      withLease: <T>(name: string, work: Parameters<typeof base.leases.withLease<T>>[1], options?: Parameters<typeof base.leases.withLease<T>>[2]) => (
        leasesTaken.push(name),
        base.leases.withLease(name, work, options)
      ),
    };
    const ports = { ...base, leases, dueTimers: new InMemoryDueTimerIndex(), checkHealth: async () => true };
    const core = createHostCore({ ports, logger: silentLogger, env: {}, engineOptions: { clock } });
    await core.engine.createWorkflow(limited);
    await core.engine.createInstance({ workflowId: 'limited', instanceId: 'a' });
    const elsewhere = await core.engine.runtime.slots!.acquire({ workflowId: 'limited', key: 'all', limit: 1, instanceId: 'x', triggerId: 'x-1', maxWaitInMs: 0 });
    const runnerOf = () =>
      new LocalOperationRunner(silentLogger, (launcher) => core.activitiesFor(launcher), {
        now: () => clock.now(),
        parkedRetryIntervalInMs: 3_600_000,
        slotReleases: (listener) => core.engine.runtime.slots!.onRelease(listener),
      });
    const until = async (check: () => boolean, what: string) => {
      const deadline = Date.now() + 20_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    const leasesOfA = () => leasesTaken.filter((name) => name.includes('a')).length;
    return { core, elsewhere, runnerOf, until, leasesOfA, release: () => core.engine.runtime.slots!.release(elsewhere) };
  }

  it('concurrency slots × crash resumption (parked by key hint): triggers parked without loading their instance when the process stopped are resumed and applied once each', async () => {
    const { core, runnerOf, until, leasesOfA, release } = await hintedHost();
    const first = runnerOf();
    const submit = (id: string) => core.servicesFor(first).triggers.submit({ id, name: 'Bump', subjects: ['a'] }, undefined, { instanceId: 'a' });
    await submit('bump-1');
    await until(() => first.parked === 1, 'bump-1 parked');
    const loadedBefore = leasesOfA();
    await submit('bump-2');
    await until(() => first.parked === 2, 'bump-2 parked');
    // bump-2 was parked by the hint bump-1 left: a's lease was not taken for it.
    expect(leasesOfA()).toBe(loadedBefore);
    await first.stop(50);
    expect((await core.engine.getInstance('a')).context.n).toBeUndefined();

    await release();
    const next = runnerOf();
    expect(await next.resumeUnfinished(core.operations)).toBe(2);
    await Promise.all([next.whenDone('bump-1'), next.whenDone('bump-2')]);
    await next.stop();
    expect((await core.engine.getInstance('a')).context.n).toBe(2);
    const applied = (await core.engine.getHistory('a')).items.map((entry) => entry.triggerId).filter((id) => id?.startsWith('bump-'));
    expect(applied.sort()).toEqual(['bump-1', 'bump-2']);
  });

  it('concurrency slots × priority (key hint): triggers parked by the hint keep their place by priority, then arrival, and are applied one at a time', async () => {
    const { core, runnerOf, until, leasesOfA, release } = await hintedHost();
    const runner = runnerOf();
    const submit = (id: string, priority: number) => core.servicesFor(runner).triggers.submit({ id, name: 'Bump', subjects: ['a'], priority }, undefined, { instanceId: 'a' });
    await submit('bump-1', 3);
    await until(() => runner.parked === 1, 'bump-1 parked');
    const loadedBefore = leasesOfA();
    await submit('low', 1);
    await submit('high', 5);
    await submit('also-high', 5);
    await until(() => runner.parked === 4, 'all four parked');
    expect(leasesOfA()).toBe(loadedBefore);

    await release();
    await Promise.all(['bump-1', 'low', 'high', 'also-high'].map((id) => runner.whenDone(id)));
    await runner.stop();
    const applied = (await core.engine.getHistory('a')).items.map((entry) => entry.triggerId).filter((id) => typeof id === 'string' && ['bump-1', 'low', 'high', 'also-high'].includes(id));
    expect(applied).toEqual(['high', 'also-high', 'bump-1', 'low']);
    expect((await core.engine.getInstance('a')).context.n).toBe(4);
    expect((await core.engine.flow!.view('limited', 'all')).running).toHaveLength(0);
  });
});
