/**
 * Operation records have a retention of their own (issue 22, group 9): before, they were never deleted,
 * not even by the retention purge, so trigger parameters outlived purged instances.
 */
import { OperationStatus } from '../../src/engine/model';
import { DEFAULT_OPERATION_RETENTION_DAYS, operationRetentionDays, purgeFinishedOperations } from '../../src/host/retention';
import { InMemoryOperationStore } from '../../src/testing';
import { makeOperation } from '../storage/fixtures';

describe('operation retention', () => {
  it(`is ${DEFAULT_OPERATION_RETENTION_DAYS} days by default, set by SIGNALBOX_OPERATION_RETENTION_DAYS, and 0 keeps records forever`, () => {
    expect(DEFAULT_OPERATION_RETENTION_DAYS).toBe(30);
    expect(operationRetentionDays({})).toBe(30);
    expect(operationRetentionDays({ SIGNALBOX_OPERATION_RETENTION_DAYS: '' })).toBe(30);
    expect(operationRetentionDays({ SIGNALBOX_OPERATION_RETENTION_DAYS: '7' })).toBe(7);
    expect(operationRetentionDays({ SIGNALBOX_OPERATION_RETENTION_DAYS: '0' })).toBeUndefined();
    expect(() => operationRetentionDays({ SIGNALBOX_OPERATION_RETENTION_DAYS: 'soon' })).toThrow(/SIGNALBOX_OPERATION_RETENTION_DAYS/);
  });

  it('deletes finished operation records last changed before the retention, and never an unfinished one', async () => {
    const store = new InMemoryOperationStore();
    const day = (date: string) => `${date}T00:00:00.000Z`;
    await store.create(makeOperation('old-succeeded', { status: OperationStatus.succeeded, updatedAt: day('2026-01-01') }));
    await store.create(makeOperation('old-failed', { status: OperationStatus.failed, updatedAt: day('2026-01-10') }));
    await store.create(makeOperation('old-running', { status: OperationStatus.running, updatedAt: day('2026-01-01') }));
    await store.create(makeOperation('old-not-started', { status: OperationStatus.notStarted, updatedAt: day('2026-01-01') }));
    await store.create(makeOperation('recent', { status: OperationStatus.succeeded, updatedAt: day('2026-02-20') }));

    const purged = await purgeFinishedOperations(store, 30, new Date(day('2026-03-01')));

    expect(purged).toBe(2);
    for (const gone of ['old-succeeded', 'old-failed']) expect(await store.get(gone)).toBeUndefined();
    for (const kept of ['old-running', 'old-not-started', 'recent']) expect(await store.get(kept)).toBeDefined();
  });
});
