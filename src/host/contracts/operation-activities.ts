/**
 * @module The activity contract of one operation's fan-out, the only thing both hosts drive: begin, find
 * a page of candidates, apply the operation to each instance of a page (a batch), record progress,
 * complete; every call retried by ACTIVITY_RETRY_POLICY. The durable orchestrator
 * (functions/operation-orchestrator.ts, apply-operation-batch.ts) calls them as activities; the local
 * server's runner (local-operation-runner.ts) calls them directly. One fan-out serves every kind of
 * operation: a trigger's candidates come from the interest index, a migration's or bulk action's from
 * its selection, and `applyOperation` (the `applyTrigger` activity) applies the operation's work (the trigger, the migration, the bulk
 * action) to one instance. Inputs and outputs are small, JSON-serialisable values (ids, not payloads),
 * as durable history requires.
 */
import type { OperationOutcome } from '../../engine/model/enums';
import type { AppliedOutcome, InstanceResult, OperationCheckpoint, OperationProgress, OperationTotals, OutcomeSummary, StoredOperation } from '../../engine/operations/operation';
import type { OperationCost, WorkflowCosts } from '../../engine/operations/operation-cost';
import type { ProgressCheckpoint } from '../../engine/operations/fan-out';
import type { InstanceSelection } from '../../engine/decide/operation-work';
import type { Trigger } from '../../engine/model/trigger';
import type { SlotQueuedVerdict } from '../../engine/model/errors';
import type { TenantScoped } from './tenant-scope';

/** Page size of candidate lookups; also the size of one durable sub-orchestration's fan-out. */
export const CANDIDATE_PAGE_SIZE = 500;

/** Where an operation's candidates come from: a trigger's subjects, or the selection of a migration or bulk action. */
export interface CandidateSource {
  /** The subjects to look candidates up by (the trigger itself stays in the operation store); empty for a selection. */
  readonly subjects: readonly string[];
  readonly selection?: InstanceSelection;
  /** A bulk delete lists instances a crashed deletion left marked, so that running it again finishes them. */
  readonly includeDeleting?: boolean;
  /**
   * The candidates themselves, when the operation names them: a timer's trigger is addressed to its own
   * instance, so it needs no interest-index lookup (a fired timer costs no more than a trigger).
   */
  readonly instanceIds?: readonly string[];
}

/**
 * What `beginOperation` takes: the operation id (all the durable orchestrator sends), or, in process,
 * the id with what the caller has in hand.
 */
export type BeginOperationInput =
  | string
  | {
      readonly operationId: string;
      /** The operation's tenant (tenant-scope.ts). */
      readonly tenantId?: string;
      /** The record just written or read (the local runner has it from the submitter), so begin need not read it. */
      readonly operation?: StoredOperation;
      /**
       * Leave the record `notStarted` for now: the first `recordProgress` marks it `running`. A run that
       * records no progress (one page of one instance: about as fast as that write) goes from
       * `notStarted` to finished with one write. @default false (begin marks it running)
       */
      readonly deferRunning?: boolean;
      /**
       * `operation` is not in storage yet (the local runner's `LaunchOptions.unrecorded`): its first write
       * creates the record, or completes the unfinished one recorded meanwhile for the same trigger (the
       * client's wait ran out), and leaves a finished one as it is. Needs `operation`. @default false
       */
      readonly unrecorded?: boolean;
    };

export interface BeginOperationOutput extends CandidateSource, CostedOutput {
  /** False when the operation had already finished: nothing more to do. */
  readonly shouldRun: boolean;
  /** The outcomes its summary lists; a trigger's when absent. */
  readonly outcomes?: readonly OperationOutcome[];
  /**
   * Present when an earlier run recorded how far it got: the run goes on from `checkpoint` (its pending
   * instances first, then the pages from its token) with `totals`, the results of every batch it counted.
   */
  readonly resume?: { readonly checkpoint: OperationCheckpoint; readonly totals: OperationTotals };
}

/** The candidate source of a begun operation (the rest of beginOperation's answer left out). */
export function candidateSource(begun: BeginOperationOutput): CandidateSource {
  return {
    subjects: begun.subjects,
    ...(begun.selection ? { selection: begun.selection } : {}),
    ...(begun.includeDeleting ? { includeDeleting: true } : {}),
    ...(begun.instanceIds ? { instanceIds: begun.instanceIds } : {}),
  };
}

export interface FindCandidatesInput extends CandidateSource, TenantScoped {
  readonly continuationToken?: string;
  /** At most this many instances a page (1 to CANDIDATE_PAGE_SIZE; absent: CANDIDATE_PAGE_SIZE). */
  readonly maxPageSize?: number;
}

