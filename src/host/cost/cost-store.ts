/**
 * @module Where the hosts keep what operations cost per workflow per day (decision 0021):
 * TableCostStore on Azure Storage (src/storage/table-cost-store.ts) satisfies it.
 */
import type { OperationCost } from '../../engine/operations';
import type { CostQuery, DailyCost } from '../../storage/table-cost-store';

export type { CostQuery, DailyCost };

export interface CostStore {
  /** Adds `cost` of `operations` operations to a workflow's (`''`: none) row of `day` (yyyy-mm-dd, UTC); a repeat of `additionId` adds nothing. */
  add(day: string, workflowId: string, additionId: string, cost: OperationCost, operations?: number): Promise<void>;
  /** The rows from `query.sinceDay` on. */
  list(query: CostQuery): Promise<DailyCost[]>;
}
