/**
 * The local runner's own logic, over fake activities of the contract it shares with the durable
 * orchestrator: paging, dedupe across pages, retries of retryable failures in every step, failure of the
 * operation on a non-retryable one, and the `running` mark (deferred to the first progress).
 */
import { FlowQueuedError, LeaseUnavailableError, StorageError, ValidationError } from '../../src/engine/model';
import { OperationStatus, TriggerOutcome } from '../../src/engine/model';
import { emptySummary, type AppliedOutcome, type StoredOperation } from '../../src/engine/operations';
import { InMemoryLeaseProvider, InMemoryOperationStore } from '../../src/testing';
import { LocalOperationRunner } from '../../src/host/local/local-operation-runner';
import { FairScheduler } from '../../src/host/local/concurrency';
import { MAX_OPERATION_RESUMES } from '../../src/host/local/operation-resumption';
import { silentLogger } from '../../src/host/local/logger';
import { markingDecisions } from '../../src/host/local/deciding-scope';
import type { Logger } from '../../src/host/operation-activity-service';
import type { BeginOperationInput, CompleteOperationInput, FindCandidatesInput, FindCandidatesOutput, RecordProgressInput, OperationActivities } from '../../src/host/contracts/operation-activities';

function operation(id: string): StoredOperation {
  const trigger = { id, name: 'Go', subjects: ['s'] };
  return { id, triggerId: id, trigger, status: OperationStatus.notStarted, createdAt: 't', updatedAt: 't', candidates: 0, summary: emptySummary(), instances: [], etag: 'e' };
}

/**
 * The activity contract over one record kept in memory, as the storage-backed service keeps it: begin
 * (deferring `running`), the first progress marks it running, completion finishes it. `statuses` lists
 * each status write: `running`, then the status the completion was written from.
 */
function fakeActivities(pages: string[][], failures: { find?: unknown[]; apply?: Record<string, unknown[]> } = {}) {
  const finished: CompleteOperationInput[] = [];
  const statuses: string[] = [];
  const applied: string[] = [];
  const progress: { processed: number; total?: number }[] = [];
  let record: StoredOperation | undefined;
  const activities: OperationActivities = {
    beginOperation: async (input: BeginOperationInput) => {
      const { operationId, operation: known } = typeof input === 'string' ? { operationId: input, operation: undefined } : input;
      record = known ?? operation(operationId);
      return { subjects: record.kind === undefined || record.kind === 'trigger' ? record.trigger.subjects : [], shouldRun: true };
    },
    findCandidates: async (input: FindCandidatesInput): Promise<FindCandidatesOutput> => {
      const failure = failures.find?.shift();
      if (failure) throw failure;
      const index = input.continuationToken ? Number(input.continuationToken) : 0;
      return { instanceIds: pages[index]!, ...(index + 1 < pages.length ? { continuationToken: String(index + 1) } : {}) };
    },
    applyOperation: async ({ instanceId }: { instanceId: string }): Promise<AppliedOutcome> => {
      const failure = failures.apply?.[instanceId]?.shift();
      if (failure) throw failure;
      applied.push(instanceId);
      return { outcome: TriggerOutcome.transitioned };
    },
    recordProgress: async ({ progress: at }: RecordProgressInput) => {
      if (record!.status !== OperationStatus.running) {
        statuses.push('running');
        record = { ...record!, status: OperationStatus.running, etag: 'e2' };
      }
      progress.push(at);
    },
    completeOperation: async (input: CompleteOperationInput) => {
      statuses.push(record!.status);
      finished.push(input);
    },
  };
  return { activities, finished, statuses, applied, progress };
}

async function run(fake: ReturnType<typeof fakeActivities>, id = 'op'): Promise<void> {
  // A clock that stands still: no progress within a page (operation-progress.test.ts covers that), however slow the machine.
  const runner = new LocalOperationRunner(silentLogger, () => fake.activities, { retryPolicy: { firstRetryIntervalInMs: 1 }, concurrency: 4, now: () => new Date(0) });
  await runner.start(id);
  await runner.whenDone(id);
}