export interface RecordProgressInput extends TenantScoped {
  readonly operationId: string;
  readonly progress: OperationProgress;
  /** Where the fan-out stands, with the results of the batch it finished last (progressCheckpoint). */
  readonly checkpoint?: ProgressCheckpoint;
}

// The checkpoint and its bound belong to the one fan-out algorithm (src/engine/operations/fan-out.ts).
export { MAX_CHECKPOINT_PENDING_LENGTH, progressCheckpoint, type ProgressCheckpoint, type UncountedBatch } from '../../engine/operations/fan-out';

export interface FindCandidatesOutput extends CostedOutput {
  readonly instanceIds: string[];
  readonly continuationToken?: string;
}

export interface ApplyOperationInput extends TenantScoped {
  readonly operationId: string;
  readonly instanceId: string;
  /**
   * Hand the result back instead of storing it (the batch is the whole operation: FanOutBatch.keepResults),
   * unless it is longer than MAX_KEPT_RESULT_LENGTH. @default false
   */
  readonly keepResult?: boolean;
  /**
   * In-process hosts only (the result is handed back whatever its length): answer the result as
   * `unstored` and store nothing; the caller stores the batch's results together (storeResults: one
   * transaction per 100 rows instead of a request each) before it counts the batch, so a crash before
   * that re-applies the batch and the instances answer `duplicate` with what they did. @default false
   */
  readonly storeResultLater?: boolean;
  /**
   * No wait in place for a `flow.concurrency` slot (every host sets it since decision 0025): a trigger without
   * one is answered at once as queued (QueuedForSlot, the lease released), for the caller to try again later:
   * the local runner parks it outside its workers, the durable orchestrator waits with a durable timer.
   * @default false (waits in place, holding the lease, up to the policy's maxWait: orchestrations begun before 0025)
   */
  readonly parkWhenQueued?: boolean;
}

export interface StoreResultsInput extends TenantScoped {
  readonly operationId: string;
  readonly results: readonly InstanceResult[];
}

export interface CompleteOperationInput extends TenantScoped {
  readonly operationId: string;
  readonly candidates: number;
  readonly summary: OutcomeSummary;
  readonly instances: readonly InstanceResult[];
  /** Some results' traces were left out (operation.ts, MAX_TRACED_RESULTS). */
  readonly tracesTruncated?: boolean;
  /** Present when the dispatch could not finish: the operation is marked failed. */
  readonly error?: string;
  /** What the applications counted cost, by workflow (the fan-out's totals). */
  readonly costByWorkflow?: WorkflowCosts;
  /**
   * What the run cost besides the applications and before this call: recording, candidate lookups,
   * progress writes, durable activities of its own (decision 0021). @default none
   */
  readonly overhead?: OperationCost;
}

/**
 * What an activity cost, in its answer on the durable host (functions/activities.ts adds it; decision
 * 0021), so that the orchestrator can carry it to the completion; `recordProgress` answers only this.
 */
export interface CostedOutput {
  readonly cost?: OperationCost;
}

/**
 * Activity names as registered with durable-functions. The strings stay as first deployed (`applyTrigger`
 * though it applies migrations and bulk actions too): an orchestration in flight on a deployed app
 * replays against the names in its history, and a renamed activity would never complete for it.
 */
export const ActivityName = {
  beginOperation: 'beginOperation',
  findCandidates: 'findCandidates',
  applyOperation: 'applyTrigger',
  completeOperation: 'completeOperation',
  recordProgress: 'recordProgress',
} as const;

/**
 * The retry policy of every activity on both hosts: the activities throw only retryable errors (lease
 * unavailable or lost, transient storage faults; `isRetryable`). Attempts at about 0, 1, 3, 7 and 15 s:
 * a busy instance or a storage hiccup gets about a lease's shortest duration (15 s) to clear, and a
 * storage account that stays down fails the operation in seconds rather than holding it open.
 * functions/apply-operation-batch.ts turns it into durable RetryOptions; the local runner waits the same.
 */
export interface ActivityRetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  readonly firstRetryIntervalInMs: number;
  readonly backoffCoefficient: number;
  readonly maxRetryIntervalInMs: number;
}

export const ACTIVITY_RETRY_POLICY: ActivityRetryPolicy = {
  maxAttempts: 5,
  firstRetryIntervalInMs: 1000,
  backoffCoefficient: 2,
  maxRetryIntervalInMs: 30_000,
};

