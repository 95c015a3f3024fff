/**
 * The durable timer orchestration (issue 13) on the real durable-functions replay engine, with its real
 * `fireTimer` activity and the real trigger activities against Azurite: the timer sleeps on durable
 * timers (several for a wait over the six-day limit), fires its trigger as an operation, and a stale
 * timer wakes up to find nothing to do. Arming through the durable launcher is idempotent. A wait for room
 * in a full state ends at its deadline from its own durable timer, and one admitted first is not timed out.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { timerTriggerId } from '../../src/engine';
import { activityHandlers } from '../../functions/activities';
import { APPLY_OPERATION_BATCH, applyOperationBatch } from '../../functions/apply-operation-batch';
import { fireTimer } from '../../functions/timer-activities';
import { TIMER_ORCHESTRATOR, timerOrchestrator } from '../../functions/timer-orchestrator';
import { OPERATION_ORCHESTRATOR, operationOrchestrator } from '../../functions/operation-orchestrator';
import { durableLauncher } from '../../functions/app-services';
import type { DueTimer } from '../../src/engine/decide';
import { MAX_CAUSAL_DEPTH } from '../../src/engine/model';
import { MAX_CAUSAL_BUDGET } from '../../src/engine/decide';
import { createAzurePorts } from '../../src/host/azure-ports';
import type { ApiServices } from '../../src/host/http/types';
import { withResults } from '../../src/host/http/operations/operation-routes';
import { silentLogger } from '../../src/host/local/logger';
import { FIRE_TIMER_ACTIVITY, MAX_TIMER_INTERVAL_IN_MS, timerOrchestrationId } from '../../src/host/contracts/timer-activities';
import type { OperationActivities } from '../../src/host/contracts/operation-activities';
import type { InstanceResult } from '../../src/engine/operations';
import type { OperationLauncher } from '../../src/host/trigger-submitter';
import { createHostCore } from '../../src/host/host-services';
import { prefixedStorageNames } from '../../src/storage/names';
import { EventType, runOrchestration } from '../support/durable-replay';
import { testConnectionString, uniquePrefix } from '../support/storage';

const workflow = (after: string) => ({
  id: `claim-${after.toLowerCase()}`,
  displayName: 'Claim',
  initialStateId: 'waiting',
  states: {
    waiting: {
      transitions: [
        { id: 'approve', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Approve' }] },
        { id: 'escalate', targetStateId: 'escalated', timer: { after } },
      ],
    },
    approved: { transitions: [{ id: 'archive', targetStateId: 'escalated', conditions: [{ type: 'triggerName', name: 'Archive' }] }] },
    escalated: {},
  },
});

let services: ApiServices;
let activities: OperationActivities;
/** What the relay handed to the durable launcher: on Azure each starts a timer orchestration. */
const armed: DueTimer[] = [];
/** The operations the relay started (a re-offer of a waiting trigger among them): on Azure each runs an orchestration. */
const started: string[] = [];

beforeAll(async () => {
  const env = { SIGNALBOX_STORAGE: testConnectionString() };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(uniquePrefix('fntimer')) });
  const core = createHostCore({ ports, logger: silentLogger, env });
  const launcher: OperationLauncher = { start: async (operationId) => void started.push(operationId), armTimer: async (timer) => void armed.push(timer) };
  services = core.servicesFor(launcher);
  activities = core.activitiesFor(launcher);
  await services.engine.createWorkflow(workflow('P10D'));
  await services.engine.createWorkflow(workflow('PT1H'));
  await services.engine.createWorkflow({
    id: 'ticker',
    displayName: 'Ticker',
    initialStateId: 'tick',
    states: { tick: { transitions: [{ id: 'again', targetStateId: 'tick', timer: { after: 'PT0S' }, actions: [{ type: 'setContext', values: { ticked: true } }] }] } },
  });
});

/** The timer orchestration of `timer`, from the moment it was armed, then the operation it submitted. */
async function runTimer(timer: DueTimer, startAt: string) {
  const run = await runOrchestration(TIMER_ORCHESTRATOR, timer, timerOrchestrationId(timer.timerId), {
    orchestrators: { [TIMER_ORCHESTRATOR]: timerOrchestrator },
    activities: { [FIRE_TIMER_ACTIVITY]: (input: DueTimer) => fireTimer(input, services) },
    startAt,
  });
  expect(run.status).toBe('completed');
  const { operationId } = run.output as { operationId: string };
  return { run, operationId, ...(await runOperation(operationId)) };
}

