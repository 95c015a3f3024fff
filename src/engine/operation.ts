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

/** Adds results to a summary and to the bounded result list (pure). */
export function accumulateResults(
  into: { summary: OutcomeSummary; instances: readonly InstanceResult[]; candidates: number },
  results: readonly InstanceResult[],
): { summary: OutcomeSummary; instances: InstanceResult[]; candidates: number } {
  const summary = { ...into.summary };
  for (const result of results) summary[result.outcome] += 1;
  const room = Math.max(0, MAX_OPERATION_RESULTS - into.instances.length);
  return { summary, instances: [...into.instances, ...results.slice(0, room)], candidates: into.candidates + results.length };
}