/** The wait before retry number `retry` (1 for the first retry), as the Durable Task framework computes it. */
export function retryIntervalInMs(policy: ActivityRetryPolicy, retry: number): number {
  return Math.min(policy.maxRetryIntervalInMs, policy.firstRetryIntervalInMs * policy.backoffCoefficient ** Math.max(0, retry - 1));
}

export interface OperationActivities {
  /**
   * Marks the operation running (unless `deferRunning`) and returns what the fan-out needs; `shouldRun`
   * is false for one already finished.
   */
  beginOperation(input: BeginOperationInput): Promise<BeginOperationOutput>;
  findCandidates(input: FindCandidatesInput): Promise<FindCandidatesOutput>;
  /**
   * Applies the operation to one instance under its lease (its trigger, migration or bulk action), writes
   * the instance's result to the operation's results (OperationStore.putResult) and answers its outcome
   * only, so that results never travel through durable history; with `keepResult`, answers the (short)
   * result too and stores nothing, for the completion to record. Throws only retryable errors (lease
   * unavailable or lost, transient storage faults): the caller retries them, and a retry writes the
   * same row again (the instance answers `duplicate` with what it did, reported as that).
   */
  applyOperation(input: ApplyOperationInput): Promise<ApplyOperationAnswer>;
  /** Records the summary and results and marks the operation succeeded (or failed with `error`). */
  completeOperation(input: CompleteOperationInput): Promise<void>;
  /**
   * Records how far an unfinished operation got (`progress` on the operation), between pages, and marks
   * it `running` if begin deferred that. Does nothing to a finished one.
   */
  recordProgress(input: RecordProgressInput): Promise<void>;
}

/**
 * What an in-process host (the local runner) may call besides, when the activities offer it: a batch's
 * results stored together (without it, each application stores its own).
 */
export interface InProcessOperationActivities extends OperationActivities {
  /** Stores results handed back `unstored` (ApplyOperationInput.storeResultLater) in the operation's results. */
  storeResults?(input: StoreResultsInput): Promise<void>;
}

/**
 * A trigger that found no concurrency slot (ApplyOperationInput.parkWhenQueued): nothing was applied and no
 * lease is held; the engine's verdict says which key's queue it waits in. Calling the activity again applies it
 * once a slot is free (a call after it was applied answers `duplicate`).
 */
export interface QueuedForSlot {
  readonly queued: SlotQueuedVerdict;
  /** What the try cost (decision 0021), as an applied outcome's. */
  readonly cost?: OperationCost;
  readonly workflowId?: string;
}

/** What `applyOperation` answers: applied (an outcome), or queued for a slot. */
export type ApplyOperationAnswer = AppliedOutcome | QueuedForSlot;

export function isQueuedForSlot(answer: ApplyOperationAnswer): answer is QueuedForSlot {
  return (answer as Partial<QueuedForSlot>).queued !== undefined;
}

/**
 * How the durable orchestrator schedules a queued trigger (decision 0025): tries again after a durable timer,
 * 1 s after the first queued answer, doubling to at most SLOT_TRY_MAX_INTERVAL_IN_MS (under the storage queue's
 * listing of 15 s plus grace, so a trigger tried again keeps its place), at most MAX_SLOT_TRIES tries in all
 * (about five minutes of waiting, the longest `maxWait` a policy may name), then reported failed.
 */
export const MAX_SLOT_TRIES = 40;
export const SLOT_TRY_FIRST_INTERVAL_IN_MS = 1000;
export const SLOT_TRY_MAX_INTERVAL_IN_MS = 8000;

/** The wait before the try after `tries` queued answers (1 after the first). */
export function slotTryIntervalInMs(tries: number): number {
  return Math.min(SLOT_TRY_MAX_INTERVAL_IN_MS, SLOT_TRY_FIRST_INTERVAL_IN_MS * 2 ** Math.max(0, tries - 1));
}

/** When the try after `tries` queued answers is due, from the orchestration's deterministic clock (context.df.currentUtcDateTime). */
export function slotTryFireAt(orchestrationNow: Date, tries: number): Date {
  return new Date(orchestrationNow.getTime() + slotTryIntervalInMs(tries));
}

/** Why a trigger still queued after MAX_SLOT_TRIES tries is reported failed. */
export function slotWaitGivenUp(instanceId: string, verdict: SlotQueuedVerdict, tries: number): string {
  const key = verdict.queue ? ` of key "${verdict.queue.key}"` : '';
  return `instance "${instanceId}": no concurrency slot${key} after ${tries} tries (${verdict.detail}); the trigger was not applied`;
}

export type { Trigger };
