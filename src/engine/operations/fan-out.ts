/**
 * @module The fan-out of one operation (a trigger, a migration, a bulk action) over its candidate
 * instances, as one algorithm every host drives: the durable orchestrator (functions/operation-orchestrator.ts),
 * the local runner (src/host/local/local-operation-runner.ts) and the library's in-process `Engine.publish`.
 * Like event delivery's `attempt` (events/event-delivery.ts), it says what to do next as data
 * (`FanOutStep`): read a page, apply a batch, wait for the oldest batch, record progress, complete. The
 * host does the step (an activity, a sub-orchestration, a call) and hands the answer back. It does no I/O
 * and reads no clock, so the durable orchestrator can run it and stay deterministic.
 *
 * The behaviour it settles for every host (docs/decisions/0013-one-operation-fan-out.md):
 * - a page's instances not offered before (an instance can match several subjects) make one batch;
 *   at most `batchesInFlight` batches run at once, and the next page is read while they run;
 * - a batch that is the whole operation, of at most `maxKeptResults` instances, keeps its results for
 *   the completion's write instead of a row each (decision 0017); interrupted, it is run again as a
 *   whole (its instances answer `duplicate` with what they did), so no result is lost or counted twice;
 * - progress is recorded when the first batch starts (processed 0; the record that marks the operation
 *   `running`), unless that batch is the whole operation and one instance, and after each batch counted
 *   but the last (whose totals complete the operation at once); each record carries the checkpoint;
 * - `total` is the instances counted plus those found and not yet counted, given once every page is read;
 * - a started batch runs to its end: a failing instance does not stop the others of its batch, and every
 *   instance applied is counted. After a failure no batch starts and no page is read; the batches already
 *   started are waited for and counted, then the operation completes `failed` with the first reason.
 */
import type { OperationOutcome } from '../model/enums';
import { countsToAdd, emptyTotals, mergeTotals, type OperationCheckpoint, type OperationProgress, type OperationTotals } from './operation';

/**
 * Characters of instance ids a checkpoint keeps in `pending`: with the results (MAX_OPERATION_RESULTS_LENGTH)
 * and the trigger, the record stays within Table Storage's 1 MiB. Past it, batches whose page can be read
 * again are read again on resumption (from the token that read the first of them) instead of listed.
 */
export const MAX_CHECKPOINT_PENDING_LENGTH = 64_000;

/**
 * A checkpoint as a driver records it: `finished` holds the results of batch number `batches - 1`, which
 * this write adds to the record's totals (once: a repeated write finds it counted already); empty when
 * no batch finished since the last write.
 */
export interface ProgressCheckpoint extends OperationCheckpoint {
  readonly finished: OperationTotals;
}

/** A batch found and not counted yet: its instances, and the read that found them. */
export interface UncountedBatch {
  readonly instanceIds: readonly string[];
  /** The page read that found them (token absent: the first page); absent when they came from a checkpoint. */
  readonly readWith?: { readonly continuationToken?: string };
}

/**
 * The checkpoint of a fan-out (pure): `counted` batches in the totals (the last of them `finished`, added
 * by this write), `uncounted` found and not yet counted, oldest first, and where reading goes on
 * (`nextPage`, absent with `allFound`). Give `finished` through `countsToAdd` (operation.ts), so it
 * carries no results the record could not keep.
 */
export function progressCheckpoint(counted: number, finished: OperationTotals, uncounted: readonly UncountedBatch[], nextPage: string | undefined, allFound: boolean): ProgressCheckpoint {
  const pending = uncounted.flatMap((batch) => batch.instanceIds);
  if (pending.reduce((length, id) => length + id.length + 3, 0) <= MAX_CHECKPOINT_PENDING_LENGTH) {
    return { batches: counted, finished, pending, allFound, ...(!allFound && nextPage !== undefined ? { continuationToken: nextPage } : {}) };
  }
  const firstReadable = uncounted.findIndex((batch) => batch.readWith !== undefined);
  const kept = uncounted.slice(0, firstReadable).flatMap((batch) => batch.instanceIds);
  const from = uncounted[firstReadable]!.readWith!.continuationToken;
  return { batches: counted, finished, pending: kept, allFound: false, ...(from !== undefined ? { continuationToken: from } : {}) };
}

