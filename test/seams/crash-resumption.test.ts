/**
 * The seam "crash resumption": a process that stops after a change is saved and before its follow-up work
 * is handed on (the outbox relay, event deliveries, an operation's next checkpoint, a deletion's purge)
 * loses nothing and doubles nothing once a process starts again, crossed with each kind of follow-up work.
 *
 * In memory: a "crash" is an engine whose outbox handlers throw (the process died between the save and
 * the relay) or a store call that fails once (a deletion stopped after its mark); the "restart" is a new
 * Engine on the same ports, whose start-up sweep (`relayLeftovers`, `resumeEventDeliveries`) and next
 * loads pick up what was left. The hosts' own restarts are tested with real processes in
 * test/host/crash-recovery.test.ts, test/host/event-crash.test.ts and test/host/resumed-operations.test.ts.
 */
import { Engine, ExternalServiceError, type ExternalRequest, type ExternalResponse, type ExternalServiceClient, type WorkflowDefinitionInput } from '../../src/engine';
import { InMemoryDueTimerIndex, InMemoryLeaseProvider, ManualClock, createInMemoryPorts } from '../../src/testing';
import type { InstanceStore } from '../../src/engine/ports';
import { markingDecisions } from '../../src/host/local/deciding-scope';
import { recordingLogger, trigger } from '../engine/support';
import { createHostCore } from '../../src/host/host-services';
import { LocalOperationRunner } from '../../src/host/local/local-operation-runner';
import { silentLogger } from '../../src/host/local/logger';

/** The process stops here: whatever the handler was to hand on is not handed on. */
const stopped = async (): Promise<void> => {
  throw new Error('the process stopped');
};
const crashingHandlers = { trigger: stopped, timer: stopped, startInstance: stopped, cancelChildren: stopped };

/** A subscriber in memory: records event ids; `failing` answers 503. */
class Subscriber implements ExternalServiceClient {
  readonly taken: string[] = [];
  failing = false;
  async send(request: ExternalRequest): Promise<ExternalResponse> {
    if (this.failing) throw new ExternalServiceError('the subscriber answered 503', 503);
    this.taken.push((JSON.parse(request.body!) as { id: string }).id);
    return { status: 204, body: undefined };
  }
}

/** Ports shared by the process that crashes and the one started after it (in-process delivery, timers on one manual clock). */
function processes(options: { subscriber?: Subscriber } = {}) {
  const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex() };
  const clock = new ManualClock('2026-01-01T00:00:00.000Z');
  let n = 0;
  const start = () =>
    new Engine(ports, {
      clock,
      logger: recordingLogger(),
      newId: () => `gen-${++n}`,
      ...(options.subscriber ? { events: { http: options.subscriber, policy: { maxAttempts: 5, firstRetryDelayInMs: 60_000, maxRetryDelayInMs: 60_000 } } } : {}),
    });
  const first = start();
  return { ports, clock, first, crashing: first.withDelivery(crashingHandlers), start };
}

/** `Bump` counts in `context.b` and raises `Echo` on itself, which counts in `context.echoes`; a minute in `on` times out to `late`. */
const counter: WorkflowDefinitionInput = {
  id: 'counter',
  displayName: 'Counter',
  initialStateId: 'on',
  subscriptions: [{ id: 'hook', url: 'https://hook.example/' }],
  states: {
    on: {
      transitions: [
        {
          id: 'bump',
          targetStateId: 'on',
          conditions: [{ type: 'triggerName', name: 'Bump' }],
          actions: [
            { type: 'setContext', expressions: { b: '$exists(context.b) ? context.b + 1 : 1' } },
            { type: 'raiseTrigger', trigger: { name: 'Echo', subjects: ['{{instance.id}}'] } },
          ],
        },
        {
          id: 'echo',
          targetStateId: 'on',
          conditions: [{ type: 'triggerName', name: 'Echo' }],
          actions: [{ type: 'setContext', expressions: { echoes: '$exists(context.echoes) ? context.echoes + 1 : 1' } }],
        },
        { id: 'late', targetStateId: 'late', timer: { after: 'PT1M' } },
      ],
    },
    late: {},
  },
} as WorkflowDefinitionInput;

