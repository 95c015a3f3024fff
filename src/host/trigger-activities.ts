/**
 * @module The units of work of one trigger's dispatch, shared by both hosts: the durable orchestrator
 * on Azure calls them as activities, the local server's operation runner calls them directly. Inputs
 * and outputs are small, JSON-serialisable values (ids, not payloads), as durable history requires.
 */
import type { InstanceResult, OutcomeSummary } from '../engine/operation';
import type { Trigger } from '../engine/trigger';

/** Page size of candidate lookups; also the size of one durable sub-orchestration's fan-out. */
export const CANDIDATE_PAGE_SIZE = 500;

export interface BeginOperationOutput {
  /** The subjects to look candidates up by (the trigger itself stays in the operation store). */
  readonly subjects: readonly string[];
  /** False when the operation had already finished: nothing more to do. */
  readonly shouldRun: boolean;
}

export interface FindCandidatesInput {
  readonly subjects: readonly string[];
  readonly continuationToken?: string;
}

export interface FindCandidatesOutput {
  readonly instanceIds: string[];
  readonly continuationToken?: string;
}

export interface ApplyTriggerInput {
  readonly operationId: string;
  readonly instanceId: string;
}

export interface CompleteOperationInput {
  readonly operationId: string;
  readonly candidates: number;
  readonly summary: OutcomeSummary;
  readonly instances: readonly InstanceResult[];
  /** Some results' traces were left out (operation.ts, MAX_TRACED_RESULTS). */
  readonly tracesTruncated?: boolean;
  /** Present when the dispatch could not finish: the operation is marked failed. */
  readonly error?: string;
}

/** Activity names as registered with durable-functions. */
export const ActivityName = {
  beginOperation: 'beginOperation',
  findCandidates: 'findCandidates',
  applyTrigger: 'applyTrigger',
  completeOperation: 'completeOperation',
} as const;

export interface TriggerActivities {
  /** Marks the operation running and returns what the orchestration needs. */
  beginOperation(operationId: string): Promise<BeginOperationOutput>;
  findCandidates(input: FindCandidatesInput): Promise<FindCandidatesOutput>;
  /**
   * Applies the operation's trigger to one instance under its lease. Throws only retryable errors
   * (lease unavailable or lost, transient storage faults): the caller retries them.
   */
  applyTrigger(input: ApplyTriggerInput): Promise<InstanceResult>;
  /** Records the summary and results and marks the operation succeeded (or failed with `error`). */
  completeOperation(input: CompleteOperationInput): Promise<void>;
}

export type { Trigger };
