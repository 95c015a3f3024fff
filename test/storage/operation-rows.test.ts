/** The pure row layout of operations on Table Storage (operation-rows.ts): keys that sort and fit, and the filters built on them. */
import { OperationStatus } from '../../src/engine/model';
import { invertedTime, listingFilter, recordsByStatusFilter, resultRowKey } from '../../src/storage/operation-rows';
import { MAX_TABLE_KEY_LENGTH } from '../../src/storage/keys';

describe('operation rows', () => {
  it('inverts creation times so that newer sorts first, 13 digits always', () => {
    const older = invertedTime('2026-01-01T00:00:00.000Z');
    const newer = invertedTime('2026-01-01T00:00:00.001Z');
    expect(newer < older).toBe(true);
    expect([older, newer, invertedTime('not a time')].map((key) => key.length)).toEqual([13, 13, 13]);
    expect(invertedTime('not a time')).toBe('9999999999999');
  });

  it('keeps a result row key within the key limit, distinct for long instance ids that share a prefix', () => {
    // 511 characters encoded: an instance key of its own, over the limit with the row prefix.
    const long = 'x'.repeat(MAX_TABLE_KEY_LENGTH - 2);
    const keys = [resultRowKey(`${long}a`), resultRowKey(`${long}b`)];
    expect(keys.every((key) => key.length <= MAX_TABLE_KEY_LENGTH && key.startsWith('~r'))).toBe(true);
    expect(keys[0]).not.toBe(keys[1]);
    expect(resultRowKey('claim-1')).toBe('~rclaim-1');
  });

  it('filters listing rows by creation-time range and columns, and records by status', () => {
    const filter = listingFilter({ createdSince: '2026-01-01T00:00:00.000Z', status: OperationStatus.running });
    expect(filter).toContain(`RowKey lt '${invertedTime('2026-01-01T00:00:00.000Z')}.'`);
    expect(filter).toContain(`status eq 'running'`);
    expect(filter).not.toContain('workflowId');
    const records = recordsByStatusFilter([OperationStatus.notStarted, OperationStatus.running], '2026-02-01T00:00:00.000Z');
    expect(records).toContain(`(status eq 'notStarted' or status eq 'running')`);
    expect(records).toContain(`updatedAt lt '2026-02-01T00:00:00.000Z'`);
  });
});