/** Polls `check` until it holds (20 s at most, then fails naming `what`). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('LocalOperationRunner', () => {
  it('offers the trigger once to each candidate across pages and records the totals', async () => {
    const fake = fakeActivities([['a', 'b'], ['b', 'c'], ['c']]);
    await run(fake);
    expect(fake.applied.sort()).toEqual(['a', 'b', 'c']);
    expect(fake.finished).toHaveLength(1);
    expect(fake.finished[0]).toMatchObject({ operationId: 'op', candidates: 3, summary: { transitioned: 3 } });
    expect(fake.finished[0]!.error).toBeUndefined();
    expect(fake.statuses).toEqual(['running', 'running']); // marked running, then finished from that record
    // Issue 23, one fan-out for both hosts: progress as the first batch starts, then after each batch but
    // the last (whose totals complete the operation); the total once every page is read.
    expect(fake.progress).toEqual([{ processed: 0 }, { processed: 2 }]);
  });

  it('does not write `running` for a single-instance operation', async () => {
    const fake = fakeActivities([['only']]);
    await run(fake);
    expect(fake.statuses).toEqual(['notStarted']);
    expect(fake.finished[0]).toMatchObject({ candidates: 1 });
  });

  it('retries retryable failures of the candidate lookup and of applications', async () => {
    const fake = fakeActivities([['a', 'b']], {
      find: [new StorageError('busy', 503, true)],
      apply: { a: [new LeaseUnavailableError('a', 10), new LeaseUnavailableError('a', 10)] },
    });
    await run(fake);
    expect(fake.applied.sort()).toEqual(['a', 'b']);
    expect(fake.finished[0]).toMatchObject({ candidates: 2, summary: { transitioned: 2 } });
    expect(fake.finished[0]!.error).toBeUndefined();
  });

  it('fails the operation with the reason when a failure is not retryable, or retries run out', async () => {
    const notRetryable = fakeActivities([['a']], { find: [new ValidationError('bad continuation token', [])] });
    await run(notRetryable);
    expect(notRetryable.finished[0]).toMatchObject({ error: 'bad continuation token', candidates: 0 });

    const exhausted = fakeActivities([['a']], { apply: { a: Array.from({ length: 5 }, () => new LeaseUnavailableError('a', 10)) } });
    await run(exhausted);
    expect(exhausted.applied).toEqual([]);
    expect(exhausted.finished[0]!.error).toContain('Lease "a" was not available');
  });
});

describe('LocalOperationRunner: a page with a failure (issue 23)', () => {
  // Before the fix the runner's Promise.all over a page rejected at the first failure: the operation was
  // completed `failed` while the rest of the page was still queued, and went on applying the trigger, uncounted.
  it('completes the operation failed only once every started application has ended, and counts each applied instance', async () => {
    const fake = fakeActivities([['a', 'b', 'c', 'd', 'e']], { apply: { a: [new ValidationError('no such workflow', [])] } });
    const started: string[] = [];
    const ended: string[] = [];
    let atCompletion: { started: string[]; ended: string[] } | undefined;
    const apply = fake.activities.applyOperation.bind(fake.activities);
    fake.activities.applyOperation = async (input) => {
      started.push(input.instanceId);
      try {
        // The others take a while, so that they are still running or queued when `a` fails.
        if (input.instanceId !== 'a') await new Promise((resolve) => setTimeout(resolve, 5));
        return await apply(input);
      } finally {
        ended.push(input.instanceId);
      }
    };
    const complete = fake.activities.completeOperation.bind(fake.activities);
    fake.activities.completeOperation = async (input) => {
      atCompletion = { started: [...started], ended: [...ended] };
      await complete(input);
    };
    const runner = new LocalOperationRunner(silentLogger, () => fake.activities, { retryPolicy: { firstRetryIntervalInMs: 1 }, concurrency: 2, now: () => new Date(0) });
    await runner.start('op-partial');
    await runner.whenDone('op-partial');
    // Anything still queued would start as soon as the applications before it end: give it every chance.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setTimeout(resolve, 5));

    expect(fake.finished).toHaveLength(1);
    const completion = fake.finished[0]!;
    expect(completion.error).toBe('no such workflow');
    // Nothing was being applied when the operation was reported, and nothing started after it.
    expect(atCompletion!.ended.sort()).toEqual(atCompletion!.started.sort());
    expect(started.sort()).toEqual(atCompletion!.started.sort());
    // Every instance the trigger was applied to is counted.
    expect(completion.candidates).toBe(fake.applied.length);
    expect(completion.summary.transitioned).toBe(fake.applied.length);
  });
});

describe('LocalOperationRunner.resumeUnfinished (poison: the process died while deciding)', () => {
  /**
   * One start-up of a process over `store`: its leases are its own (a new process), and an application takes the
   * instance's lease through the host's marking wrapper, as the engine does, then does `underLease`.
   */
  const startUp = (store: InMemoryOperationStore, underLease: () => Promise<void>, options: { logger?: Logger; leases?: InMemoryLeaseProvider } = {}) => {
    const fake = fakeActivities([['a']]);
    // A short wait for a lease: a process killed while waiting leaves no timer behind in the test.
    const leases = markingDecisions(options.leases ?? new InMemoryLeaseProvider({ maxWaitInMs: 200 }));
    const apply = fake.activities.applyOperation;
    fake.activities.applyOperation = (input) => leases.withLease(input.instanceId, async () => (await underLease(), apply(input)));
    const runner = new LocalOperationRunner(options.logger ?? silentLogger, () => fake.activities, { retryPolicy: { firstRetryIntervalInMs: 1 } });
    return { fake, runner, resumed: runner.resumeUnfinished(store) };
  };
  const dieDeciding = () => new Promise<void>(() => {});
  const marked = async (store: InMemoryOperationStore, id: string) => (await store.get(id))?.deciding?.a !== undefined;

  it('fails an operation whose decision stops the process every time, after MAX_OPERATION_RESUMES deaths its marks witnessed', async () => {
    const store = new InMemoryOperationStore();
    await store.create({ ...operation('op-crashy'), status: OperationStatus.running });
    const errors: { message: string; properties?: Record<string, unknown> }[] = [];
    const logger: Logger = { ...silentLogger, error: (message, properties) => void errors.push({ message, ...(properties ? { properties } : {}) }) };
    // The first resumed run finds no mark (a first run writes none): it marks its decision and dies deciding; each
    // later start-up finds the mark under the lease, a strike, and dies deciding again.
    for (let round = 0; round < MAX_OPERATION_RESUMES; round += 1) {
      const before = (await store.get('op-crashy'))!.deciding?.a;
      const process = startUp(store, dieDeciding, { logger });
      expect(await process.resumed).toBe(1);
      await until(async () => (await store.get('op-crashy'))!.deciding?.a !== before, `the mark of start-up ${round + 1}`);
      await process.runner.stop(0);
      expect(await store.get('op-crashy')).toMatchObject({ status: OperationStatus.running, resumes: round });
    }
    const last = startUp(store, dieDeciding, { logger });
    expect(await last.resumed).toBe(1);
    await last.runner.whenDone('op-crashy');
    // Nothing decided: the operation completes failed, saying why; in the log at error, with what it was about.
    expect(last.fake.applied).toEqual([]);
    expect(last.fake.finished[0]!.error).toContain('(poison)');
    expect(errors).toEqual([
      {
        message: 'operation failed as poison',
        properties: expect.objectContaining({ operationId: 'op-crashy', kind: 'trigger', instanceId: 'a', triggerName: expect.any(String), reason: expect.stringContaining('(poison)') }),
      },
    ]);
  });

  it('counts no strike for start-ups that die while the operation waits for its lease, however many', async () => {
    const store = new InMemoryOperationStore();
    await store.create({ ...operation('op-waiting'), status: OperationStatus.notStarted });
    for (let kill = 0; kill < MAX_OPERATION_RESUMES + 3; kill += 1) {
      // The instance's lease is held by other work (another resumed operation) until this process dies.
      const leases = new InMemoryLeaseProvider({ maxWaitInMs: 200 });
      let granted!: () => void;
      const held = new Promise<void>((resolve) => (granted = resolve));
      void leases.withLease('a', () => (granted(), new Promise<never>(() => {})));
      await held;
      const process = startUp(store, dieDeciding, { leases });
      expect(await process.resumed).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await process.runner.stop(0);
      expect(await store.get('op-waiting')).toMatchObject({ status: OperationStatus.notStarted });
      expect(await marked(store, 'op-waiting')).toBe(false);
    }
    // The next start-up that gets the lease applies it.
    const next = startUp(store, async () => {});
    await next.resumed;
    await next.runner.whenDone('op-waiting');
    expect(next.fake.applied).toEqual(['a']);
    expect(next.fake.finished[0]!.error).toBeUndefined();
  });

  it('keeps the count of a decision handed back to wait for a slot (no evidence either way), and kills while it waits add no strike', async () => {
    const store = new InMemoryOperationStore();
    await store.create({ ...operation('op-queued'), status: OperationStatus.notStarted, resumes: MAX_OPERATION_RESUMES - 2, deciding: { a: 'dead:1' } });
    for (let kill = 0; kill < MAX_OPERATION_RESUMES + 3; kill += 1) {
      let handedBack!: () => void;
      const parked = new Promise<void>((resolve) => (handedBack = resolve));
      const fake = fakeActivities([['a']]);
      const leases = markingDecisions(new InMemoryLeaseProvider());
      fake.activities.applyOperation = (input) =>
        leases.withLease(input.instanceId, async () => {
          handedBack();
          throw new FlowQueuedError('queued: k at 1/1', { workflowId: 'w', key: 'k' });
        });
      const runner = new LocalOperationRunner(silentLogger, () => fake.activities, { retryPolicy: { firstRetryIntervalInMs: 1 }, parkedRetryIntervalInMs: 60_000 });
      expect(await runner.resumeUnfinished(store)).toBe(1);
      await parked;
      // The mark is gone once the decision is over (still under the lease); the dead mark found first was one strike.
      await until(async () => !(await marked(store, 'op-queued')), 'the mark removed');
      expect(await store.get('op-queued')).toMatchObject({ status: OperationStatus.notStarted, resumes: MAX_OPERATION_RESUMES - 1 });
      await runner.stop(0);
    }
  });
});