/** A batch to apply: `number` counts the batches this run started, from 0 (durable names its sub-orchestration by it). */
export interface FanOutBatch extends UncountedBatch {
  readonly number: number;
  /**
   * The batch is the whole operation and small enough (FanOutLimits.maxKeptResults): its applications
   * hand their results back (AppliedOutcome.result) for the completion to record, instead of a row each.
   */
  readonly keepResults?: boolean;
}

/** What a batch came to: the totals of the instances it applied, and the first failure among them. */
export interface BatchOutcome extends OperationTotals {
  readonly error?: string;
}

/** The operation's end: its totals, and the reason when the dispatch could not finish. */
export interface FanOutCompletion extends OperationTotals {
  readonly error?: string;
}

export type FanOutStep =
  /** Read the page at `continuationToken` (absent: the first), then `pageRead` (or `failed`). */
  | { readonly next: 'read'; readonly continuationToken?: string }
  /** Start applying `batch` (do not wait for it: the next steps go on meanwhile). */
  | { readonly next: 'apply'; readonly batch: FanOutBatch }
  /** Wait for the oldest batch started and not yet finished, then `batchFinished`. */
  | { readonly next: 'wait' }
  /** Record progress with the checkpoint (a failed write: `failed`). */
  | { readonly next: 'record'; readonly progress: OperationProgress; readonly checkpoint: ProgressCheckpoint }
  /** Record the completion: the fan-out is over. */
  | { readonly next: 'complete'; readonly completion: FanOutCompletion };

/** Where a run starts: the outcomes its summary lists, and the checkpoint of an earlier run if any (beginOperation's answer). */
export interface FanOutStart {
  readonly outcomes?: readonly OperationOutcome[];
  readonly resume?: { readonly checkpoint: OperationCheckpoint; readonly totals: OperationTotals };
}

export interface FanOutLimits {
  /** Batches applied at once. */
  readonly batchesInFlight: number;
  /**
   * A batch that is the whole operation (nothing counted before it, nothing more to read) of at most
   * this many instances keeps its results for the completion's write (`FanOutBatch.keepResults`).
   * @default 0 (every result is a row of its own)
   */
  readonly maxKeptResults?: number;
}

export class FanOut {
  private totals: OperationTotals;
  /** Batches in the totals (a resumed run goes on counting from its checkpoint). */
  private counted: number;
  private readonly seen = new Set<string>();
  /** Started and not finished, oldest first. */
  private readonly started: UncountedBatch[] = [];
  /** Found and not started yet (at most one: no page is read while one waits). */
  private found: UncountedBatch | undefined;
  /** The next page to read; undefined once every page has been read (or after a failure). */
  private nextPage: { readonly continuationToken?: string } | undefined;
  private reading: { readonly continuationToken?: string } | undefined;
  private due: Extract<FanOutStep, { next: 'record' }> | undefined;
  private startRecorded: boolean;
  private batchNumber = 0;
  private error: string | undefined;

  constructor(
    start: FanOutStart,
    private readonly limits: FanOutLimits,
  ) {
    const { resume } = start;
    this.totals = resume ? resume.totals : emptyTotals(start.outcomes);
    this.counted = resume?.checkpoint.batches ?? 0;
    // A resumed run's record is running already, and holds its checkpoint.
    this.startRecorded = Boolean(resume);
    if (resume) {
      const { checkpoint } = resume;
      this.take(checkpoint.pending, undefined);
      this.nextPage = checkpoint.allFound ? undefined : checkpoint.continuationToken !== undefined ? { continuationToken: checkpoint.continuationToken } : {};
    } else {
      this.nextPage = {};
    }
  }

