/**
 * Pending retries (a step's retry policy waiting longer than fits in place: docs/guides/errors.md, "Errors that are
 * handled") crossed with every seam: the retry is follow-up work of its own kind, carried by a `timer`
 * outbox row and a due-timer row, re-applying the trigger that failed under a derived id
 * (`retry:<instance>:<incarnation>:<attempt>.<due>:<trigger>`).
 *
 * In memory, with a service that asks for a later attempt (a RetryLaterError, what the outbound client's
 * step retry policy throws when the wait does not fit in place) the first `failures` times; the policy
 * itself is tested against a real loopback server in test/engine/error-handling.test.ts.
 */
import {
  Engine,
  MAX_CAUSAL_DEPTH,
  RetryLaterError,
  TriggerOutcome,
  retryTimerOf,
  retryTriggerId,
  type ExternalRequest,
  type ExternalResponse,
  type ExternalServiceClient,
  type Trigger,
  type WorkflowDefinitionInput,
} from '../../src/engine';
import type { Actor } from '../../src/engine/model';
import { InMemoryDueTimerIndex, ManualClock, createInMemoryPorts } from '../../src/testing';
import { recordingLogger } from '../engine/support';

const MINUTE = 60_000;

/** Asks for another attempt a minute later, `failures` times, then answers 200. */
class LaterService implements ExternalServiceClient {
  calls = 0;
  constructor(private failures: number) {}
  async send(request: ExternalRequest): Promise<ExternalResponse> {
    this.calls++;
    if (this.failures > 0) {
      this.failures--;
      const attempt = request.retry?.firstAttempt ?? 1;
      throw new RetryLaterError({ type: 'http:5xx', message: `the external service ${request.url} answered HTTP 503`, status: 503 }, attempt + 1, MINUTE);
    }
    return { status: 200, body: {} };
  }
}

/** `Pay` calls the service (retried later on failure) and raises `Paid` on the instance; `Bump` stays. */
function payments(version = 1): WorkflowDefinitionInput {
  return {
    id: 'payments',
    displayName: `Payments v${version}`,
    initialStateId: 'due',
    subscriptions: [{ id: 'hook', url: 'https://hook.example/' }],
    states: {
      due: {
        transitions: [
          {
            id: 'pay',
            targetStateId: 'paid',
            conditions: [{ type: 'triggerName', name: 'Pay' }],
            actions: [
              { type: 'invokeExternalService', url: 'https://pay.example/charge', retry: { attempts: 3, initialDelay: 'PT1M' } },
              { type: 'raiseTrigger', trigger: { name: 'Paid', subjects: ['{{instance.id}}'] } },
            ],
          },
          { id: 'bump', targetStateId: 'due', conditions: [{ type: 'triggerName', name: 'Bump' }] },
        ],
      },
      paid: { transitions: [{ id: 'settle', targetStateId: 'settled', conditions: [{ type: 'triggerName', name: 'Paid' }] }] },
      settled: {},
    },
  };
}

function setup(failures = 1) {
  const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex() };
  const clock = new ManualClock('2026-11-26T10:00:00.000Z');
  const service = new LaterService(failures);
  let n = 0;
  const start = () => new Engine(ports, { clock, logger: recordingLogger(), newId: () => `gen-${++n}`, http: service, events: { http: { send: async () => ({ status: 204, body: undefined }) } } });
  const engine = start();
  const pay = (target: Engine = engine, extra: Partial<Trigger> = {}) => target.applyTrigger('p1', { id: 'pay-1', name: 'Pay', subjects: ['p1'], ...extra });
  return { ports, clock, service, engine, start, pay };
}

async function dueRows(ports: { dueTimers: InMemoryDueTimerIndex }) {
  const rows = [];
  for await (const row of ports.dueTimers.listDue(new Date('2100-01-01T00:00:00Z'))) rows.push(row);
  return rows;
}

