/**
 * The trigger orchestrator and its batch sub-orchestrator, run to completion by the real durable-functions
 * replay engine (test/support/durable-replay.ts) over in-memory activities.
 */
import { TriggerOutcome } from '../../src/engine/model';
import { APPLY_OPERATION_BATCH, activityRetryOptions, applyOperationBatch } from '../../functions/apply-operation-batch';
import { ACTIVITY_RETRY_POLICY, retryIntervalInMs } from '../../src/host/contracts/operation-activities';
import { DURABLE_PAGE_SIZE, MAX_BATCHES_IN_FLIGHT, OPERATION_ORCHESTRATOR, operationOrchestrator, type OperationOrchestratorInput } from '../../functions/operation-orchestrator';
import { EventType, failFirstAttempts, runOrchestration, type ReplayOptions } from '../support/durable-replay';
import { FakeOperationActivities, activityFunctions, instanceIds } from './fake-operation-activities';

// Registration needs the Functions host; a stand-in keeps @azure/functions quiet (it only records).
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

const orchestrators = { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch };

function run(fake: FakeOperationActivities, operationId = 'op-1', extra: Partial<ReplayOptions> = {}) {
  return runOrchestration(OPERATION_ORCHESTRATOR, { operationId }, operationId, { orchestrators, activities: activityFunctions(fake), ...extra });
}