const parcel: WorkflowDefinitionInput = {
  id: 'parcel',
  displayName: 'Parcel',
  initialStateId: 'packing',
  states: { packing: { transitions: [{ id: 'ship', targetStateId: 'shipped', conditions: [{ type: 'triggerName', name: 'Ship' }] }] }, shipped: {} },
};
const order: WorkflowDefinitionInput = {
  id: 'order',
  displayName: 'Order',
  initialStateId: 'new',
  states: {
    new: {
      transitions: [
        {
          id: 'split',
          targetStateId: 'waiting',
          conditions: [{ type: 'triggerName', name: 'Split' }],
          actions: [{ type: 'startInstance', workflowId: 'parcel', instanceId: '{{instance.id}}-parcel' }],
        },
      ],
    },
    waiting: { transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'ChildCompleted' }] }] },
    done: {},
  },
};

async function dueTimerRows(ports: { dueTimers: InMemoryDueTimerIndex }) {
  const rows = [];
  for await (const row of ports.dueTimers.listDue(new Date('2100-01-01T00:00:00Z'))) rows.push(row);
  return rows;
}

describe('crash resumption × follow-up work', () => {
  it('crash resumption × raised triggers: a trigger raised by a change saved just before the crash is applied once after the restart', async () => {
    const { ports, first, crashing, start } = processes();
    await first.createWorkflow(counter);
    await first.createInstance({ workflowId: 'counter', instanceId: 'c1' });
    await crashing.applyTrigger('c1', trigger('Bump', { id: 'bump-1', subjects: ['c1'] }));
    // Left in the outbox: the raised Echo, and the timer of the state's new entry.
    expect((await crashing.getInstance('c1')).outbox).toEqual([expect.stringMatching(/^raised:/), expect.stringMatching(/^timer:/)]);

    const restarted = start();
    expect(await restarted.relayLeftovers()).toBe(2);
    // A second sweep, or a load, finds nothing left to hand on; the raised trigger took effect once.
    expect(await restarted.relayLeftovers()).toBe(0);
    await restarted.applyTrigger('c1', trigger('Bump', { id: 'bump-1', subjects: ['c1'] }));
    expect((await restarted.getInstance('c1')).context).toEqual({ b: 1, echoes: 1 });
    expect(await ports.outbox.listOutbox('c1')).toEqual([]);
  });

  it('crash resumption × automatic transitions: a chain saved just before the crash is one save: its steps are recorded once, what its last step raised is applied once after the restart', async () => {
    const { ports, first, crashing, start } = processes();
    const chained: WorkflowDefinitionInput = {
      ...counter,
      id: 'chained',
      states: {
        ...counter.states,
        start: { transitions: [{ id: 'go', targetStateId: 'route', conditions: [{ type: 'triggerName', name: 'Go' }] }] },
        route: {
          transitions: [
            { id: 'big', targetStateId: 'late', automatic: true, conditions: [{ type: 'expression', expression: 'context.big = true' }] },
            { id: 'to-on', targetStateId: 'on', automatic: true, otherwise: true, actions: [{ type: 'raiseTrigger', trigger: { name: 'Echo', subjects: ['{{instance.id}}'] } }] },
          ],
        },
      },
      initialStateId: 'start',
    };
    await first.createWorkflow(chained);
    await first.createInstance({ workflowId: 'chained', instanceId: 'a1' });
    await crashing.applyTrigger('a1', trigger('Go', { id: 'go-1', subjects: ['a1'] }));
    const saved = await crashing.getInstance('a1');
    expect(saved).toMatchObject({ stateId: 'on', historyLength: 3 });
    // Left in the outbox: the raised Echo and the timer of the state the chain ended in.
    expect(saved.outbox).toEqual([expect.stringMatching(/^raised:/), expect.stringMatching(/^timer:/)]);

    const restarted = start();
    expect(await restarted.relayLeftovers()).toBe(2);
    expect(await restarted.relayLeftovers()).toBe(0);
    // The trigger delivered again answers from the record: the chain is not taken twice.
    expect(await restarted.applyTrigger('a1', trigger('Go', { id: 'go-1', subjects: ['a1'] }))).toMatchObject({ outcome: 'duplicate' });
    const after = await restarted.getInstance('a1');
    expect(after.context).toEqual({ echoes: 1 });
    expect((await restarted.getHistory('a1')).items.map((entry) => entry.transitionId)).toEqual([null, 'go', 'to-on', 'echo']);
    expect(await ports.outbox.listOutbox('a1')).toEqual([]);
  });

  it('crash resumption × timers: a timer armed just before the crash fires once after the restart', async () => {
    const { ports, clock, crashing, start } = processes();
    await crashing.createWorkflow(counter);
    await crashing.createInstance({ workflowId: 'counter', instanceId: 'c1' });
    // The due-timer row was written before the save (the local scheduler would find it); the in-process arm was lost.
    expect(await dueTimerRows(ports)).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);

    const restarted = start();
    await restarted.relayLeftovers();
    await restarted.relayLeftovers();
    await clock.advanceBy(60_000);
    const instance = await restarted.getInstance('c1');
    expect(instance.stateId).toBe('late');
    expect(instance.historyLength).toBe(2);
    expect(await dueTimerRows(ports)).toEqual([]);
  });

  it('crash resumption × children: a child started by a change saved just before the crash is created once, and its parent hears it', async () => {
    const { ports, crashing, start } = processes();
    await crashing.createWorkflow(parcel);
    await crashing.createWorkflow(order);
    await crashing.createInstance({ workflowId: 'order', instanceId: 'o1' });
    await crashing.applyTrigger('o1', trigger('Split', { id: 'split-1', subjects: ['o1'] }));
    expect(await ports.instances.get('o1-parcel')).toBeUndefined();

    const restarted = start();
    expect(await restarted.relayLeftovers()).toBe(1);
    expect(await restarted.relayLeftovers()).toBe(0);
    const child = await restarted.getInstance('o1-parcel');
    expect(child.parent).toMatchObject({ instanceId: 'o1' });
    await restarted.applyTrigger('o1-parcel', trigger('Ship', { id: 'ship-1', subjects: ['o1-parcel'] }));
    expect((await restarted.getInstance('o1')).stateId).toBe('done');
    expect((await restarted.listInstances({ parentId: 'o1' })).items.map((item) => item.id)).toEqual(['o1-parcel']);
  });

  it('crash resumption × events: deliveries pending when the process stopped are each delivered once after the restart', async () => {
    const subscriber = new Subscriber();
    const { first, start } = processes({ subscriber });
    await first.createWorkflow(counter);
    subscriber.failing = true;
    await first.createInstance({ workflowId: 'counter', instanceId: 'c1' });
    await first.applyTrigger('c1', trigger('Bump', { id: 'bump-1', subjects: ['c1'] }));
    first.stopEventDeliveries();
    subscriber.failing = false;

    const restarted = start();
    await restarted.resumeEventDeliveries();
    await restarted.resumeEventDeliveries();
    const recorded = (await restarted.listEvents('c1', { maxPageSize: 100 })).items.map((event) => event.id);
    expect(recorded).toHaveLength(3); // created, Bump, the raised Echo
    for (let poll = 0; poll < 2_000 && subscriber.taken.length < recorded.length; poll++) {
      await restarted.eventDeliveriesIdle();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await restarted.eventDeliveriesIdle();
    expect(subscriber.taken).toEqual(recorded);
    restarted.stopEventDeliveries();
  });

  it('crash resumption × migrations: an instance migrated before the crash, offered again by the resumed run, is reported migrated (as it was), not skipped, and not migrated twice', async () => {
    const { first, start } = processes();
    const version1 = await first.createWorkflow(counter);
    await first.createInstance({ workflowId: 'counter', instanceId: 'c1' });
    await first.createInstance({ workflowId: 'counter', instanceId: 'c2' });
    await first.addWorkflowVersion({ ...counter, displayName: 'Counter 2' }, { ifMatch: version1.etag });
    const migration = { workflowId: 'counter', fromVersion: 1, toVersion: 2, stateMap: {} };
    expect(await first.migrationsAndBulkActions.migrate('c1', migration, { operationId: 'migration-1' })).toEqual({ instanceId: 'c1', outcome: 'migrated', fromStateId: 'on', toStateId: 'on' });
    // The crash came before the checkpoint that counts it; the instance changes meanwhile; the restarted
    // process's resumed run offers it again: this operation's record on the instance says what it did.
    const restarted = start();
    await restarted.applyTrigger('c1', trigger('Bump', { subjects: ['c1'] }));
    const historyBefore = (await restarted.getInstance('c1')).historyLength;
    expect(await restarted.migrationsAndBulkActions.migrate('c1', migration, { operationId: 'migration-1' })).toEqual({ instanceId: 'c1', outcome: 'migrated', fromStateId: 'on', toStateId: 'on' });
    expect((await restarted.getInstance('c1')).historyLength).toBe(historyBefore);
    // Another operation (or a call outside one) finding it on version 2 skips it: it did nothing to it.
    expect(await restarted.migrationsAndBulkActions.migrate('c1', migration, { operationId: 'migration-2' })).toMatchObject({ outcome: 'skipped', error: 'already on version 2' });
    expect(await restarted.migrationsAndBulkActions.migrate('c1', migration)).toMatchObject({ outcome: 'skipped' });
    // An instance this operation had not reached before the crash is migrated by the resumed run.
    expect((await restarted.migrationsAndBulkActions.migrate('c2', migration, { operationId: 'migration-1' })).outcome).toBe('migrated');
    const migrations = (await restarted.getHistory('c1')).items.filter((entry) => entry.event === 'migrated');
    expect(migrations.map((entry) => entry.operationId)).toEqual(['migration-1']);
  });

  it('crash resumption × bulk actions: an instance suspended before the crash, offered again by the resumed run, is reported suspended (as it was), not skipped, and not suspended twice', async () => {
    const { first } = processes();
    await first.createWorkflow(counter);
    await first.createInstance({ workflowId: 'counter', instanceId: 'c1' });
    await first.createInstance({ workflowId: 'counter', instanceId: 'c2' });
    const bulk = { action: 'suspend', filter: { workflowId: 'counter' } } as const;
    const suspended = { instanceId: 'c1', outcome: 'suspended', fromStateId: 'on', toStateId: 'on' };
    expect(await first.migrationsAndBulkActions.applyBulk('c1', bulk, { operationId: 'bulk-1' })).toEqual(suspended);
    // The crash came before the checkpoint that counts it: the resumed run offers it again. Its filter
    // (no status) still matches, and a suspended instance refuses suspend: it was this operation's doing.
    expect(await first.migrationsAndBulkActions.applyBulk('c1', bulk, { operationId: 'bulk-1' })).toEqual(suspended);
    // Another operation finding it suspended is a conflict, as before.
    expect((await first.migrationsAndBulkActions.applyBulk('c1', bulk, { operationId: 'bulk-2' })).outcome).toBe('conflict');
    expect((await first.getInstance('c1')).historyLength).toBe(2);
    // With a status filter the instance it suspended no longer matches: reported suspended too, and
    // skipped for another operation.
    const waiting = { action: 'suspend', filter: { workflowId: 'counter', status: 'waiting' } } as const;
    expect((await first.migrationsAndBulkActions.applyBulk('c2', waiting, { operationId: 'bulk-3' })).outcome).toBe('suspended');
    expect(await first.migrationsAndBulkActions.applyBulk('c2', waiting, { operationId: 'bulk-3' })).toEqual({ ...suspended, instanceId: 'c2' });
    expect(await first.migrationsAndBulkActions.applyBulk('c2', waiting, { operationId: 'bulk-4' })).toMatchObject({ outcome: 'skipped', error: 'no longer matches the filter' });
    expect((await first.getInstance('c2')).historyLength).toBe(2);
  });

  it('crash resumption × deletion: a deletion stopped after its mark hides the instance, and run again finishes, children and due-timer rows included', async () => {
    const { ports, first, start } = processes();
    await first.createWorkflow(counter);
    await first.createWorkflow(parcel);
    await first.createWorkflow(order);
    await first.createInstance({ workflowId: 'counter', instanceId: 'c1' });
    const purge = ports.instances.purge.bind(ports.instances);
    ports.instances.purge = async () => {
      ports.instances.purge = purge;
      throw new Error('the process stopped');
    };
    await expect(first.deleteInstance('c1', { force: true })).rejects.toThrow('the process stopped');
    await expect(first.getInstance('c1')).rejects.toThrow('does not exist');
    expect((await first.listInstances({ workflowId: 'counter' })).items).toEqual([]);

    const restarted = start();
    await restarted.deleteInstance('c1', { force: true });
    expect(ports.instances.holdsAnythingOf('c1')).toBe(false);
    expect(await dueTimerRows(ports)).toEqual([]);
  });

  it('crash resumption × re-creation: an id whose deletion stopped after its mark can be created again, as a new instance', async () => {
    const { ports, first, start } = processes();
    await first.createWorkflow(counter);
    await first.createInstance({ workflowId: 'counter', instanceId: 'c1' });
    await first.applyTrigger('c1', trigger('Bump', { id: 'bump-1', subjects: ['c1'] }));
    const old = await first.getInstance('c1');
    const purge = ports.instances.purge.bind(ports.instances);
    ports.instances.purge = async () => {
      ports.instances.purge = purge;
      throw new Error('the process stopped');
    };
    await expect(first.deleteInstance('c1', { force: true })).rejects.toThrow('the process stopped');

    // The id reads as free (404), so creating it must not answer "exists".
    const restarted = start();
    const created = await restarted.createInstance({ workflowId: 'counter', instanceId: 'c1' });
    expect(created.incarnation).not.toBe(old.incarnation);
    expect(created.historyLength).toBe(1);
    expect((await restarted.getHistory('c1')).items).toHaveLength(1);
    expect((await restarted.applyTrigger('c1', trigger('Bump', { id: 'bump-1', subjects: ['c1'] }))).outcome).toBe('transitioned');
    expect((await restarted.getInstance('c1')).context.b).toBe(1);
  });
});

