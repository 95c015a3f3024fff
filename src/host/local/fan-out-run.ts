/**
 * @module One operation's run on the local host: the one fan-out algorithm (src/engine/operations/fan-out.ts)
 * driven over the activity contract, as the durable orchestrator drives it: begin, read a page, apply it as a
 * batch (one batch in flight, the next page read while it runs), record progress, complete. What a batch's
 * application costs in slots and parking is the runner's (`applyBatch`); a run stopped by the shutdown is left
 * `running` in the store, and the next start resumes it.
 */
import { FanOut, failureReason, type BatchOutcome, type FanOutBatch, type OperationProgress, type StoredOperation } from '../../engine/operations';
import { candidateSource, type FindCandidatesOutput, type OperationActivities } from '../contracts/operation-activities';
import type { CostAccumulator } from '../cost/cost-scope';

/**
 * An operation of at most this many candidates, found in one page, keeps its results in memory for its
 * completion's write (FanOutLimits.maxKeptResults) instead of writing a row per instance: a trigger to
 * one instance costs one request less. Small enough that the record always holds them all (each kept
 * result is at most MAX_KEPT_RESULT_LENGTH, traces together at most MAX_TRACES_LENGTH).
 */
export const MAX_KEPT_RESULTS = 100;

export interface FanOutRun {
  readonly operationId: string;
  /** Every request of the run counts to it; what is not an application's is the completion's overhead. */
  readonly cost: CostAccumulator;
  /** The record in hand (just created, or listed for resumption): begin needs no read. */
  readonly known?: StoredOperation | undefined;
  /** The first page of candidates, looked up while the operation was recorded. */
  readonly firstPage?: Promise<FindCandidatesOutput> | undefined;
  /** Not recorded yet: the fan-out's first write records it. */
  readonly unrecorded?: boolean;
}

export interface FanOutHost {
  readonly activities: Pick<OperationActivities, 'beginOperation' | 'findCandidates' | 'recordProgress' | 'completeOperation'>;
  /** The host's retry of an activity call (activity-retry.ts). */
  readonly withRetry: <T>(step: () => Promise<T>) => Promise<T>;
  /** The host's shutdown. */
  readonly signal: AbortSignal;
  /** Applies one batch at the operation's priority; settles (never rejects) once every instance of it has. */
  readonly applyBatch: (priority: number | undefined, batch: FanOutBatch, progress: () => OperationProgress) => Promise<BatchOutcome>;
}

/** Runs the operation to its completion (or throws 'shutting down', its batches in flight settled first). */
export async function runFanOut({ operationId, cost, known, firstPage, unrecorded = false }: FanOutRun, { activities, withRetry, signal, applyBatch }: FanOutHost): Promise<void> {
  // `running` is written with the fan-out's first progress, so an operation of one instance goes from notStarted to done.
  const begun = await withRetry(() => activities.beginOperation({ operationId, ...(known ? { operation: known } : {}), deferRunning: true, ...(unrecorded ? { unrecorded } : {}) }));
  if (!begun.shouldRun) return;
  const source = candidateSource(begun);
  const read = (continuationToken: string | undefined): Promise<FindCandidatesOutput> => {
    const lookUp = () => withRetry(() => activities.findCandidates({ ...source, ...(continuationToken !== undefined ? { continuationToken } : {}) }));
    // The first page (of a trigger's candidates) may have been looked up while the operation was recorded; if that failed, look again.
    const prefetched = continuationToken === undefined ? firstPage : undefined;
    return prefetched ? prefetched.catch(lookUp) : lookUp();
  };
  const fanOut = new FanOut(begun, { batchesInFlight: 1, maxKeptResults: MAX_KEPT_RESULTS });
  // Known for operations started here or resumed; one started by id alone runs at the default priority.
  const priority = known && 'trigger' in known ? known.trigger.priority : undefined;
  /** Batches started, oldest first; each settles (never rejects) once every instance of it has. */
  const batches: Promise<BatchOutcome>[] = [];
  for (;;) {
    // Left `running` in the store: the next start resumes it.
    if (signal.aborted) {
      await Promise.all(batches);
      throw new Error('shutting down');
    }
    const step = fanOut.next();
    if (step.next === 'complete') {
      // What the run sent besides its applications (each counted apart: AppliedOutcome.cost) is the overhead.
      await withRetry(() => activities.completeOperation({ operationId, ...step.completion, overhead: cost.snapshot() }));
      return;
    }
    try {
      switch (step.next) {
        case 'read':
          fanOut.pageRead(await read(step.continuationToken));
          break;
        case 'apply':
          batches.push(applyBatch(priority, step.batch, () => fanOut.progress));
          break;
        case 'wait':
          fanOut.batchFinished(await batches.shift()!);
          break;
        case 'record':
          await withRetry(() => activities.recordProgress({ operationId, progress: step.progress, checkpoint: step.checkpoint }));
          break;
      }
    } catch (failure) {
      fanOut.failed(failureReason(failure));
    }
  }
}