/** The operation orchestration of `operationId` on the replay engine, and its results as the API answers them. */
async function runOperation(operationId: string) {
  const operation = await runOrchestration(OPERATION_ORCHESTRATOR, { operationId }, operationId, {
    orchestrators: { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch },
    activities: activityHandlers(activities),
  });
  expect(operation.status).toBe('completed');
  const recorded = (await services.operations.get(operationId))!;
  // As the API answers them: those the record kept (an operation of one instance), then the stored rows.
  const results: readonly InstanceResult[] = (await withResults(services.operations, recorded)).instances;
  return { operation: recorded, results };
}

describe('timerOrchestrator on the replay engine', () => {
  it('sleeps through a 10-day timer in durable timers of at most three days, then applies the timer trigger', async () => {
    const created = await services.engine.createInstance({ workflowId: 'claim-p10d', instanceId: 'long-wait' });
    const timer = armed.find((item) => item.instanceId === 'long-wait')!;
    expect(timer).toMatchObject({ timerId: timerTriggerId('long-wait', 0, 'escalate', created.incarnation), transitionId: 'escalate', stateEntry: 0, dueAt: created.timers![0]!.dueAt });

    const { run, operationId, operation } = await runTimer(timer, created.createdAt);
    const fireTimes = run.history.filter((event) => event.EventType === EventType.TimerCreated).map((event) => Date.parse(String(event.FireAt)));
    expect(fireTimes).toHaveLength(4); // 3 + 3 + 3 + 1 days
    expect(fireTimes[fireTimes.length - 1]).toBe(Date.parse(timer.dueAt));
    let previous = Date.parse(created.createdAt);
    for (const fireAt of fireTimes) {
      expect(fireAt - previous).toBeLessThanOrEqual(MAX_TIMER_INTERVAL_IN_MS);
      previous = fireAt;
    }
    expect(run.activityCalls.map((call) => call.name)).toEqual([FIRE_TIMER_ACTIVITY]);
    expect(operationId).toBe(timerTriggerId('long-wait', 0, 'escalate', created.incarnation));
    expect(operation).toMatchObject({ status: 'succeeded', summary: expect.objectContaining({ transitioned: 1 }) });
    expect(await services.engine.getInstance('long-wait')).toMatchObject({ stateId: 'escalated', timers: [] });
    const history = await services.engine.getHistory('long-wait');
    expect(history.items.map((entry) => [entry.triggerId, entry.transitionId])).toEqual([
      [null, null],
      [timerTriggerId('long-wait', 0, 'escalate', created.incarnation), 'escalate'],
    ]);
  });

  it('wakes a stale timer (the instance moved on) that finds nothing to do: nothing saved', async () => {
    const created = await services.engine.createInstance({ workflowId: 'claim-pt1h', instanceId: 'moved-on' });
    expect(await services.engine.applyTrigger('moved-on', { id: 'approve-1', name: 'Approve', subjects: ['moved-on'] })).toMatchObject({ outcome: 'transitioned' });
    const before = await services.engine.getInstance('moved-on');
    const timer = armed.find((item) => item.instanceId === 'moved-on')!;

    const { run, results } = await runTimer(timer, created.createdAt);
    expect(run.history.filter((event) => event.EventType === EventType.TimerCreated)).toHaveLength(1);
    expect(results).toEqual([{ instanceId: 'moved-on', outcome: 'notInterested' }]);
    expect((await services.engine.getInstance('moved-on')).etag).toBe(before.etag);
    expect((await services.engine.getHistory('moved-on')).items).toHaveLength(2);
  });

  it('fires at once when the due time has passed', async () => {
    const created = await services.engine.createInstance({ workflowId: 'claim-pt1h', instanceId: 'overdue' });
    const timer = armed.find((item) => item.instanceId === 'overdue')!;
    const { run, operation } = await runTimer(timer, new Date(Date.parse(created.createdAt) + 2 * 3600_000).toISOString());
    expect(run.history.filter((event) => event.EventType === EventType.TimerCreated)).toHaveLength(0);
    expect(operation.summary).toMatchObject({ transitioned: 1 });
  });
});

