/**
 * Decision 0021, the arithmetic (pure): an operation's cost split between the workflows it reached adds up
 * to the whole, carried through the fan-out's totals like the outcome counts, and bounded on the record.
 */
import {
  OTHER_WORKFLOWS,
  addCost,
  apportionCost,
  boundedWorkflowCosts,
  countOutcomes,
  countedAsActivity,
  emptyCost,
  emptyTotals,
  mergeTotals,
  splitCost,
  sumCosts,
  type OperationCost,
} from '../../src/engine/operations';

const cost = (tableWrite: number, blobLease = 0, calls = 0): OperationCost => ({
  ...emptyCost(),
  storage: { ...emptyCost().storage, tableWrite, blobLease },
  outbound: { calls, bytesSent: calls * 10, bytesReceived: 0 },
});

describe('splitCost', () => {
  it('divides every count into parts that add up to it, the remainder to the first parts', () => {
    const parts = splitCost(cost(7, 2, 1), 3);
    expect(parts.map((part) => part.storage.tableWrite)).toEqual([3, 2, 2]);
    expect(parts.map((part) => part.storage.blobLease)).toEqual([1, 1, 0]);
    expect(sumCosts(parts)).toEqual(cost(7, 2, 1));
  });
});

describe('apportionCost', () => {
  it("keeps each workflow's applications and shares the rest evenly among the workflows reached, in id order", () => {
    const split = apportionCost(cost(9, 4), { b: cost(2, 1), a: cost(2, 1) });
    expect(split).toEqual({ a: cost(5, 2), b: cost(4, 2) });
    expect(sumCosts(Object.values(split))).toEqual(cost(9, 4));
  });

  it("gives the rest to a migration's or bulk action's own workflow, and to '' when nothing was reached", () => {
    expect(apportionCost(cost(5), { a: cost(1) }, 'own')).toEqual({ a: cost(1), own: cost(4) });
    expect(apportionCost(cost(3), undefined)).toEqual({ '': cost(3) });
  });
});

describe('costs in the fan-out totals', () => {
  it('counts each application under its workflow, merges batches, and counts an application as an activity', () => {
    const first = countOutcomes(emptyTotals([]), [
      { outcome: 'transitioned', cost: cost(2, 2), workflowId: 'a' },
      { outcome: 'notFound', cost: cost(1) },
    ]);
    expect(first.costByWorkflow).toEqual({ a: cost(2, 2), '': cost(1) });
    const second = countOutcomes(emptyTotals([]), [countedAsActivity({ outcome: 'transitioned', cost: cost(2, 2), workflowId: 'a' })]);
    expect(second.costByWorkflow).toEqual({ a: { ...cost(2, 2), activities: 1 } });
    expect(mergeTotals(first, second).costByWorkflow).toEqual({ a: { ...addCost(cost(2, 2), cost(2, 2)), activities: 1 }, '': cost(1) });
    expect(countOutcomes(emptyTotals([]), [{ outcome: 'transitioned' }]).costByWorkflow).toBeUndefined();
  });
});

describe('boundedWorkflowCosts', () => {
  it('keeps the costliest and sums the rest, so that nothing is lost from the total', () => {
    const many = Object.fromEntries(Array.from({ length: 5 }, (_, index) => [`w${index}`, cost(index + 1)]));
    const bounded = boundedWorkflowCosts(many, 3);
    expect(Object.keys(bounded)).toEqual(['w4', 'w3', OTHER_WORKFLOWS]);
    expect(bounded[OTHER_WORKFLOWS]).toEqual(cost(1 + 2 + 3));
    expect(sumCosts(Object.values(bounded))).toEqual(sumCosts(Object.values(many)));
    expect(boundedWorkflowCosts({ a: cost(1) }, 3)).toEqual({ a: cost(1) });
  });
});
