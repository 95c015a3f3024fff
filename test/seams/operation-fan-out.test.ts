/**
 * Seams of "one fan-out for every operation" (issue 23 §1; src/engine/operations/fan-out.ts,
 * docs/decisions/0013-one-operation-fan-out.md): each instance offered once, a started batch run to its
 * end and counted, progress and checkpoints the same on every host, crossed with the kinds of follow-up
 * work an operation carries. In memory: the algorithm is pure and `Engine.publish` drives it in process;
 * the hosts' schedulers have their own tests (test/host/local-operation-runner.test.ts,
 * test/functions/operation-orchestrator.test.ts).
 */
import type { WorkflowDefinitionInput } from '../../src/engine';
import { ActionOutcome } from '../../src/engine/model';
import { FanOut, emptyTotals, type FanOutStep } from '../../src/engine/operations';
import { testEngine, trigger } from '../engine/support';

/** `Bump` raises `Echo` on the instance itself; the subject `all` matches every instance twice (two interests). */
const echoing: WorkflowDefinitionInput = {
  id: 'echoing',
  displayName: 'Echoing',
  initialStateId: 'on',
  states: {
    on: {
      interests: ['all', 'all-again'],
      transitions: [
        {
          id: 'bump',
          targetStateId: 'on',
          conditions: [{ type: 'triggerName', name: 'Bump' }],
          actions: [{ type: 'raiseTrigger', trigger: { name: 'Echo', subjects: ['{{instance.id}}'] } }] as never,
        },
        {
          id: 'echo',
          targetStateId: 'on',
          conditions: [{ type: 'triggerName', name: 'Echo' }],
          actions: [{ type: 'setContext', expressions: { echoes: '$exists(context.echoes) ? context.echoes + 1 : 1' } }] as never,
        },
      ],
    },
  },
};

/** Runs a fan-out to its end over `pages`, applying each batch with `apply`; returns the steps taken. */
function drive(fanOut: FanOut, pages: string[][], apply: (instanceIds: readonly string[]) => { outcomes: string[]; error?: string }): FanOutStep[] {
  const steps: FanOutStep[] = [];
  const started: (readonly string[])[] = [];
  for (;;) {
    const step = fanOut.next();
    steps.push(step);
    if (step.next === 'complete') return steps;
    if (step.next === 'read') {
      const index = step.continuationToken === undefined ? 0 : Number(step.continuationToken);
      fanOut.pageRead({ instanceIds: pages[index]!, ...(index + 1 < pages.length ? { continuationToken: String(index + 1) } : {}) });
    } else if (step.next === 'apply') {
      started.push(step.batch.instanceIds);
    } else if (step.next === 'wait') {
      const instanceIds = started.shift()!;
      const { outcomes, error } = apply(instanceIds);
      const summary: Record<string, number> = {};
      for (const outcome of outcomes) summary[outcome] = (summary[outcome] ?? 0) + 1;
      fanOut.batchFinished({
        candidates: outcomes.length,
        summary,
        instances: outcomes.map((outcome, index) => ({ instanceId: instanceIds[index]!, outcome: outcome as never })),
        ...(error ? { error } : {}),
      });
    }
  }
}