describe('a timer loop on the durable path (issue 22)', () => {
  it('a timer re-entering its state with PT0S carries its causal depth through the orchestration, the activity and the operation, and faults at the limit', async () => {
    const created = await services.engine.createInstance({ workflowId: 'ticker', instanceId: 'ticker-1' });
    const depths: number[] = [];
    const budgets: (number | undefined)[] = [];
    for (let turn = 0; turn < 3 * MAX_CAUSAL_DEPTH; turn += 1) {
      const timer = armed.find((item) => item.instanceId === 'ticker-1' && !depths.includes(item.causalDepth ?? 0));
      if (!timer) break;
      depths.push(timer.causalDepth ?? 0);
      budgets.push(timer.causalBudget);
      await runTimer(timer, created.createdAt);
    }
    // Depth 1 (armed by the client's creation) to MAX; the firing at MAX could not arm one deeper.
    expect(depths).toEqual(Array.from({ length: MAX_CAUSAL_DEPTH }, (_, index) => index + 1));
    // The causal budget travels with it: each turn spends 1 of the 10,000 its creation started with.
    expect(budgets).toEqual(Array.from({ length: MAX_CAUSAL_DEPTH }, (_, index) => MAX_CAUSAL_BUDGET - 1 - index));
    const instance = await services.engine.getInstance('ticker-1');
    expect(instance.status).toBe('faulted');
    expect(instance.fault!.message).toContain('the timer of transition "again" (due at once)');
  }, 120_000);
});

