/**
 * Issue 24: progress moves while an operation's page is applied, not only between pages of 500, so an
 * operation under 500 instances shows progress before it is done (API `progress`, the CLI bar, the
 * console all read it). Writes are throttled by time (PROGRESS_INTERVAL_IN_MS on the runner's clock),
 * so a fast operation costs few writes. The clock here is manual: each application takes 600 ms of it.
 */
import { OperationStatus, TriggerOutcome } from '../../src/engine/model';
import { emptySummary, type InstanceResult, type StoredOperation } from '../../src/engine/operations';
import { LocalOperationRunner, PROGRESS_INTERVAL_IN_MS } from '../../src/host/local/local-operation-runner';
import { silentLogger } from '../../src/host/local/logger';
import type { CompleteOperationInput, RecordProgressInput, OperationActivities } from '../../src/host/contracts/operation-activities';

function setup(instanceIds: string[], applicationInMs: number) {
  let now = Date.parse('2026-05-01T00:00:00Z');
  const events: string[] = [];
  const progress: RecordProgressInput['progress'][] = [];
  const record: StoredOperation = {
    id: 'op',
    triggerId: 'op',
    trigger: { id: 'op', name: 'Go', subjects: ['s'] },
    status: OperationStatus.notStarted,
    createdAt: 't',
    updatedAt: 't',
    candidates: 0,
    summary: emptySummary(),
    instances: [],
    etag: 'e',
  };
  const activities: OperationActivities = {
    beginOperation: async () => ({ subjects: ['s'], shouldRun: true }),
    findCandidates: async () => ({ instanceIds }),
    applyOperation: async ({ instanceId }): Promise<InstanceResult> => {
      now += applicationInMs;
      events.push(`apply ${instanceId}`);
      return { instanceId, outcome: TriggerOutcome.transitioned };
    },
    recordProgress: async ({ progress: at }) => {
      events.push(`progress ${at.processed}`);
      progress.push(at);
    },
    completeOperation: async (input: CompleteOperationInput) => {
      events.push(`complete ${input.candidates}`);
    },
  };
  const runner = new LocalOperationRunner(silentLogger, () => activities, { concurrency: 1, now: () => new Date(now) });
  return { runner, record, events, progress };
}

describe('progress of an operation under one page', () => {
  it('is recorded as instances are applied, at most once per interval, and never after completion', async () => {
    expect(PROGRESS_INTERVAL_IN_MS).toBe(1000);
    const { runner, record, events, progress } = setup(['a', 'b', 'c', 'd', 'e', 'f'], 600);
    await runner.start('op', { operation: record });
    await runner.whenDone('op');
    // Before the page (the total is known: one page), then as instances are applied: about every second of
    // the clock (every second or third application: 3.6 s in all), never for the last one (completion follows).
    expect(progress[0]).toEqual({ processed: 0, total: 6 });
    const during = progress.slice(1);
    expect(during.length).toBeGreaterThanOrEqual(2);
    expect(during.length).toBeLessThanOrEqual(Math.floor((6 * 600) / PROGRESS_INTERVAL_IN_MS));
    for (const [index, at] of during.entries()) {
      expect(at.total).toBe(6);
      expect(at.processed).toBeGreaterThan(index === 0 ? 0 : during[index - 1]!.processed);
      expect(at.processed).toBeLessThan(6);
    }
    expect(events.at(-1)).toBe('complete 6');
  });

  it('a fast operation writes no progress beyond the first', async () => {
    const { runner, record, progress } = setup(['a', 'b', 'c', 'd'], 0);
    await runner.start('op', { operation: record });
    await runner.whenDone('op');
    expect(progress).toEqual([{ processed: 0, total: 4 }]);
  });
});