describe('operation fan-out × follow-up work', () => {
  it('operation fan-out × raised triggers: a published trigger reaches each instance once however many subjects match, and each raised trigger is applied once', async () => {
    const { engine } = testEngine({ inProcess: true });
    await engine.createWorkflow(echoing);
    for (const instanceId of ['i1', 'i2', 'i3']) await engine.createInstance({ workflowId: 'echoing', instanceId });

    const results = await engine.publish(trigger('Bump', { id: 'bump-all', subjects: ['all', 'all-again'] }));

    expect(results.map((result) => result.instanceId).sort()).toEqual(['i1', 'i2', 'i3']);
    for (const instanceId of ['i1', 'i2', 'i3']) expect((await engine.getInstance(instanceId)).context.echoes).toBe(1);
  });

  it("operation fan-out × migrations: the summary lists the kind's outcomes, a failed instance does not stop its batch, and every migrated instance is counted", () => {
    const fanOut = new FanOut({ outcomes: [ActionOutcome.migrated, ActionOutcome.notMigratable, ActionOutcome.skipped, ActionOutcome.failed] }, { batchesInFlight: 1 });
    const steps = drive(fanOut, [['m1', 'm2'], ['m3', 'm4'], ['m5']], (ids) =>
      ids.includes('m3') ? { outcomes: ['migrated'], error: 'm3: storage unavailable' } : { outcomes: ids.map(() => 'migrated') },
    );

    const completion = steps.at(-1) as Extract<FanOutStep, { next: 'complete' }>;
    expect(completion.completion).toMatchObject({ candidates: 3, summary: { migrated: 3, notMigratable: 0, skipped: 0, failed: 0 }, error: 'm3: storage unavailable' });
    // After the failure no batch started: m5, found while m3's batch ran, was not offered.
    expect(steps.filter((step) => step.next === 'apply').map((step) => (step as Extract<FanOutStep, { next: 'apply' }>).batch.instanceIds)).toEqual([
      ['m1', 'm2'],
      ['m3', 'm4'],
    ]);
  });

  it('operation fan-out × bulk actions: a resumed bulk action offers only what its checkpoint left and counts on from it', () => {
    const fanOut = new FanOut(
      { resume: { checkpoint: { batches: 1, pending: ['b3'], allFound: false, continuationToken: '1' }, totals: { candidates: 2, summary: { suspended: 2 }, instances: [] } } },
      { batchesInFlight: 1 },
    );
    const applied: string[] = [];
    const steps = drive(
      fanOut,
      [
        ['b1', 'b2'],
        ['b3', 'b4'],
      ],
      (ids) => (applied.push(...ids), { outcomes: ids.map(() => 'suspended') }),
    );

    expect(applied).toEqual(['b3', 'b4']);
    // No start record (the record is running already); a checkpoint after the first batch counts on from 1.
    const records = steps.filter((step): step is Extract<FanOutStep, { next: 'record' }> => step.next === 'record');
    expect(records.map((record) => record.checkpoint.batches)).toEqual([2]);
    expect((steps.at(-1) as Extract<FanOutStep, { next: 'complete' }>).completion).toMatchObject({ candidates: 4, summary: { suspended: 4 } });
  });

  it('operation fan-out × timers and deletion: an operation of one instance (a fired timer, a single delete) records no progress at all', () => {
    const steps = drive(new FanOut({}, { batchesInFlight: 8 }), [['t1']], (ids) => ({ outcomes: ids.map(() => 'transitioned') }));
    expect(steps.map((step) => step.next)).toEqual(['read', 'apply', 'wait', 'complete']);
  });

  it('operation fan-out × kept results: only a batch that is the whole operation, within maxKeptResults, keeps its results for the completion (a resumed one too, unless a batch was counted)', () => {
    const keeps = (fanOut: FanOut, pages: string[][]) =>
      drive(fanOut, pages, (ids) => ({ outcomes: ids.map(() => 'transitioned') }))
        .filter((step): step is Extract<FanOutStep, { next: 'apply' }> => step.next === 'apply')
        .map((step) => step.batch.keepResults ?? false);
    expect(keeps(new FanOut({}, { batchesInFlight: 1, maxKeptResults: 3 }), [['a', 'b', 'c']])).toEqual([true]);
    expect(keeps(new FanOut({}, { batchesInFlight: 1, maxKeptResults: 2 }), [['a', 'b', 'c']])).toEqual([false]);
    expect(keeps(new FanOut({}, { batchesInFlight: 1 }), [['a']])).toEqual([false]);
    expect(keeps(new FanOut({}, { batchesInFlight: 1, maxKeptResults: 3 }), [['a'], ['b']])).toEqual([false, false]);
    // Interrupted before it counted anything, it is the whole operation again; after a counted batch, not.
    const resumed = (batches: number) => new FanOut({ resume: { checkpoint: { batches, pending: ['b'], allFound: true }, totals: emptyTotals() } }, { batchesInFlight: 1, maxKeptResults: 3 });
    expect(keeps(resumed(0), [])).toEqual([true]);
    expect(keeps(resumed(1), [])).toEqual([false]);
  });
});
