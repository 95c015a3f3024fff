/** @module Operations: the long-running-operation record of one trigger's dispatch. */
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
  readonly applied?: Omit<InstanceResult, 'instanceId' | 'applied'>;
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
  /** A hash of the trigger's body, so a repeat of its id with another body is refused (host/trigger-fingerprint.ts). */
  readonly triggerFingerprint?: string;
  readonly status: OperationStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Instances the trigger was offered to. */
  readonly candidates: number;
  readonly summary: OutcomeSummary;
  /** The first MAX_OPERATION_RESULTS results (fewer when they would not fit: `instancesTruncated`). */
  readonly instances: readonly InstanceResult[];
  /** Only when status is `failed`. */
  readonly error?: string;
  /**
   * True when `instances` does not hold every result (past MAX_OPERATION_RESULTS, or trimmed so the record
   * fits its store: see fitOperation); `summary` still counts them all.
   */
  readonly instancesTruncated?: boolean;
  /** Start-ups that resumed this unfinished operation (local host); past a small limit it fails as poison. */
  readonly resumes?: number;
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

/** Characters kept of one instance's error message on an operation record. */
export const MAX_RESULT_ERROR_LENGTH = 500;
/**
 * Characters of JSON the per-instance results of one operation may take. Table Storage stores strings
 * as UTF-16 and an entity is at most 1 MiB: this leaves room for the trigger (at most 64 KiB) and the rest.
 */
export const MAX_OPERATION_RESULTS_LENGTH = 320_000;

function shortened(message: string, limit: number): string {
  return message.length <= limit ? message : `${message.slice(0, limit - 15)}… (truncated)`;
}

/**
 * The operation as its store keeps it: error messages shortened, and the per-instance results cut to
 * fit MAX_OPERATION_RESULTS_LENGTH, saying so in `instancesTruncated`. An operation whose record would
 * not fit would otherwise never finish (its final write refused, it stays `running`) (pure).
 */
export function fitOperation<T extends Operation>(operation: T): T {
  let length = 0;
  const kept: InstanceResult[] = [];
  for (const result of operation.instances) {
    const fitted = result.error !== undefined && result.error.length > MAX_RESULT_ERROR_LENGTH ? { ...result, error: shortened(result.error, MAX_RESULT_ERROR_LENGTH) } : result;
    length += JSON.stringify(fitted).length + 1;
    if (length > MAX_OPERATION_RESULTS_LENGTH) break;
    kept.push(fitted);
  }
  const counted = Object.values(operation.summary).reduce((sum, count) => sum + count, 0);
  const truncated = kept.length < operation.instances.length || kept.length < counted;
  const changed = truncated !== Boolean(operation.instancesTruncated) || kept.some((result, index) => result !== operation.instances[index]);
  const error = operation.error !== undefined && operation.error.length > 4 * MAX_RESULT_ERROR_LENGTH ? shortened(operation.error, 4 * MAX_RESULT_ERROR_LENGTH) : operation.error;
  if (!changed && error === operation.error) return operation;
  const { instancesTruncated: _previous, ...rest } = operation;
  return { ...rest, instances: kept, ...(error !== undefined ? { error } : {}), ...(truncated ? { instancesTruncated: true } : {}) } as unknown as T;
}
