/** The records the operation activities write (operation-records.ts), as pure functions of the record they start from. */
import { OperationStatus, TriggerOutcome } from '../../src/engine/model';
import { emptyCost, emptySummary, type StoredOperation } from '../../src/engine/operations';
import { completedRecord, progressedRecord } from '../../src/host/operation-records';
import type { ProgressCheckpoint } from '../../src/host/contracts/operation-activities';

function operation(): StoredOperation {
  const trigger = { id: 'op', name: 'Go', subjects: ['s'] };
  return { id: 'op', triggerId: 'op', trigger, status: OperationStatus.running, createdAt: 't', updatedAt: 't', candidates: 0, summary: emptySummary(), instances: [], etag: 'e' };
}

/** The checkpoint after batch `batches`, which applied one instance. */
function checkpoint(batches: number, instanceId: string): ProgressCheckpoint {
  const finished = { summary: { ...emptySummary(), transitioned: 1 }, instances: [{ instanceId, outcome: TriggerOutcome.transitioned }], candidates: 1 };
  return { batches, pending: [], allFound: false, finished };
}

describe('progressedRecord', () => {
  it('adds the next batch’s results once, and a repeated write of the same checkpoint finds them counted', () => {
    const first = progressedRecord(operation(), { progress: { processed: 1 }, checkpoint: checkpoint(1, 'a') });
    expect(first).toMatchObject({ status: OperationStatus.running, candidates: 1, summary: { transitioned: 1 }, checkpoint: { batches: 1 } });
    expect(first.checkpoint).not.toHaveProperty('finished');
    const repeated = progressedRecord(first, { progress: { processed: 1 }, checkpoint: checkpoint(1, 'a') });
    expect(repeated).toMatchObject({ candidates: 1, summary: { transitioned: 1 } });
    const next = progressedRecord(first, { progress: { processed: 2 }, checkpoint: checkpoint(2, 'b') });
    expect(next).toMatchObject({ candidates: 2, summary: { transitioned: 2 }, checkpoint: { batches: 2 } });
    expect(next.instances.map((result) => result.instanceId)).toEqual(['a', 'b']);
  });

  it('leaves the checkpoint as it was for a write out of order (an earlier run’s), recording only the progress', () => {
    const first = progressedRecord(operation(), { progress: { processed: 1 }, checkpoint: checkpoint(1, 'a') });
    const late = progressedRecord(first, { progress: { processed: 9 }, checkpoint: checkpoint(5, 'z') });
    expect(late).toMatchObject({ progress: { processed: 9 }, candidates: 1, checkpoint: { batches: 1 } });
  });
});

describe('completedRecord', () => {
  it('finishes the record without its progress and checkpoint, succeeded or failed with the error', () => {
    const running = { ...progressedRecord(operation(), { progress: { processed: 1 }, checkpoint: checkpoint(1, 'a') }), etag: 'e' };
    const input = { operationId: 'op', candidates: 1, summary: { transitioned: 1 }, instances: [{ instanceId: 'a', outcome: TriggerOutcome.transitioned }] };
    const { record } = completedRecord(running, input, emptyCost(), false);
    expect(record).toMatchObject({ status: OperationStatus.succeeded, candidates: 1, summary: { transitioned: 1, faulted: 0 } });
    expect(record).not.toHaveProperty('progress');
    expect(record).not.toHaveProperty('checkpoint');
    expect(record).not.toHaveProperty('etag');
    expect(record).not.toHaveProperty('cost');
    expect(completedRecord(running, { ...input, error: 'broken' }, emptyCost(), false).record).toMatchObject({ status: OperationStatus.failed, error: 'broken' });
  });
});
