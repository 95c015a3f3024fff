/**
 * @module What an operation cost, in counts (decision 0021): storage requests by kind, outbound calls and
 * their bytes, durable activities started. Pure arithmetic on plain JSON values: the hosts count (a
 * pipeline policy per storage client, src/host/cost), the fan-out carries the per-instance counts in its
 * totals, the record keeps them, and a price table (src/host/cost/price-table.ts) turns them into money.
 */

import type { OperationCost, StorageRequestCounts, StorageRequestKind } from '../model/cost';
import type { Instance } from '../model/instance';

export type { OperationCost, OutboundCounts, StorageRequestCounts, StorageRequestKind } from '../model/cost';

export const STORAGE_REQUEST_KINDS: readonly StorageRequestKind[] = ['tableRead', 'tableQuery', 'tableWrite', 'blobLease', 'blobRead', 'blobWrite'];

/** Costs by the workflow they are attributed to (`''`: no workflow, e.g. a trigger that reached no instance). */
export type WorkflowCosts = Readonly<Record<string, OperationCost>>;

export function emptyCost(): OperationCost {
  return {
    storage: { tableRead: 0, tableQuery: 0, tableWrite: 0, blobLease: 0, blobRead: 0, blobWrite: 0 },
    outbound: { calls: 0, bytesSent: 0, bytesReceived: 0 },
    activities: 0,
  };
}

function combine(a: OperationCost, b: OperationCost, sign: 1 | -1): OperationCost {
  const storage = Object.fromEntries(STORAGE_REQUEST_KINDS.map((kind) => [kind, (a.storage[kind] ?? 0) + sign * (b.storage[kind] ?? 0)])) as unknown as StorageRequestCounts;
  return {
    storage,
    outbound: {
      calls: a.outbound.calls + sign * b.outbound.calls,
      bytesSent: a.outbound.bytesSent + sign * b.outbound.bytesSent,
      bytesReceived: a.outbound.bytesReceived + sign * b.outbound.bytesReceived,
    },
    activities: a.activities + sign * b.activities,
  };
}

export function addCost(a: OperationCost, b: OperationCost): OperationCost {
  return combine(a, b, 1);
}

/** `a − b`, each count at least 0 (b is a part of a). */
export function subtractCost(a: OperationCost, b: OperationCost): OperationCost {
  return mapCounts(combine(a, b, -1), (count) => Math.max(0, count));
}

export function sumCosts(costs: Iterable<OperationCost>): OperationCost {
  let total = emptyCost();
  for (const cost of costs) total = addCost(total, cost);
  return total;
}

/** Storage requests of every kind together. */
export function storageRequestsOf(cost: OperationCost): number {
  return STORAGE_REQUEST_KINDS.reduce((sum, kind) => sum + cost.storage[kind], 0);
}

export function isEmptyCost(cost: OperationCost): boolean {
  return storageRequestsOf(cost) === 0 && cost.outbound.calls === 0 && cost.outbound.bytesSent === 0 && cost.outbound.bytesReceived === 0 && cost.activities === 0;
}

function mapCounts(cost: OperationCost, map: (count: number, index: number) => number): OperationCost {
  let index = 0;
  const next = (count: number) => map(count, index++);
  return {
    storage: Object.fromEntries(STORAGE_REQUEST_KINDS.map((kind) => [kind, next(cost.storage[kind])])) as unknown as StorageRequestCounts,
    outbound: { calls: next(cost.outbound.calls), bytesSent: next(cost.outbound.bytesSent), bytesReceived: next(cost.outbound.bytesReceived) },
    activities: next(cost.activities),
  };
}

export function addWorkflowCosts(a: WorkflowCosts | undefined, b: WorkflowCosts | undefined): WorkflowCosts | undefined {
  if (!b || Object.keys(b).length === 0) return a;
  const merged: Record<string, OperationCost> = { ...a };
  for (const [workflowId, cost] of Object.entries(b)) merged[workflowId] = merged[workflowId] ? addCost(merged[workflowId], cost) : cost;
  return merged;
}

/**
 * Splits `cost` into `parts` costs whose counts add up to it exactly: each count divided evenly, the
 * remainder one each to the first parts (pure).
 */
export function splitCost(cost: OperationCost, parts: number): OperationCost[] {
  if (parts <= 1) return [cost];
  return Array.from({ length: parts }, (_, part) => mapCounts(cost, (count) => Math.floor(count / parts) + (part < count % parts ? 1 : 0)));
}

/**
 * The operation's whole cost by workflow (pure): each workflow keeps what its instances' applications
 * cost, and the rest (`total` less those: recording the operation, finding its candidates, progress and
 * completion writes, durable activities of its own) is shared evenly among the workflows it reached, in
 * id order, or goes to `ownWorkflowId` (a migration's or bulk action's) when it has one, or to `''` when
 * it reached none. The parts add up to `total`.
 */
export function apportionCost(total: OperationCost, byInstances: WorkflowCosts | undefined, ownWorkflowId?: string): WorkflowCosts {
  const attributed = byInstances ?? {};
  const overhead = subtractCost(total, sumCosts(Object.values(attributed)));
  const reached = Object.keys(attributed).sort();
  const sharers = ownWorkflowId !== undefined ? [ownWorkflowId] : reached.length > 0 ? reached : [''];
  const shares = splitCost(overhead, sharers.length);
  const result: Record<string, OperationCost> = { ...attributed };
  sharers.forEach((workflowId, index) => {
    result[workflowId] = result[workflowId] ? addCost(result[workflowId], shares[index]!) : shares[index]!;
  });
  return result;
}

/** Workflows an operation's record names in its `costByWorkflow`; the rest are summed under OTHER_WORKFLOWS. */
export const MAX_COSTED_WORKFLOWS = 100;
/** The key of the workflows past MAX_COSTED_WORKFLOWS on a record (a workflow id never starts with `~`). */
export const OTHER_WORKFLOWS = '~others';

/**
 * At most `max` entries, so the record stays small however many workflows a broadcast reached: the
 * `max − 1` costliest (by storage requests, then id) and the rest summed under OTHER_WORKFLOWS (pure).
 */
export function boundedWorkflowCosts(costs: WorkflowCosts, max = MAX_COSTED_WORKFLOWS): WorkflowCosts {
  const entries = Object.entries(costs);
  if (entries.length <= max) return costs;
  entries.sort(([a, x], [b, y]) => storageRequestsOf(y) - storageRequestsOf(x) || (a < b ? -1 : a > b ? 1 : 0));
  const kept = entries.slice(0, max - 1);
  const others = sumCosts(entries.slice(max - 1).map(([, cost]) => cost));
  return Object.fromEntries([...kept, [OTHER_WORKFLOWS, others]]);
}

/** The save itself: one entity-group transaction. */
const SAVE_REQUEST: OperationCost = { ...emptyCost(), storage: { ...emptyCost().storage, tableWrite: 1 } };

/**
 * The instance to save with its running totals (decision 0021): those it was loaded with, plus what this
 * application sent so far and the save. A save that fails (412) is retried from a reload, whose totals
 * do not hold it, with the counts so far again, so nothing is counted twice (pure).
 */
export function withRunningCost<T extends Instance>(stored: Instance, next: T, counted: OperationCost | undefined): T {
  if (!counted) return next;
  return { ...next, cost: addCost(addCost(stored.cost ?? emptyCost(), counted), SAVE_REQUEST) };
}