describe('LocalOperationRunner across tenants', () => {
  it("gives another tenant's single trigger the next turn while one tenant's broadcast holds the shared slots", async () => {
    const scheduler = new FairScheduler(1);
    const order: string[] = [];
    const first = { open: () => {} };
    const held = new Promise<void>((resolve) => (first.open = resolve));
    const broadcast = fakeActivities([Array.from({ length: 200 }, (_, index) => `a${index}`)]);
    const apply = broadcast.activities.applyOperation;
    // The broadcast's first application holds the one slot until B's trigger is queued behind A's other 199.
    broadcast.activities.applyOperation = async (input) => (input.instanceId === 'a0' && (await held), order.push(input.instanceId), apply(input));
    const single = fakeActivities([['b0']]);
    const applySingle = single.activities.applyOperation;
    single.activities.applyOperation = async (input) => (order.push(input.instanceId), applySingle(input));
    const runnerFor = (tenantId: string, fake: ReturnType<typeof fakeActivities>) => new LocalOperationRunner(silentLogger, () => fake.activities, { scheduler, tenantId, now: () => new Date(0) });
    const tenantA = runnerFor('tenant-a', broadcast);
    const tenantB = runnerFor('tenant-b', single);

    await tenantA.start('flood');
    for (let turn = 0; turn < 10_000 && scheduler.waiting < 199; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    await tenantB.start('one');
    for (let turn = 0; turn < 10_000 && scheduler.waiting < 200; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(scheduler.waiting).toBe(200);
    first.open();
    await Promise.all([tenantA.whenDone('flood'), tenantB.whenDone('one')]);

    // A's held application, A's next turn, then B's: not after A's 200.
    expect(order.indexOf('b0')).toBe(2);
    expect(broadcast.finished[0]).toMatchObject({ candidates: 200, summary: { transitioned: 200 } });
    expect(single.finished[0]).toMatchObject({ candidates: 1, summary: { transitioned: 1 } });
  });
});

describe('LocalOperationRunner: triggers waiting for a concurrency slot', () => {
  /**
   * Key `heavy` has one concurrency slot (as ConcurrencySlots keeps it in storage): an application that
   * finds it taken is handed back at once naming its queue, as the engine does for a runner that parks.
   * The slot's release is announced, as ConcurrencySlots.onRelease does.
   */
  function heavyKey(fake: ReturnType<typeof fakeActivities>) {
    const listeners = new Set<(workflowId: string, key: string) => void>();
    const gates = new Map<string, () => void>();
    let holder: string | undefined;
    const handedBack: string[] = [];
    let mostAtOnce = 0;
    let atOnce = 0;
    const apply = fake.activities.applyOperation;
    fake.activities.applyOperation = async (input) => {
      if (!input.instanceId.startsWith('h')) return apply(input);
      expect(input.parkWhenQueued).toBe(true);
      if (holder !== undefined) {
        handedBack.push(input.instanceId);
        throw new FlowQueuedError('queued: heavy at 1/1', { workflowId: 'w', key: 'heavy' });
      }
      holder = input.instanceId;
      mostAtOnce = Math.max(mostAtOnce, ++atOnce);
      // Held until the test lets it finish.
      await new Promise<void>((resolve) => gates.set(input.instanceId, resolve));
      atOnce -= 1;
      holder = undefined;
      for (const listener of listeners) listener('w', 'heavy');
      return apply(input);
    };
    return {
      handedBack,
      get mostAtOnce() {
        return mostAtOnce;
      },
      get holder() {
        return holder;
      },
      /** Lets the holder finish (and release its slot). */
      finishHolder: () => gates.get(holder!)!(),
      slotReleases: (listener: (workflowId: string, key: string) => void) => (listeners.add(listener), () => listeners.delete(listener)),
    };
  }

  it("parks them outside the scheduler's slots (another key's trigger runs), wakes one per release, and drops none", async () => {
    const heavyIds = Array.from({ length: 6 }, (_, index) => `h${index}`);
    const fake = fakeActivities([[...heavyIds, 'light']]);
    const heavy = heavyKey(fake);
    const scheduler = new FairScheduler(2);
    // A retry interval no test run reaches: only the announced releases wake a parked trigger.
    const runner = new LocalOperationRunner(silentLogger, () => fake.activities, { scheduler, slotReleases: heavy.slotReleases, parkedRetryIntervalInMs: 3_600_000, now: () => new Date(0) });

    await runner.start('op');
    await until(() => fake.applied.includes('light') && runner.parked === 5, "the light key's application, with five heavy ones parked");
    // The holder is the only heavy application in a slot: the parked five hold none.
    expect(scheduler.waiting).toBe(0);
    for (let round = 0; round < heavyIds.length; round += 1) {
      await until(() => heavy.holder !== undefined, 'the next holder');
      heavy.finishHolder();
      await until(() => fake.applied.filter((id) => id.startsWith('h')).length === round + 1, `heavy application ${round + 1}`);
    }
    await runner.whenDone('op');

    expect(fake.applied.filter((id) => id.startsWith('h')).sort()).toEqual(heavyIds);
    expect(heavy.mostAtOnce).toBe(1);
    expect(runner.parked).toBe(0);
    expect(fake.finished[0]).toMatchObject({ candidates: 7, summary: { transitioned: 7 } });
    expect(fake.finished[0]!.error).toBeUndefined();
    // One try per turn: a release wakes only the first in line, so the five parked were handed back about
    // once each, plus once per release they did not win (bounded, not a poll per millisecond).
    expect(heavy.handedBack.length).toBeLessThanOrEqual(5 + heavyIds.length);
  });
});

describe('LocalOperationRunner: key hints (a trigger whose key is known to be full is parked without loading its instance)', () => {
  /**
   * Operations of one trigger each (operation `op-x-1` targets instance `x`), over concurrency keys of limit
   * 1 each: an application (an instance load: lease and read) whose key's slot is taken is handed back naming
   * its queue; one admitted holds its slot until the test finishes it, then announces the release.
   * `keyOf` is the instance's key as the engine would compute it under the lease, and may change.
   */
  function keyedActivities(keyOf: Map<string, string>) {
    const loads = new Map<string, number>();
    const applied: string[] = [];
    const holders = new Map<string, { operationId: string; finish: () => void }>();
    const listeners = new Set<(workflowId: string, key: string) => void>();
    const instanceOf = (operationId: string) => operationId.split('-')[1]!;
    const activities: OperationActivities = {
      beginOperation: async (input: BeginOperationInput) => ({ subjects: [instanceOf(typeof input === 'string' ? input : input.operationId)], shouldRun: true }),
      findCandidates: async (input: FindCandidatesInput): Promise<FindCandidatesOutput> => ({ instanceIds: [...input.subjects] }),
      applyOperation: async ({ operationId, instanceId }): Promise<AppliedOutcome> => {
        loads.set(operationId, (loads.get(operationId) ?? 0) + 1);
        const key = keyOf.get(instanceId)!;
        if (holders.has(key)) throw new FlowQueuedError(`queued: ${key} at 1/1`, { workflowId: 'w', key });
        await new Promise<void>((finish) => holders.set(key, { operationId, finish }));
        holders.delete(key);
        applied.push(operationId);
        for (const listener of listeners) listener('w', key);
        return { outcome: TriggerOutcome.transitioned };
      },
      recordProgress: async () => {},
      completeOperation: async () => {},
    };
    return {
      activities,
      applied,
      loads: (operationId: string) => loads.get(operationId) ?? 0,
      holderOf: (key: string) => holders.get(key)?.operationId,
      finish: (key: string) => holders.get(key)!.finish(),
      slotReleases: (listener: (workflowId: string, key: string) => void) => (listeners.add(listener), () => listeners.delete(listener)),
    };
  }

  function runnerOver(fake: ReturnType<typeof keyedActivities>) {
    // A retry interval no test run reaches: only the announced releases wake a parked trigger.
    return new LocalOperationRunner(silentLogger, () => fake.activities, { concurrency: 4, slotReleases: fake.slotReleases, parkedRetryIntervalInMs: 3_600_000, now: () => new Date(0) });
  }

  it('parks a trigger to an instance whose remembered key has triggers parked without loading the instance, and applies it when the key frees', async () => {
    const keyOf = new Map([['x', 'heavy']]);
    const fake = keyedActivities(keyOf);
    const runner = runnerOver(fake);
    await runner.start('op-x-1');
    await until(() => fake.holderOf('heavy') === 'op-x-1', 'the first application holding the slot');
    // Loads the instance (nothing is known of it yet), is handed back naming its queue: the hint.
    await runner.start('op-x-2');
    await until(() => runner.parked === 1, 'the second parked');
    await runner.start('op-x-3');
    await runner.start('op-x-4');
    await until(() => runner.parked === 3, 'the third and fourth parked');
    expect(fake.loads('op-x-2')).toBe(1);
    expect(fake.loads('op-x-3')).toBe(0);
    expect(fake.loads('op-x-4')).toBe(0);

    for (const next of ['op-x-2', 'op-x-3', 'op-x-4']) {
      fake.finish('heavy');
      await until(() => fake.holderOf('heavy') === next, `${next} holding the slot`);
    }
    fake.finish('heavy');
    await Promise.all(['op-x-1', 'op-x-2', 'op-x-3', 'op-x-4'].map((id) => runner.whenDone(id)));
    expect(fake.applied).toEqual(['op-x-1', 'op-x-2', 'op-x-3', 'op-x-4']);
    // Each hinted trigger loaded its instance once, at its turn.
    expect(fake.loads('op-x-3')).toBe(1);
    expect(fake.loads('op-x-4')).toBe(1);
    expect(runner.parked).toBe(0);
  });

  it('moves a hinted trigger turned away behind those listed in the key’s queue before it, so they are not left waiting behind it', async () => {
    const keyOf = new Map([
      ['x', 'heavy'],
      ['z', 'heavy'],
    ]);
    const fake = keyedActivities(keyOf);
    // The key's queue in storage, as the engine keeps it: a trigger handed back is listed at its end, and
    // only its head may take a free slot (the slot row's queue: ConcurrencySlots).
    const listed: string[] = [];
    const apply = fake.activities.applyOperation;
    fake.activities.applyOperation = async (input) => {
      const key = keyOf.get(input.instanceId)!;
      if (fake.holderOf(key) === undefined && listed.length > 0 && listed[0] !== input.operationId) {
        if (!listed.includes(input.operationId)) listed.push(input.operationId);
        throw new FlowQueuedError(`queued: ${key} at 1/1`, { workflowId: 'w', key });
      }
      try {
        return await apply(input);
      } catch (error) {
        if (!listed.includes(input.operationId)) listed.push(input.operationId);
        throw error;
      }
    };
    const admitted = (operationId: string) => () => fake.holderOf('heavy') === operationId && (listed[0] === operationId ? (listed.shift(), true) : !listed.includes(operationId));
    const runner = runnerOver(fake);
    // Stopped in any case: without the move the parked triggers would wait for the hour-long retry interval.
    try {
      await runner.start('op-x-1');
      await until(admitted('op-x-1'), 'x holding heavy');
      await runner.start('op-x-2');
      await until(() => runner.parked === 1, 'op-x-2 handed back and listed');
      // x is known to wait for heavy: op-x-3 is parked by the hint, not listed in storage (its instance not loaded).
      await runner.start('op-x-3');
      await until(() => runner.parked === 2, 'op-x-3 parked by the hint');
      // z is not known: op-z-1 loads, is handed back and listed, behind op-x-2 but before op-x-3.
      await runner.start('op-z-1');
      await until(() => runner.parked === 3 && listed.includes('op-z-1'), 'op-z-1 handed back and listed');
      expect(listed).toEqual(['op-x-2', 'op-z-1']);

      fake.finish('heavy');
      await until(admitted('op-x-2'), 'op-x-2 holding heavy');
      // op-x-3 is at the front of the line here now, but op-z-1 heads the queue in storage: op-x-3 is turned
      // away at the next release, listed behind op-z-1, and lines up behind it here too.
      fake.finish('heavy');
      await until(admitted('op-z-1'), 'op-z-1 holding heavy');
      fake.finish('heavy');
      await until(admitted('op-x-3'), 'op-x-3 holding heavy');
      fake.finish('heavy');
      await Promise.all(['op-x-1', 'op-x-2', 'op-x-3', 'op-z-1'].map((id) => runner.whenDone(id)));
      expect(fake.applied).toEqual(['op-x-1', 'op-x-2', 'op-z-1', 'op-x-3']);
      expect(runner.parked).toBe(0);
    } finally {
      await runner.stop(0);
    }
  });

  it('applies a trigger parked under a wrong hint (the key changed) in order, moving it to its real key, never over the limit', async () => {
    const keyOf = new Map([
      ['x', 'heavy'],
      ['y', 'other'],
    ]);
    const fake = keyedActivities(keyOf);
    const runner = runnerOver(fake);
    await runner.start('op-x-1');
    await until(() => fake.holderOf('heavy') === 'op-x-1', 'x holding heavy');
    await runner.start('op-x-2');
    await until(() => runner.parked === 1, 'the second parked under heavy');
    await runner.start('op-y-1');
    await until(() => fake.holderOf('other') === 'op-y-1', 'y holding other');

    // x's key changes (its context did): the hint (heavy) is now wrong, and x's real key is full too.
    keyOf.set('x', 'other');
    await runner.start('op-x-3');
    await until(() => runner.parked === 2, 'the third parked by its (wrong) hint');
    expect(fake.loads('op-x-3')).toBe(0);

    // heavy's release: the parked two try, find `other` full and move to its line, in their order.
    fake.finish('heavy');
    await until(() => fake.loads('op-x-3') === 1 && runner.parked === 2, 'both tried under heavy and parked again under other');
    expect(fake.holderOf('heavy')).toBeUndefined();
    fake.finish('other');
    await until(() => fake.holderOf('other') === 'op-x-2', 'op-x-2 holding other');
    fake.finish('other');
    await until(() => fake.holderOf('other') === 'op-x-3', 'op-x-3 holding other');
    fake.finish('other');
    await Promise.all(['op-x-1', 'op-x-2', 'op-x-3', 'op-y-1'].map((id) => runner.whenDone(id)));
    expect(fake.applied).toEqual(['op-x-1', 'op-y-1', 'op-x-2', 'op-x-3']);
    expect(runner.parked).toBe(0);
  });
});
