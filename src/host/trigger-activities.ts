/**
 * @module The units of work of one operation's fan-out, shared by both hosts: the durable orchestrator
 * on Azure calls them as activities, the local server's operation runner calls them directly. One
 * fan-out serves every kind of operation: a trigger's candidates come from the interest index, a
 * migration's or bulk action's from its selection, and `applyTrigger` applies the operation's work (the
 * trigger, the migration, the bulk action) to one instance. Inputs and outputs are small,
 * JSON-serialisable values (ids, not payloads), as durable history requires.
 */
import type { OperationOutcome } from '../engine/enums';
import type { InstanceResult, OperationProgress, OutcomeSummary } from '../engine/operation';
import type { InstanceSelection } from '../engine/operation-work';
import type { Trigger } from '../engine/trigger';

/** Page size of candidate lookups; also the size of one durable sub-orchestration's fan-out. */
export const CANDIDATE_PAGE_SIZE = 500;

/** Where an operation's candidates come from: a trigger's subjects, or the selection of a migration or bulk action. */
export interface CandidateSource {
  /** The subjects to look candidates up by (the trigger itself stays in the operation store); empty for a selection. */
  readonly subjects: readonly string[];
  readonly selection?: InstanceSelection;
  /** A bulk delete lists instances a crashed deletion left marked, so that running it again finishes them. */
  readonly includeDeleting?: boolean;
}

export interface BeginOperationOutput extends CandidateSource {
  /** False when the operation had already finished: nothing more to do. */
  readonly shouldRun: boolean;
  /** The outcomes its summary lists; a trigger's when absent. */
  readonly outcomes?: readonly OperationOutcome[];
}

export interface FindCandidatesInput extends CandidateSource {
  readonly continuationToken?: string;
}

export interface RecordProgressInput {
  readonly operationId: string;
  readonly progress: OperationProgress;
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
  recordProgress: 'recordProgress',
} as const;

export interface TriggerActivities {
  /** Marks the operation running and returns what the orchestration needs. */
  beginOperation(operationId: string): Promise<BeginOperationOutput>;
  findCandidates(input: FindCandidatesInput): Promise<FindCandidatesOutput>;
  /**
   * Applies the operation to one instance under its lease: its trigger, migration or bulk action. Throws
   * only retryable errors (lease unavailable or lost, transient storage faults): the caller retries them.
   */
  applyTrigger(input: ApplyTriggerInput): Promise<InstanceResult>;
  /** Records the summary and results and marks the operation succeeded (or failed with `error`). */
  completeOperation(input: CompleteOperationInput): Promise<void>;
  /** Records how far a running operation got (`progress` on the operation), between pages. */
  recordProgress(input: RecordProgressInput): Promise<void>;
}

export type { Trigger };