  /** The next step, given what the steps so far came to. */
  next(): FanOutStep {
    if (this.due) {
      const step = this.due;
      this.due = undefined;
      return step;
    }
    if (this.error !== undefined) return this.started.length > 0 ? { next: 'wait' } : this.complete();
    if (this.found) {
      if (this.started.length >= this.limits.batchesInFlight) return { next: 'wait' };
      const whole = this.counted === 0 && this.started.length === 0 && this.nextPage === undefined && this.reading === undefined;
      const keepResults = whole && this.found.instanceIds.length <= (this.limits.maxKeptResults ?? 0);
      const batch: FanOutBatch = { ...this.found, number: this.batchNumber++, ...(keepResults ? { keepResults } : {}) };
      this.started.push(this.found);
      this.found = undefined;
      if (!this.startRecorded) {
        this.startRecorded = true;
        // One instance and nothing more to read: it finishes about as fast as the write, which is saved.
        if (batch.instanceIds.length > 1 || this.nextPage !== undefined) this.due = this.record(emptyTotals([]));
      }
      return { next: 'apply', batch };
    }
    if (this.nextPage) {
      this.reading = this.nextPage;
      return { next: 'read', ...(this.nextPage.continuationToken !== undefined ? { continuationToken: this.nextPage.continuationToken } : {}) };
    }
    if (this.started.length > 0) return { next: 'wait' };
    return this.complete();
  }

  /** The page the last `read` step asked for. */
  pageRead(page: { readonly instanceIds: readonly string[]; readonly continuationToken?: string }): void {
    const readWith = this.reading ?? {};
    this.reading = undefined;
    this.nextPage = page.continuationToken !== undefined ? { continuationToken: page.continuationToken } : undefined;
    this.take(page.instanceIds, readWith);
  }

  /** The oldest started batch came to `outcome`. */
  batchFinished(outcome: BatchOutcome): void {
    this.started.shift();
    const held = this.totals.instances.length;
    const { error, ...totals } = outcome;
    this.totals = mergeTotals(this.totals, totals);
    this.counted += 1;
    if (error !== undefined) this.failed(error);
    // The last batch's totals complete the operation at once: progress would be overwritten.
    if (this.error === undefined && !this.isLast()) this.due = this.record(countsToAdd(totals, held));
  }

  /** A read or a record failed after its retries: start nothing more, wait for what runs, complete failed. */
  failed(reason: string): void {
    this.error ??= reason;
    this.found = undefined;
    this.nextPage = undefined;
    this.reading = undefined;
    this.due = undefined;
  }

  /** Processed so far, and the total once every page is read (for progress a host records within a batch). */
  get progress(): OperationProgress {
    const processed = this.totals.candidates;
    if (this.nextPage !== undefined || this.reading !== undefined) return { processed };
    const uncounted = [...this.started, ...(this.found ? [this.found] : [])].reduce((count, batch) => count + batch.instanceIds.length, 0);
    return { processed, total: processed + uncounted };
  }

  private isLast(): boolean {
    return this.started.length === 0 && !this.found && this.nextPage === undefined && this.reading === undefined;
  }

  private take(instanceIds: readonly string[], readWith: UncountedBatch['readWith']): void {
    // Once each, also when a page lists an instance twice.
    const fresh = instanceIds.filter((id) => !this.seen.has(id) && Boolean(this.seen.add(id)));
    if (fresh.length > 0) this.found = { instanceIds: fresh, ...(readWith ? { readWith } : {}) };
  }

  private record(finished: OperationTotals): Extract<FanOutStep, { next: 'record' }> {
    const uncounted = [...this.started, ...(this.found ? [this.found] : [])];
    const checkpoint = progressCheckpoint(this.counted, finished, uncounted, this.nextPage?.continuationToken, this.nextPage === undefined);
    return { next: 'record', progress: this.progress, checkpoint };
  }

  private complete(): Extract<FanOutStep, { next: 'complete' }> {
    return { next: 'complete', completion: { ...this.totals, ...(this.error !== undefined ? { error: this.error } : {}) } };
  }
}

/** A failure's reason for the operation record: a durable task's message is "<reason> \n <details>" (a stack trace); the reason is kept. */
export function failureReason(failure: unknown): string {
  const message = failure instanceof Error ? failure.message : String(failure);
  const reason = (message.split('\n')[0] ?? '').trim();
  return (reason || 'The dispatch failed').slice(0, 1000);
}
