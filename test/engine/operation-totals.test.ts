/** An operation's totals (operation-totals.ts): counts add up, results are kept up to their bound, duplicates report their first attempt. */
import { accumulateResults, countOutcomes, countsToAdd, emptyTotals, MAX_OPERATION_RESULTS, mergeTotals, operationResult, type InstanceResult } from '../../src/engine/operations';

const result = (instanceId: string, outcome: InstanceResult['outcome'] = 'transitioned'): InstanceResult => ({ instanceId, outcome }) as InstanceResult;

describe('operation totals', () => {
  it('counts every result but keeps only the first MAX_OPERATION_RESULTS', () => {
    const many = Array.from({ length: MAX_OPERATION_RESULTS + 5 }, (_, index) => result(`i${index}`));
    const totals = accumulateResults(emptyTotals(), many);
    expect(totals.summary.transitioned).toBe(MAX_OPERATION_RESULTS + 5);
    expect(totals.candidates).toBe(MAX_OPERATION_RESULTS + 5);
    expect(totals.instances).toHaveLength(MAX_OPERATION_RESULTS);
    expect(totals.instances.at(-1)?.instanceId).toBe(`i${MAX_OPERATION_RESULTS - 1}`);
  });

  it('adds summaries outcome by outcome', () => {
    const merged = mergeTotals(accumulateResults(emptyTotals(), [result('a')]), accumulateResults(emptyTotals(), [result('b'), result('c', 'notInterested')]));
    expect(merged.summary).toMatchObject({ transitioned: 2, notInterested: 1 });
    expect(merged.instances.map((entry) => entry.instanceId)).toEqual(['a', 'b', 'c']);
  });

  it('reports a duplicate as what its earlier attempt did', () => {
    const duplicate = { instanceId: 'a', outcome: 'duplicate', applied: { outcome: 'transitioned', toStateId: 'done' } } as unknown as InstanceResult;
    expect(operationResult(duplicate)).toEqual({ instanceId: 'a', outcome: 'transitioned', toStateId: 'done' });
    expect(operationResult(result('b'))).toEqual(result('b'));
  });

  it('counts applied outcomes and keeps their handed-back results in instance id order', () => {
    const totals = countOutcomes(emptyTotals(), [{ outcome: 'transitioned', result: result('b') }, { outcome: 'transitioned' }, { outcome: 'transitioned', result: result('a') }]);
    expect(totals.summary.transitioned).toBe(3);
    expect(totals.instances.map((entry) => entry.instanceId)).toEqual(['a', 'b']);
  });

  it('carries only counts once the record holds all the results it keeps', () => {
    const batch = accumulateResults(emptyTotals(), [result('a')]);
    expect(countsToAdd(batch, MAX_OPERATION_RESULTS).instances).toEqual([]);
    expect(countsToAdd(batch, 0)).toBe(batch);
  });
});