/**
 * A trigger the client waits for, with one candidate, runs before it is recorded on the local server
 * (decision 0018). Rows beyond the matrix: it is a way of recording an operation, not follow-up work.
 */
describe('crash resumption × waited-for triggers (recorded when they finish)', () => {
  const counting: WorkflowDefinitionInput = {
    id: 'counting',
    displayName: 'Counting',
    initialStateId: 'open',
    states: {
      open: {
        transitions: [
          { id: 'bump', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Bump' }], actions: [{ type: 'setContext', expressions: { n: '$exists(context.n) ? context.n + 1 : 1' } }] },
        ],
      },
    },
  } as WorkflowDefinitionInput;

  it('crash resumption × waited-for triggers: a process that stops while one runs records it before answering, and the next start applies it once', async () => {
    const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex(), checkHealth: async () => true };
    const core = createHostCore({ ports, logger: silentLogger, env: {}, engineOptions: { clock: new ManualClock('2026-11-26T12:00:00.000Z') } });
    await core.engine.createWorkflow(counting);
    await core.engine.createInstance({ workflowId: 'counting', instanceId: 'w' });
    // Another worker holds the instance's lease: the application waits and retries.
    let releaseLease!: () => void;
    const holding = ports.leases.withLease('w', () => new Promise<void>((resolve) => (releaseLease = resolve)));
    const runnerOf = () =>
      new LocalOperationRunner(silentLogger, (launcher) => core.activitiesFor(launcher), { retryPolicy: { maxAttempts: 1000, firstRetryIntervalInMs: 5, maxRetryIntervalInMs: 5 } });
    const first = runnerOf();
    const answered = core.servicesFor(first).triggers.submitWithin({ id: 'bump-1', name: 'Bump', subjects: ['w'] }, 60_000, { to: { instanceId: 'w' }, idFromClient: true });
    const deadline = Date.now() + 20_000;
    while (first.inFlight === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await core.operations.get('bump-1')).toBeUndefined(); // running, not recorded yet
    // The process stops before the answer: the answer records it first (202), nothing applied.
    await first.stop(50);
    const { operation, waited } = await answered;
    expect(waited).toBe(true);
    expect(operation).toMatchObject({ id: 'bump-1', status: 'notStarted' });
    expect((await core.engine.getInstance('w')).context.n).toBeUndefined();

    releaseLease();
    await holding;
    const next = runnerOf();
    expect(await next.resumeUnfinished(core.operations)).toBe(1);
    await next.whenDone('bump-1');
    await next.stop();
    expect(await core.operations.get('bump-1')).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
    expect((await core.engine.getInstance('w')).context.n).toBe(1);
    expect((await core.engine.getHistory('w')).items.filter((entry) => entry.triggerId === 'bump-1')).toHaveLength(1);
  });

  it('applied once × waited-for triggers: the same id sent again after it finished answers with the first operation and changes nothing', async () => {
    const ports = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex(), checkHealth: async () => true };
    const core = createHostCore({ ports, logger: silentLogger, env: {}, engineOptions: { clock: new ManualClock('2026-11-26T12:00:00.000Z') } });
    await core.engine.createWorkflow(counting);
    await core.engine.createInstance({ workflowId: 'counting', instanceId: 'w' });
    const runner = new LocalOperationRunner(silentLogger, (launcher) => core.activitiesFor(launcher));
    const { triggers } = core.servicesFor(runner);
    const first = await triggers.submitWithin({ id: 'bump-1', name: 'Bump', subjects: ['w'] }, 10_000, { to: { instanceId: 'w' }, idFromClient: true });
    expect(first.operation).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
    const again = await triggers.submitWithin({ id: 'bump-1', name: 'Bump', subjects: ['w'] }, 10_000, { to: { instanceId: 'w' }, idFromClient: true });
    expect(again.operation).toMatchObject({ id: 'bump-1', status: 'succeeded', summary: { transitioned: 1 } });
    await expect(triggers.submitWithin({ id: 'bump-1', name: 'Bump', subjects: ['w'], parameters: { other: true } }, 10_000, { to: { instanceId: 'w' }, idFromClient: true })).rejects.toThrow(
      /another body|differ/i,
    );
    await runner.stop();
    expect((await core.engine.getInstance('w')).context.n).toBe(1);
  });
});