describe('a wait for room in a full state on the durable path (states.*.capacity)', () => {
  beforeAll(async () => {
    await services.engine.createWorkflow({
      id: 'orders',
      displayName: 'Orders',
      initialStateId: 'new',
      states: {
        new: { transitions: [{ id: 'pick', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Pick' }] }] },
        picking: {
          capacity: { key: 'customer:{{context.customerId}}', limit: 1, timeout: 'PT4H' },
          transitions: [{ id: 'ship', targetStateId: 'shipped', conditions: [{ type: 'triggerName', name: 'Ship' }] }],
        },
        shipped: {},
      },
    });
  });
  const order = (instanceId: string, customerId: string) => services.engine.createInstance({ workflowId: 'orders', instanceId, context: { customerId } });
  const send = (instanceId: string, id: string, name: string) => services.engine.applyTrigger(instanceId, { id, name, subjects: [instanceId] });
  const deadlineTimerOf = (instanceId: string) => armed.find((item) => item.instanceId === instanceId && item.capacityWait !== undefined);

  it("fires the queued trigger's deadline through a durable timer: the trigger answers capacityTimeout and leaves the queue", async () => {
    await order('held-1', 'c1');
    await order('held-2', 'c1');
    expect(await send('held-1', 'pick-held-1', 'Pick')).toMatchObject({ outcome: 'transitioned' });
    const queued = await send('held-2', 'pick-held-2', 'Pick');
    expect(queued).toMatchObject({ outcome: 'capacityQueued' });
    const waiting = await services.engine.getInstance('held-2');
    const timer = deadlineTimerOf('held-2')!;
    expect(timer).toMatchObject({ capacityWait: { triggerId: 'pick-held-2', stateId: 'picking', key: 'customer:c1' }, dueAt: waiting.capacityWaits![0]!.deadline });

    const { run, results } = await runTimer(timer, waiting.updatedAt);
    // The orchestration slept on a durable timer until the deadline (4 hours of virtual time), then fired.
    expect(run.history.filter((event) => event.EventType === EventType.TimerCreated).map((event) => new Date(String(event.FireAt)).toISOString())).toEqual([timer.dueAt]);
    expect(results).toEqual([expect.objectContaining({ instanceId: 'held-2', outcome: 'capacityTimeout', fromStateId: 'new' })]);
    const after = await services.engine.getInstance('held-2');
    expect(after).toMatchObject({ stateId: 'new' });
    expect(after.capacityWaits).toBeUndefined();
    // Recorded as the waiting trigger's offer, and no longer in the key's queue.
    expect(await services.engine.getOffers('held-2')).toEqual([expect.objectContaining({ operationId: 'pick-held-2', outcome: 'capacityTimeout' })]);
    expect((await services.engine.runtime.capacity!.read('orders', 'picking', 'customer:c1')).queued).toEqual([]);
  });

  it('a waiter admitted before its deadline (re-offered through the outbox, as its own operation) is not timed out: its timer wakes to find nothing', async () => {
    await order('room-1', 'c2');
    await order('room-2', 'c2');
    expect(await send('room-1', 'pick-room-1', 'Pick')).toMatchObject({ outcome: 'transitioned' });
    expect(await send('room-2', 'pick-room-2', 'Pick')).toMatchObject({ outcome: 'capacityQueued' });
    const waiting = await services.engine.getInstance('room-2');
    const timer = deadlineTimerOf('room-2')!;
    const before = started.length;
    expect(await send('room-1', 'ship-room-1', 'Ship')).toMatchObject({ outcome: 'transitioned' });
    // The leaving change's re-offer is relayed as an operation of its own; its orchestration applies the waiting trigger.
    const reoffers = started.slice(before).filter((operationId) => operationId !== 'ship-room-1');
    expect(reoffers).toHaveLength(1);
    const admitted = await runOperation(reoffers[0]!);
    expect(admitted.results).toEqual([expect.objectContaining({ instanceId: 'room-2', outcome: 'transitioned', toStateId: 'picking' })]);
    const moved = await services.engine.getInstance('room-2');
    expect(moved.capacityWaits).toBeUndefined();

    const { results } = await runTimer(timer, waiting.updatedAt);
    expect(results).toEqual([{ instanceId: 'room-2', outcome: 'notInterested' }]);
    expect(await services.engine.getInstance('room-2')).toMatchObject({ stateId: 'picking', etag: moved.etag });
    expect((await services.engine.getHistory('room-2')).items.map((entry) => [entry.triggerId, entry.transitionId])).toEqual([
      [null, null],
      ['pick-room-2', 'pick'],
    ]);
  });
});

describe('durableLauncher.armTimer', () => {
  const timer: DueTimer = { timerId: 'timer:c1:0:escalate', instanceId: 'c1', transitionId: 'escalate', stateEntry: 0, dueAt: '2026-11-22T16:00:00.000Z' };
  function client(status: { runtimeStatus: string } | undefined) {
    return {
      getStatus: jest.fn(async () => {
        if (!status) throw new Error('DurableClient error: Durable Functions extension replied with HTTP 404 response.');
        return status;
      }),
      startNew: jest.fn(async (_name: string, options?: { instanceId?: string }) => options?.instanceId ?? ''),
    };
  }

  it('starts one timer orchestration under an instance id derived from the timer id', async () => {
    const stub = client(undefined);
    await durableLauncher(stub as never).armTimer!(timer);
    expect(stub.startNew).toHaveBeenCalledWith(TIMER_ORCHESTRATOR, { instanceId: 'wake:timer:c1:0:escalate', input: timer });
  });

  it.each(['Pending', 'Running', 'Completed'])('arming again finds the %s orchestration and starts nothing', async (runtimeStatus) => {
    const stub = client({ runtimeStatus });
    await durableLauncher(stub as never).armTimer!(timer);
    expect(stub.startNew).not.toHaveBeenCalled();
  });
});

describe('a debounced burst on the durable path (flow.debounce)', () => {
  it('is applied once by the timer orchestration of its latest trigger; the timer the burst moved past wakes to find nothing', async () => {
    await services.engine.createWorkflow({
      id: 'profile',
      displayName: 'Profile',
      initialStateId: 'open',
      flow: { debounce: [{ trigger: 'Update', periodMs: 60_000 }] },
      states: {
        open: {
          transitions: [{ id: 'update', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Update' }], actions: [{ type: 'setContext', expressions: { last: 'trigger.parameters' } }] }],
        },
      },
    });
    await services.engine.createInstance({ workflowId: 'profile', instanceId: 'burst' });
    const update = (id: string, name: string) => services.engine.applyTrigger('burst', { id, name: 'Update', subjects: ['burst'], parameters: { name } });
    expect(await update('burst-1', 'a')).toMatchObject({ outcome: 'debounced' });
    expect(await update('burst-2', 'b')).toMatchObject({ outcome: 'debounced' });
    const [moved, latest] = armed.filter((item) => item.instanceId === 'burst');
    expect(latest).toMatchObject({ debounce: { triggerName: 'Update', triggerId: 'burst-2' } });

    const applied = await runTimer(latest!, new Date().toISOString());
    expect(applied.operation).toMatchObject({ status: 'succeeded', summary: expect.objectContaining({ transitioned: 1 }) });
    expect((await services.engine.getInstance('burst')).context).toEqual({ last: { name: 'b' } });
    const stale = await runTimer(moved!, new Date().toISOString());
    expect(stale.results).toEqual([{ instanceId: 'burst', outcome: 'notInterested' }]);
    expect((await services.engine.getHistory('burst')).items.map((entry) => entry.transitionId)).toEqual([null, 'update']);
  });
});