describe('pending retries across the seams', () => {
  it('actor × pending retries: the later attempt is applied for the sender who sent the trigger, and what it raises acts as system for them', async () => {
    const { engine, clock } = setup();
    const alice: Actor = { id: 'alice', name: 'Alice', roles: ['Signalbox.Sender'], via: 'token' };
    await engine.createWorkflow(payments());
    await engine.createInstance({ workflowId: 'payments', instanceId: 'p1' }, { actor: alice });
    expect(await engine.applyTrigger('p1', { id: 'pay-1', name: 'Pay', subjects: ['p1'], actor: alice })).toMatchObject({ outcome: TriggerOutcome.retryScheduled });
    await clock.advanceBy(MINUTE);
    const entries = (await engine.getHistory('p1')).items.map((entry) => [entry.transitionId ?? entry.event, entry.actor]);
    expect(entries).toEqual([
      ['created', alice],
      ['pay', alice],
      ['settle', { id: 'system', name: 'Signalbox', roles: [], via: 'system', cause: alice }],
    ]);
  });
  it('applied once × pending retries: not recorded while pending, a redelivery meanwhile is not applied, the retry applies it once', async () => {
    const { engine, clock, service, pay } = setup();
    await engine.createWorkflow(payments());
    await engine.createInstance({ workflowId: 'payments', instanceId: 'p1' });
    expect(await pay()).toMatchObject({ outcome: TriggerOutcome.retryScheduled });
    const pending = await engine.getInstance('p1');
    expect(pending.appliedTriggers).toEqual([]);
    expect(await pay()).toMatchObject({ outcome: TriggerOutcome.retryScheduled });
    expect(service.calls).toBe(1);
    await clock.advanceBy(MINUTE);
    expect(await engine.getInstance('p1')).toMatchObject({ stateId: 'settled' });
    expect(service.calls).toBe(2);
    // The retry's timer again (a second wake-up), and the trigger again: nothing more is applied.
    expect(await engine.fireTimer(retryTimerOf(pending)!)).toMatchObject({ outcome: TriggerOutcome.notInterested });
    expect(await pay()).toMatchObject({ outcome: TriggerOutcome.duplicate, applied: { outcome: 'transitioned', transitionId: 'pay' } });
    expect(service.calls).toBe(2);
  });

  it('applied once × pending retries (suspended, then resumed): the retry waits, and applies once after the resume', async () => {
    const { engine, clock, service, pay } = setup();
    await engine.createWorkflow(payments());
    await engine.createInstance({ workflowId: 'payments', instanceId: 'p1' });
    await pay();
    const before = await engine.getInstance('p1');
    await engine.suspend('p1');
    await clock.advanceBy(5 * MINUTE); // fired while suspended: notActive, still pending
    expect((await engine.getInstance('p1')).pendingRetry).toEqual(before.pendingRetry);
    await engine.resume('p1');
    await clock.advanceBy(1);
    expect(await engine.getInstance('p1')).toMatchObject({ stateId: 'settled' });
    expect(service.calls).toBe(2);
    expect(await engine.fireTimer(retryTimerOf(before)!)).toMatchObject({ outcome: TriggerOutcome.notInterested });
  });

  it('incarnations × pending retries, deletion and re-creation: the retry id carries the incarnation, and the old one never reaches the new instance', async () => {
    const { engine, service, pay } = setup(2);
    await engine.createWorkflow(payments());
    await engine.createInstance({ workflowId: 'payments', instanceId: 'p1' });
    await pay();
    const old = await engine.getInstance('p1');
    const oldRetry = retryTimerOf(old)!;
    expect(oldRetry.timerId).toBe(retryTriggerId('p1', 'pay-1', 2, old.pendingRetry!.nextAttemptAt, old.incarnation));
    expect(oldRetry.timerId).toContain(`:i.${old.incarnation}:`);
    await engine.deleteInstance('p1', { force: true });
    await engine.createInstance({ workflowId: 'payments', instanceId: 'p1' });
    expect(await engine.fireTimer(oldRetry)).toMatchObject({ outcome: TriggerOutcome.notInterested });
    expect(service.calls).toBe(1);
    // The new incarnation's own retry of the same trigger id has another id.
    await pay();
    const fresh = await engine.getInstance('p1');
    expect(retryTimerOf(fresh)!.timerId).not.toBe(oldRetry.timerId);
  });

  it('incarnations × pending retries and migrations: a migrated instance keeps its pending retry, which applies the trigger on the new version', async () => {
    const { engine, clock, pay } = setup();
    const v1 = await engine.createWorkflow(payments(1));
    await engine.createInstance({ workflowId: 'payments', instanceId: 'p1' });
    await pay();
    await engine.addWorkflowVersion(payments(2), { ifMatch: v1.etag });
    expect((await engine.migrationsAndBulkActions.migrate('p1', { workflowId: 'payments', fromVersion: 1, toVersion: 2, stateMap: {} })).outcome).toBe('migrated');
    expect((await engine.getInstance('p1')).pendingRetry).toMatchObject({ triggerId: 'pay-1', attempt: 2 });
    await clock.advanceBy(MINUTE);
    expect(await engine.getInstance('p1')).toMatchObject({ workflowVersion: 2, stateId: 'settled' });
  });

  it('causal depth × pending retries: the re-applied trigger keeps its own depth and budget (a retry is not a step deeper), so a chain at the limit still ends', async () => {
    const { engine, clock, pay } = setup(2);
    await engine.createWorkflow(payments());
    await engine.createInstance({ workflowId: 'payments', instanceId: 'p1' });
    // One below the limit: what its change raises (`Paid`) is at the limit, still allowed; two retries counted as depth would pass it.
    await pay(engine, { causalDepth: MAX_CAUSAL_DEPTH - 1, causalBudget: 100 });
    expect((await engine.getInstance('p1')).retryTrigger).toMatchObject({ causalDepth: MAX_CAUSAL_DEPTH - 1, causalBudget: 100 });
    await clock.advanceBy(MINUTE);
    await clock.advanceBy(2 * MINUTE);
    expect(await engine.getInstance('p1')).toMatchObject({ stateId: 'settled', status: 'complete' });
    expect((await engine.getHistory('p1')).items.map((entry) => entry.transitionId)).toEqual([null, 'pay', 'settle']);
  });

  it('event order × pending retries: scheduling a retry emits nothing; the change its re-application makes emits its events after the earlier ones', async () => {
    const { engine, clock, pay } = setup();
    await engine.createWorkflow(payments());
    await engine.createInstance({ workflowId: 'payments', instanceId: 'p1' });
    await pay();
    await engine.applyTrigger('p1', { id: 'bump-1', name: 'Bump', subjects: ['p1'] });
    const types = async () => (await engine.listEvents('p1', { maxPageSize: 100 })).items.map((event) => `${event.sequence}:${event.type}`);
    expect(await types()).toEqual(['0:created', '1:transitioned']);
    await clock.advanceBy(MINUTE);
    expect(await types()).toEqual(['0:created', '1:transitioned', '2:transitioned', '3:transitioned', '3:completed']);
  });

  it('due-timer rows × pending retries: the retry has its row from the save on, replaced at each new attempt and gone once applied', async () => {
    const { engine, clock, ports, pay } = setup(2);
    await engine.createWorkflow(payments());
    await engine.createInstance({ workflowId: 'payments', instanceId: 'p1' });
    await pay();
    expect((await dueRows(ports)).map((row) => row.retry)).toEqual([{ triggerId: 'pay-1', attempt: 2 }]);
    await clock.advanceBy(MINUTE);
    expect((await dueRows(ports)).map((row) => row.retry)).toEqual([{ triggerId: 'pay-1', attempt: 3 }]);
    await clock.advanceBy(2 * MINUTE);
    expect(await dueRows(ports)).toEqual([]);
  });

  it('crash resumption × pending retries: a retry scheduled just before the crash fires once after the restart', async () => {
    const { engine, clock, ports, service, start } = setup();
    await engine.createWorkflow(payments());
    await engine.createInstance({ workflowId: 'payments', instanceId: 'p1' });
    const stopped = async (): Promise<void> => {
      throw new Error('the process stopped');
    };
    const crashing = engine.withDelivery({ trigger: stopped, timer: stopped, startInstance: stopped, cancelChildren: stopped });
    expect(await crashing.applyTrigger('p1', { id: 'pay-1', name: 'Pay', subjects: ['p1'] })).toMatchObject({ outcome: TriggerOutcome.retryScheduled });
    expect(await dueRows(ports)).toHaveLength(1); // written before the save
    expect(clock.pendingTimers).toBe(0); // the in-process arm was lost

    const restarted = start();
    await restarted.relayLeftovers();
    await restarted.relayLeftovers();
    await clock.advanceBy(MINUTE);
    expect(await restarted.getInstance('p1')).toMatchObject({ stateId: 'settled' });
    expect(service.calls).toBe(2);
    expect(await dueRows(ports)).toEqual([]);
  });
});