/**
 * Crash resumption crossed with the local runner's poison marks (decision 0022): a resumed operation marks its
 * decision on its record under the instance's lease and removes the mark before the lease is let go. A process
 * that dies after the save and before that removal leaves a mark on a decision that WAS saved: the next start-up
 * counts one strike, and must still apply nothing twice, hand on the saved change's follow-up work once, and finish
 * the operation as succeeded rather than poison.
 */
describe('crash resumption × poison marks', () => {
  const bumping: WorkflowDefinitionInput = {
    id: 'bumping',
    displayName: 'Bumping',
    initialStateId: 'on',
    states: {
      on: {
        transitions: [
          {
            id: 'bump',
            targetStateId: 'on',
            conditions: [{ type: 'triggerName', name: 'Bump' }],
            actions: [
              { type: 'setContext', expressions: { b: '$exists(context.b) ? context.b + 1 : 1' } },
              { type: 'raiseTrigger', trigger: { name: 'Echo', subjects: ['{{instance.id}}'] } },
            ],
          },
          {
            id: 'echo',
            targetStateId: 'on',
            conditions: [{ type: 'triggerName', name: 'Echo' }],
            actions: [{ type: 'setContext', expressions: { echoes: '$exists(context.echoes) ? context.echoes + 1 : 1' } }],
          },
        ],
      },
    },
  } as WorkflowDefinitionInput;

  /** Polls `check` until it holds (a generous deadline: the suite runs on loaded machines). */
  const until = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`never: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  it('crash resumption × poison marks: a process that dies after the save and before removing its mark leaves one strike, and the next start applies nothing twice and relays the raised trigger once', async () => {
    const shared = { ...createInMemoryPorts(), dueTimers: new InMemoryDueTimerIndex(), checkHealth: async () => true };
    const clock = new ManualClock('2026-11-26T12:00:00.000Z');
    const retryPolicy = { retryPolicy: { maxAttempts: 1000, firstRetryIntervalInMs: 5, maxRetryIntervalInMs: 5 } };
    /** One process: its own leases (a new process's are its own), marking its resumed decisions as the local host does; the stores are shared. */
    const processOn = (instances: InstanceStore, leases = new InMemoryLeaseProvider({ maxWaitInMs: 200 })) => {
      const core = createHostCore({ ports: { ...shared, instances, leases: markingDecisions(leases) }, logger: silentLogger, env: {}, engineOptions: { clock } });
      return { core, runner: new LocalOperationRunner(silentLogger, (launcher) => core.activitiesFor(launcher), retryPolicy) };
    };

    // Recorded, not applied: the first process stops while other work holds the instance's lease.
    const firstLeases = new InMemoryLeaseProvider({ maxWaitInMs: 200 });
    const first = processOn(shared.instances, firstLeases);
    await first.core.engine.createWorkflow(bumping);
    await first.core.engine.createInstance({ workflowId: 'bumping', instanceId: 'p' });
    let granted!: () => void;
    let releaseLease!: () => void;
    const leaseHeld = new Promise<void>((resolve) => (granted = resolve));
    const holding = firstLeases.withLease('p', () => (granted(), new Promise<void>((resolve) => (releaseLease = resolve))));
    await leaseHeld;
    const answered = first.core.servicesFor(first.runner).triggers.submitWithin({ id: 'bump-1', name: 'Bump', subjects: ['p'] }, 60_000, { to: { instanceId: 'p' }, idFromClient: true });
    await until(async () => first.runner.inFlight > 0, 'the application started');
    await first.runner.stop(50);
    expect((await answered).operation).toMatchObject({ id: 'bump-1', status: 'notStarted' });
    // The stopped process's application still waits on its own lease: the lease is let go only at the end, so it
    // stands for a dead process (else it would apply the trigger here, before the next start-up could resume it).

    // The second process resumes it, marks its decision, saves it, and dies before the mark is removed.
    const dyingAfterSave: InstanceStore = Object.assign(Object.create(shared.instances) as InstanceStore, {
      save: async (...args: Parameters<InstanceStore['save']>) => (await shared.instances.save(...args), new Promise<never>(() => {})),
    });
    const second = processOn(dyingAfterSave);
    expect(await second.runner.resumeUnfinished(second.core.operations)).toBe(1);
    await until(async () => (await shared.instances.get('p'))?.context.b === 1, 'the decision saved');
    await second.runner.stop(0);
    const left = await second.core.operations.get('bump-1');
    expect(left?.status).not.toBe('succeeded');
    expect(left?.deciding?.p).toBeDefined();

    // The third finds the mark (one strike, not poison), applies nothing twice and relays the raised Echo once.
    const updates = jest.spyOn(shared.operations, 'update');
    const third = processOn(shared.instances);
    expect(await third.runner.resumeUnfinished(third.core.operations)).toBe(1);
    await third.runner.whenDone('bump-1');
    await until(async () => (await shared.instances.get('p'))?.context.echoes === 1, 'the raised Echo applied');
    await third.runner.stop();
    const finished = await third.core.operations.get('bump-1');
    expect(finished).toMatchObject({ status: 'succeeded' });
    expect(finished?.error).toBeUndefined();
    // The dead mark was witnessed as one strike, then cleared once the decision here returned.
    expect(updates.mock.calls.map(([written]) => written.resumes)).toEqual(expect.arrayContaining([1, 0]));
    expect(finished?.deciding?.p).toBeUndefined();
    expect((await shared.instances.get('p'))?.context).toEqual({ b: 1, echoes: 1 });
    const history = (await third.core.engine.getHistory('p')).items;
    expect(history.filter((entry) => entry.triggerId === 'bump-1')).toHaveLength(1);
    expect(history.filter((entry) => entry.transitionId === 'echo')).toHaveLength(1);

    // The first process's leftover application, let go at last, finds the trigger applied: nothing changes.
    releaseLease();
    await holding;
    await first.runner.whenDone('bump-1');
    expect((await shared.instances.get('p'))?.context).toEqual({ b: 1, echoes: 1 });
  });
});