describe('triggerOrchestrator', () => {
  it('fans out over every page in sub-orchestrations and records the totals', async () => {
    const candidates = instanceIds(1200);
    const fake = new FakeOperationActivities({ candidates, pageSize: 500 });

    const result = await run(fake);

    expect(result.status).toBe('completed');
    expect(fake.begun).toEqual(['op-1']);
    // Pages of DURABLE_PAGE_SIZE however large a page the activity could answer: a batch each.
    const pages = 1200 / DURABLE_PAGE_SIZE;
    expect(fake.pagesRead).toEqual(
      Array.from({ length: pages }, (_, page) => ({ subjects: ['order:1'], maxPageSize: DURABLE_PAGE_SIZE, ...(page > 0 ? { continuationToken: String(page * DURABLE_PAGE_SIZE) } : {}) })),
    );
    expect(result.subOrchestrations.map((sub) => [sub.instanceId, sub.status])).toEqual(Array.from({ length: pages }, (_, batch) => [`op-1:batch:${batch}`, 'completed']));
    expect(result.subOrchestrations.map((sub) => (sub.output as { candidates: number }).candidates)).toEqual(Array(pages).fill(DURABLE_PAGE_SIZE));
    expect([...fake.applied.keys()].sort()).toEqual(candidates);
    expect([...fake.applied.values()].every((count) => count === 1)).toBe(true);

    expect(fake.completions).toHaveLength(1);
    const completion = fake.completions[0]!;
    expect(completion.operationId).toBe('op-1');
    expect(completion.error).toBeUndefined();
    expect(completion.candidates).toBe(1200);
    expect(completion.summary.transitioned).toBe(1200);
    // The summary counts all; each result is stored by the activity that applied it, none reaches the completion.
    expect(completion.instances).toEqual([]);
    expect([...fake.results.keys()].sort()).toEqual(candidates);
    expect(result.output).toEqual({ candidates: 1200, summary: completion.summary });
  });

  it('carries no per-instance result through durable history: activities store them and answer outcomes', async () => {
    const candidates = instanceIds(120);
    const trace = [{ path: 'states.submitted.transitions[0].conditions[0]', type: 'triggerName', result: true }] as never;
    const fake = new FakeOperationActivities({
      candidates,
      pageSize: 500,
      outcomeFor: (instanceId) => ({ instanceId, outcome: TriggerOutcome.transitioned, transitionId: 'approve-once', fromStateId: 'submitted', toStateId: 'approved', trace }),
    });

    const result = await run(fake, 'op-history');

    expect(result.status).toBe('completed');
    expect(fake.completions[0]!.summary.transitioned).toBe(120);
    expect(fake.results.get('i0042')).toMatchObject({ transitionId: 'approve-once', trace });
    const histories = JSON.stringify([result.history, ...result.subOrchestrations.map((sub) => sub.history)]);
    for (const detail of ['approve-once', 'states.submitted.transitions', '"toStateId"']) expect(histories).not.toContain(detail);
    // What each application answers through history is its outcome, nothing more.
    const applications = result.subOrchestrations.flatMap((sub) => sub.history.filter((event) => event.EventType === EventType.TaskCompleted));
    expect(applications).toHaveLength(120);
    for (const event of applications) expect(JSON.parse(String(event.Result))).toEqual({ outcome: TriggerOutcome.transitioned });
  });

  it('an operation of one instance carries its one result to the completion, which records it; of two, none (rows)', async () => {
    const one = new FakeOperationActivities({ candidates: instanceIds(1), pageSize: 500 });
    // A retried application (the first attempt failed) answers its result too.
    const injectFailure = failFirstAttempts(1, (call) => call.name === 'applyTrigger', 'lease unavailable');
    const single = await run(one, 'op-one', { injectFailure });
    expect(single.status).toBe('completed');
    expect(single.activityCalls.filter((call) => call.name === 'applyTrigger').map((call) => call.input)).toEqual([
      { operationId: 'op-one', instanceId: 'i0000', keepResult: true, parkWhenQueued: true },
      { operationId: 'op-one', instanceId: 'i0000', keepResult: true, parkWhenQueued: true },
    ]);
    expect(one.completions[0]).toMatchObject({
      candidates: 1,
      summary: expect.objectContaining({ transitioned: 1 }),
      instances: [{ instanceId: 'i0000', outcome: 'transitioned', transitionId: 'submit' }],
    });
    expect(one.results.size).toBe(0);

    const two = new FakeOperationActivities({ candidates: instanceIds(2), pageSize: 500 });
    await run(two, 'op-two');
    expect(two.completions[0]).toMatchObject({ candidates: 2, instances: [] });
    expect([...two.results.keys()].sort()).toEqual(instanceIds(2));
  });

  it('offers the trigger once to an instance found on several pages', async () => {
    const fake = new FakeOperationActivities({ candidates: ['a', 'b', 'c', 'b', 'd', 'a', 'c', 'e', 'e'], pageSize: 3 });

    await run(fake);

    expect(Object.fromEntries(fake.applied)).toEqual({ a: 1, b: 1, c: 1, d: 1, e: 1 });
    const completion = fake.completions[0]!;
    expect(completion.candidates).toBe(5);
    expect([...fake.results.keys()].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('skips a page left empty by de-duplication without starting a batch', async () => {
    const fake = new FakeOperationActivities({ candidates: ['a', 'b', 'a', 'b', 'c'], pageSize: 2 });

    const result = await run(fake);

    expect(result.subOrchestrations.map((sub) => sub.input)).toEqual([
      { operationId: 'op-1', instanceIds: ['a', 'b'] },
      { operationId: 'op-1', instanceIds: ['c'] },
    ]);
    expect(fake.completions[0]!.candidates).toBe(3);
  });

  it('counts every outcome in the summary', async () => {
    const outcomes = [TriggerOutcome.transitioned, TriggerOutcome.noTransition, TriggerOutcome.faulted, TriggerOutcome.notInterested];
    const fake = new FakeOperationActivities({
      candidates: instanceIds(8),
      pageSize: 3,
      outcomeFor: (instanceId) => {
        const outcome = outcomes[Number(instanceId.slice(1)) % outcomes.length]!;
        return outcome === TriggerOutcome.faulted ? { instanceId, outcome, error: 'action failed' } : { instanceId, outcome };
      },
    });

    await run(fake);

    const { summary } = fake.completions[0]!;
    expect(summary).toMatchObject({ transitioned: 2, noTransition: 2, faulted: 2, notInterested: 2, exitBlocked: 0, duplicate: 0 });
    expect([...fake.results.values()].filter((result) => result.outcome === TriggerOutcome.faulted).map((result) => result.error)).toEqual(['action failed', 'action failed']);
  });

  it('does nothing more when the operation had already finished', async () => {
    const fake = new FakeOperationActivities({ candidates: instanceIds(3), pageSize: 2, shouldRun: false });

    const result = await run(fake);

    expect(result.status).toBe('completed');
    expect(result.activityCalls.map((call) => call.name)).toEqual(['beginOperation']);
    expect(fake.completions).toEqual([]);
  });

  it('finishes an operation with no candidates', async () => {
    const fake = new FakeOperationActivities({ candidates: [], pageSize: 500 });

    const result = await run(fake);

    expect(result.subOrchestrations).toEqual([]);
    expect(fake.completions).toEqual([expect.objectContaining({ operationId: 'op-1', candidates: 0, instances: [] })]);
  });

  it('retries a failing applyTrigger and succeeds', async () => {
    const fake = new FakeOperationActivities({ candidates: instanceIds(6), pageSize: 4 });
    const injectFailure = failFirstAttempts(2, (call) => call.name === 'applyTrigger' && (call.input as { instanceId: string }).instanceId === 'i0005', 'lease unavailable');

    const result = await run(fake, 'op-retry', { injectFailure });

    const attempts = result.activityCalls.filter((call) => (call.input as { instanceId?: string }).instanceId === 'i0005');
    expect(attempts.map((call) => call.attempt)).toEqual([1, 2, 3]);
    const batch = result.subOrchestrations[1]!;
    expect(batch.history.filter((record) => record.EventType === EventType.TaskFailed)).toHaveLength(2);
    expect(batch.history.filter((record) => record.EventType === EventType.TimerFired)).toHaveLength(2);
    expect(fake.completions[0]).toMatchObject({ candidates: 6, summary: expect.objectContaining({ transitioned: 6 }) });
    expect(fake.completions[0]!.error).toBeUndefined();
    expect(fake.applied.get('i0005')).toBe(1);
  });

  it('retries the other activities too', async () => {
    const fake = new FakeOperationActivities({ candidates: instanceIds(5), pageSize: 2 });
    const injectFailure = failFirstAttempts(1, (call) => call.name === 'findCandidates' || call.name === 'beginOperation');

    const result = await run(fake, 'op-pages', { injectFailure });

    expect(result.status).toBe('completed');
    expect(fake.completions[0]).toMatchObject({ candidates: 5 });
    expect(fake.completions[0]!.error).toBeUndefined();
  });

  it('marks the operation failed with the reason once the retries are exhausted', async () => {
    const fake = new FakeOperationActivities({ candidates: instanceIds(7), pageSize: 3 });
    const injectFailure = failFirstAttempts(99, (call) => call.name === 'applyTrigger' && (call.input as { instanceId: string }).instanceId === 'i0004', 'storage unavailable');

    const result = await run(fake, 'op-fail', { injectFailure });

    expect(result.activityCalls.filter((call) => (call.input as { instanceId?: string }).instanceId === 'i0004')).toHaveLength(5);
    // Issue 23: a batch runs to its end and reports the failure in its outcome (before, it failed at the
    // first one and its other instances, applied all the same, were not counted).
    expect(result.subOrchestrations.map((sub) => sub.status)).toEqual(['completed', 'completed', 'completed']);
    expect(result.subOrchestrations[1]!.output).toMatchObject({ candidates: 2, error: expect.stringMatching(/applyTrigger.*storage unavailable/) });
    expect(result.status).toBe('completed');
    expect(fake.completions).toHaveLength(1);
    const completion = fake.completions[0]!;
    expect(completion.error).toMatch(/applyTrigger.*storage unavailable/);
    expect(completion.error).not.toMatch(/\n/);
    // Every instance applied counts: the batches that finished, and the failed one's other two instances.
    expect(completion.candidates).toBe(6);
    expect(completion.candidates).toBe([...fake.applied.keys()].length);
    expect(result.output).toMatchObject({ error: completion.error });
  });

  it('marks the operation failed when reading candidates keeps failing', async () => {
    const fake = new FakeOperationActivities({ candidates: instanceIds(5), pageSize: 2 });
    const injectFailure = failFirstAttempts(99, (call) => call.name === 'findCandidates' && (call.input as { continuationToken?: string }).continuationToken === '2');

    const result = await run(fake, 'op-pages-fail', { injectFailure });

    const completion = fake.completions[0]!;
    expect(completion.error).toMatch(/findCandidates.*injected transient failure/);
    // The first page's batch, already running, was waited for and counted.
    expect(completion.candidates).toBe(2);
    expect(result.status).toBe('completed');
  });

  it('fails the orchestration when even completing the operation fails', async () => {
    const fake = new FakeOperationActivities({ candidates: instanceIds(2), pageSize: 2 });
    const injectFailure = failFirstAttempts(99, (call) => call.name === 'completeOperation');

    const result = await run(fake, 'op-complete-fail', { injectFailure });

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/completeOperation/);
  });

  it(`keeps at most ${MAX_BATCHES_IN_FLIGHT} batches running`, async () => {
    const pages = MAX_BATCHES_IN_FLIGHT * 2 + 3;
    const fake = new FakeOperationActivities({ candidates: instanceIds(pages * 2), pageSize: 2 });

    // Slow batches, fast pages: the window, not the pages, must be what holds batches back.
    const result = await run(fake, 'op-window', { subOrchestrationsLast: true });

    // Sub-orchestrations created but not yet completed, event by event, in the parent's history.
    let running = 0;
    let most = 0;
    for (const record of result.history) {
      if (record.EventType === EventType.SubOrchestrationInstanceCreated) most = Math.max(most, ++running);
      if (record.EventType === EventType.SubOrchestrationInstanceCompleted) running--;
    }
    expect(most).toBeLessThanOrEqual(MAX_BATCHES_IN_FLIGHT);
    expect(most).toBe(MAX_BATCHES_IN_FLIGHT);
    expect(result.subOrchestrations).toHaveLength(pages);
    expect(fake.completions[0]!.candidates).toBe(pages * 2);
  });

  it("narrows the window to the tenant's fan-out quota named in its input, never widening it", async () => {
    const mostInFlight = (result: { history: readonly { EventType: number }[] }) => {
      let running = 0;
      let most = 0;
      for (const record of result.history) {
        if (record.EventType === EventType.SubOrchestrationInstanceCreated) most = Math.max(most, ++running);
        if (record.EventType === EventType.SubOrchestrationInstanceCompleted) running--;
      }
      return most;
    };
    const pages = MAX_BATCHES_IN_FLIGHT * 2 + 3;
    for (const [batchesInFlight, expected] of [
      [2, 2],
      [MAX_BATCHES_IN_FLIGHT * 4, MAX_BATCHES_IN_FLIGHT],
    ] as const) {
      const fake = new FakeOperationActivities({ candidates: instanceIds(pages * 2), pageSize: 2 });
      const operationId = `op-tenant-${batchesInFlight}`;
      const input: OperationOrchestratorInput = { operationId, tenantId: 'tenant-a', batchesInFlight };
      const result = await runOrchestration(OPERATION_ORCHESTRATOR, input, operationId, { orchestrators, activities: activityFunctions(fake), subOrchestrationsLast: true });
      expect(result.status).toBe('completed');
      expect(mostInFlight(result)).toBe(expected);
      expect(fake.completions[0]!.candidates).toBe(pages * 2);
    }
  });

  it('schedules every task once (no duplicate actions on replay)', async () => {
    const fake = new FakeOperationActivities({ candidates: instanceIds(10), pageSize: 3 });

    const result = await run(fake, 'op-once');

    const created = result.history.filter((record) => record.EventType === EventType.SubOrchestrationInstanceCreated).map((record) => record.InstanceId);
    expect(created).toEqual(['op-once:batch:0', 'op-once:batch:1', 'op-once:batch:2', 'op-once:batch:3']);
    const pagesScheduled = result.history.filter((record) => record.EventType === EventType.TaskScheduled && record.Name === 'findCandidates');
    expect(pagesScheduled).toHaveLength(4);
    // What the extension would schedule: each batch and each page once (Azure/azure-functions-durable-js#574).
    expect(result.actions.filter((action) => action.functionName === APPLY_OPERATION_BATCH).map((action) => action.instanceId)).toEqual(created);
    expect(result.actions.map((action) => action.functionName)).toEqual([
      'beginOperation',
      'findCandidates',
      // Issue 23 (one fan-out for every host): progress when the first batch starts marks the operation running.
      APPLY_OPERATION_BATCH,
      'recordProgress',
      'findCandidates',
      APPLY_OPERATION_BATCH,
      'findCandidates',
      APPLY_OPERATION_BATCH,
      'findCandidates',
      // The last batch, scheduled with the first record after a batch: progress after each batch but
      // the last (whose totals complete the operation at once).
      APPLY_OPERATION_BATCH,
      'recordProgress',
      'recordProgress',
      'recordProgress',
      'completeOperation',
    ]);
  });

  it('records progress as batches finish: processed grows, the total once every page is read', async () => {
    const fake = new FakeOperationActivities({ candidates: instanceIds(10), pageSize: 3 });

    await run(fake, 'op-progress');

    expect(fake.progress.map((entry) => entry.operationId)).toEqual(['op-progress', 'op-progress', 'op-progress', 'op-progress']);
    expect(fake.progress.map((entry) => entry.progress)).toEqual([
      // Issue 23: as the first batch starts (the record that marks it running; the total is not known yet).
      { processed: 0 },
      { processed: 3, total: 10 },
      { processed: 6, total: 10 },
      { processed: 9, total: 10 },
    ]);
  });
});

describe('an operation of one instance, applied directly (applyOneInstanceDirectly)', () => {
  const direct = (fake: FakeOperationActivities, operationId: string, extra: Partial<ReplayOptions> = {}) =>
    runOrchestration(OPERATION_ORCHESTRATOR, { operationId, applyOneInstanceDirectly: true } satisfies OperationOrchestratorInput, operationId, {
      orchestrators,
      activities: activityFunctions(fake),
      ...extra,
    });
  const historyBytes = (result: Awaited<ReturnType<typeof run>>) => Buffer.byteLength(JSON.stringify([result.history, ...result.subOrchestrations.map((sub) => sub.history)]));

  it('runs its activity in the orchestration, retried by the same policy, and records the same completion as a batch of one', async () => {
    const injectFailure = failFirstAttempts(1, (call) => call.name === 'applyTrigger', 'lease unavailable');
    const inBatch = new FakeOperationActivities({ candidates: instanceIds(1), pageSize: 500 });
    const batched = await run(inBatch, 'op-one', { injectFailure });
    const applied = new FakeOperationActivities({ candidates: instanceIds(1), pageSize: 500 });
    const result = await direct(applied, 'op-one', { injectFailure });

    expect(result.status).toBe('completed');
    expect(result.subOrchestrations).toEqual([]);
    expect(result.activityCalls.filter((call) => call.name === 'applyTrigger').map((call) => [call.input, call.attempt])).toEqual([
      [{ operationId: 'op-one', instanceId: 'i0000', keepResult: true, parkWhenQueued: true }, 1],
      [{ operationId: 'op-one', instanceId: 'i0000', keepResult: true, parkWhenQueued: true }, 2],
    ]);
    expect(applied.completions).toEqual(inBatch.completions);
    expect(applied.completions[0]).toMatchObject({ candidates: 1, instances: [{ instanceId: 'i0000', outcome: 'transitioned' }] });
    expect(result.output).toEqual(batched.output);
    expect(historyBytes(result)).toBeLessThan(historyBytes(batched));
  });

  it('fails the operation with the reason once the retries are exhausted, as a batch of one does', async () => {
    const injectFailure = failFirstAttempts(99, (call) => call.name === 'applyTrigger', 'storage unavailable');
    const inBatch = new FakeOperationActivities({ candidates: instanceIds(1), pageSize: 500 });
    await run(inBatch, 'op-fails', { injectFailure });
    const applied = new FakeOperationActivities({ candidates: instanceIds(1), pageSize: 500 });
    const result = await direct(applied, 'op-fails', { injectFailure });

    expect(result.status).toBe('completed');
    expect(result.activityCalls.filter((call) => call.name === 'applyTrigger')).toHaveLength(ACTIVITY_RETRY_POLICY.maxAttempts);
    expect(applied.completions).toEqual(inBatch.completions);
    expect(applied.completions[0]).toMatchObject({ candidates: 0, error: expect.stringMatching(/applyTrigger.*storage unavailable/) });
  });

  it('schedules each task once on replay, and still runs batches for two instances', async () => {
    const one = await direct(new FakeOperationActivities({ candidates: instanceIds(1), pageSize: 500 }), 'op-once');
    // What the extension would schedule: each activity once (Azure/azure-functions-durable-js#574).
    expect(one.actions.map((action) => action.functionName)).toEqual(['beginOperation', 'findCandidates', 'applyTrigger', 'completeOperation']);
    const two = await direct(new FakeOperationActivities({ candidates: instanceIds(2), pageSize: 500 }), 'op-two');
    expect(two.subOrchestrations.map((sub) => sub.instanceId)).toEqual(['op-two:batch:0']);
  });

  it('an interrupted one started anew applies its instance directly from the checkpoint, once, and records its result', async () => {
    const fake = new FakeOperationActivities({
      candidates: instanceIds(1),
      pageSize: 500,
      resume: { checkpoint: { batches: 0, pending: ['i0000'], allFound: true }, totals: { candidates: 0, summary: {}, instances: [] } },
    });
    const result = await direct(fake, 'op-resumed-one');
    expect(result.subOrchestrations).toEqual([]);
    expect(fake.pagesRead).toEqual([]);
    expect(Object.fromEntries(fake.applied)).toEqual({ i0000: 1 });
    expect(fake.completions[0]).toMatchObject({ candidates: 1, instances: [{ instanceId: 'i0000', outcome: 'transitioned' }] });
  });

  it('an orchestration started without the setting (before it existed) replays its batch sub-orchestration', async () => {
    const result = await run(new FakeOperationActivities({ candidates: instanceIds(1), pageSize: 500 }), 'op-old');
    expect(result.subOrchestrations.map((sub) => sub.instanceId)).toEqual(['op-old:batch:0']);
  });
});

describe('triggerOrchestrator progress on Azure', () => {
  it('moves progress every DURABLE_PAGE_SIZE instances: an operation of 120 shows progress before it ends', async () => {
    // The activity could answer pages of 500: the orchestrator asks for small ones.
    const fake = new FakeOperationActivities({ candidates: instanceIds(120), pageSize: 500 });

    await run(fake, 'op-small-pages');

    expect(DURABLE_PAGE_SIZE).toBe(50);
    expect(fake.pagesRead.map((page) => page.maxPageSize)).toEqual([50, 50, 50]);
    expect(fake.progress.map((entry) => entry.progress)).toEqual([{ processed: 0 }, { processed: 50, total: 120 }, { processed: 100, total: 120 }]);
    expect(fake.completions[0]).toMatchObject({ candidates: 120 });
  });
});

describe('triggerOrchestrator resumed from a checkpoint (issue 22)', () => {
  it("records with each finished batch a checkpoint: that batch's results, the batches still uncounted and where reading goes on", async () => {
    const fake = new FakeOperationActivities({ candidates: instanceIds(10), pageSize: 3 });

    await run(fake, 'op-checkpoint');

    const [started, first] = fake.progress;
    // Issue 23: the record as the first batch starts lists it pending, and reading goes on from the second page.
    expect(started!.checkpoint).toMatchObject({ batches: 0, finished: { candidates: 0 }, pending: instanceIds(3), allFound: false, continuationToken: '3' });
    expect(first!.checkpoint).toMatchObject({ batches: 1, finished: { candidates: 3 }, allFound: true });
    // Every page was read before the first batch finished: the three others are pending.
    expect(first!.checkpoint!.pending).toEqual(instanceIds(10).slice(3));
    expect(fake.progress.map((entry) => entry.checkpoint!.batches)).toEqual([0, 1, 2, 3]);
  });

  it('an orchestration started anew goes on from the checkpoint: counted instances are not offered again, and the report counts them', async () => {
    const candidates = instanceIds(12);
    const counted = candidates.slice(0, 6).map((instanceId) => ({ instanceId, outcome: TriggerOutcome.transitioned }));
    const fake = new FakeOperationActivities({
      candidates,
      pageSize: 3,
      resume: {
        checkpoint: { batches: 2, pending: ['i0006', 'i0007', 'i0008'], allFound: false, continuationToken: '9' },
        totals: { candidates: 6, summary: { transitioned: 6 }, instances: counted },
      },
    });

    const result = await run(fake, 'op-resumed');

    expect(result.status).toBe('completed');
    expect(fake.pagesRead).toEqual([{ subjects: ['order:1'], maxPageSize: DURABLE_PAGE_SIZE, continuationToken: '9' }]);
    expect([...fake.applied.keys()].sort()).toEqual(candidates.slice(6));
    const completion = fake.completions[0]!;
    expect(completion.candidates).toBe(12);
    expect(completion.summary.transitioned).toBe(12);
    // The results the earlier run counted on its record stay there; this run's are stored, not carried.
    expect(completion.instances.map((entry) => entry.instanceId)).toEqual(candidates.slice(0, 6));
    expect([...fake.results.keys()].sort()).toEqual(candidates.slice(6));
    // Checkpoints go on counting from the resumed one.
    expect(fake.progress.map((entry) => entry.checkpoint!.batches)).toEqual([3]);
  });

  it('a checkpoint with every page found offers only its pending instances', async () => {
    const fake = new FakeOperationActivities({
      candidates: instanceIds(5),
      pageSize: 5,
      resume: { checkpoint: { batches: 1, pending: ['i0004'], allFound: true }, totals: { candidates: 4, summary: { transitioned: 4 }, instances: [] } },
    });

    await run(fake, 'op-tail');

    expect(fake.pagesRead).toEqual([]);
    expect([...fake.applied.keys()]).toEqual(['i0004']);
    expect(fake.completions[0]).toMatchObject({ candidates: 5, summary: { transitioned: 5 } });
  });
});

describe('the activity retry policy (one for both hosts)', () => {
  it("durable RetryOptions are the contract's policy, and the local runner waits the intervals the framework would", () => {
    expect(activityRetryOptions).toMatchObject({
      firstRetryIntervalInMilliseconds: ACTIVITY_RETRY_POLICY.firstRetryIntervalInMs,
      maxNumberOfAttempts: ACTIVITY_RETRY_POLICY.maxAttempts,
      backoffCoefficient: ACTIVITY_RETRY_POLICY.backoffCoefficient,
      maxRetryIntervalInMilliseconds: ACTIVITY_RETRY_POLICY.maxRetryIntervalInMs,
    });
    // Retries 1-4 of the 5 attempts: about 0, 1, 3, 7 and 15 s from the first attempt.
    expect([1, 2, 3, 4].map((retry) => retryIntervalInMs(ACTIVITY_RETRY_POLICY, retry))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryIntervalInMs({ ...ACTIVITY_RETRY_POLICY, maxRetryIntervalInMs: 3000 }, 4)).toBe(3000);
  });
});
