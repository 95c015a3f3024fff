/** @module Operations: the long-running-operation record of one trigger's dispatch. */
import type { TraceEntry } from './decision-trace';
import { TriggerOutcome, type OperationStatus } from './enums';
import type { Trigger } from './trigger';

/** At most this many per-instance results are kept on an operation; the summary counts all. */
export const MAX_OPERATION_RESULTS = 1000;

export interface InstanceResult {
  readonly instanceId: string;
  readonly outcome: TriggerOutcome;
  readonly transitionId?: string;
  readonly fromStateId?: string;
  readonly toStateId?: string;
  /** Only for `faulted`. */
  readonly error?: string;
  /**
   * Only for `duplicate`: what the trigger did when it was applied, from the instance's own record
   * (instance.ts, `appliedTriggers`).
   */
  readonly applied?: Omit<InstanceResult, 'instanceId' | 'applied' | 'trace'>;
  /** The conditions evaluated, in order (decision-trace.ts); absent when none were (duplicate, notActive, ...). */
  readonly trace?: readonly TraceEntry[];
}

/**
 * The result an operation records for an instance. Within one operation (whose id is its trigger's id),
 * a `duplicate` can only come from the operation's own earlier attempt (a retried activity, a run resumed
 * after a crash), so the operation reports what that attempt did, as the instance recorded it.
 */
export function operationResult(result: InstanceResult): InstanceResult {
  if (result.outcome !== TriggerOutcome.duplicate || !result.applied) return result;
  return { instanceId: result.instanceId, ...result.applied };
}

export type OutcomeSummary = Record<TriggerOutcome, number>;

export function emptySummary(): OutcomeSummary {
  return Object.fromEntries(Object.values(TriggerOutcome).map((outcome) => [outcome, 0])) as OutcomeSummary;
}

export interface Operation {
  readonly id: string;
  readonly triggerId: string;
  /** The trigger itself, kept so an unfinished operation can be resumed after a crash. */
  readonly trigger: Trigger;
  readonly status: OperationStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Instances the trigger was offered to. */
  readonly candidates: number;
  readonly summary: OutcomeSummary;
  /** The first MAX_OPERATION_RESULTS results. */
  readonly instances: readonly InstanceResult[];
  /** Only when status is `failed`. */
  readonly error?: string;
}

export interface StoredOperation extends Operation {
  readonly etag: string;
}

/** What an operation has counted so far: the summary of all results, the first of them, how many. */
export interface OperationTotals {
  readonly summary: OutcomeSummary;
  /** At most MAX_OPERATION_RESULTS, in the order they were added. */
  readonly instances: readonly InstanceResult[];
  readonly candidates: number;
}

export function emptyTotals(): OperationTotals {
  return { summary: emptySummary(), instances: [], candidates: 0 };
}

/** Adds `more` to `into`, keeping the first MAX_OPERATION_RESULTS results (pure). */
export function mergeTotals(into: OperationTotals, more: OperationTotals): OperationTotals {
  const summary = { ...into.summary };
  for (const [outcome, count] of Object.entries(more.summary) as [TriggerOutcome, number][]) summary[outcome] += count;
  const room = Math.max(0, MAX_OPERATION_RESULTS - into.instances.length);
  return { summary, instances: [...into.instances, ...more.instances.slice(0, room)], candidates: into.candidates + more.candidates };
}

/** Adds results to the totals (pure). */
export function accumulateResults(into: OperationTotals, results: readonly InstanceResult[]): OperationTotals {
  const summary = emptySummary();
  const reported = results.map(operationResult);
  for (const result of reported) summary[result.outcome] += 1;
  return mergeTotals(into, { summary, instances: reported, candidates: results.length });
}
