/**
 * @module Runs operations in-process for the local server: a thin driver of the activity contract
 * (trigger-activities.ts: begin, find a page, apply the operation to each instance of the page,
 * record progress, complete), the same contract and retry policy the durable orchestrator drives.
 *
 * What stays here is what only an in-process host needs: bounded concurrency of applications across
 * operations (the durable host has its own fan-out limits), resumption of operations a crash left
 * `notStarted` or `running` (durable orchestrations resume themselves; poison handling in
 * operation-resumption.ts), the in-memory bookkeeping `Prefer: wait` reads (`waitUntilFinished`: a
 * durable host asks the orchestration's status instead), the first page looked up while the operation
 * is recorded (`findFirstPage`), and a graceful stop. A resumed operation goes on from its checkpoint
 * (the batches it counted are not offered again); an instance of the batch in flight at the crash that
 * had applied the trigger answers `duplicate` (instance-runtime.ts), so none applies it twice.
 */
import { setMaxListeners } from 'node:events';
import { OperationStatus } from '../engine/enums';
import { isRetryable } from '../engine/errors';
import { accumulateResults, countsToAdd, emptyTotals, mergeTotals, type StoredOperation } from '../engine/operation';
import type { OperationStore } from '../engine/ports';
import type { DueTimer } from '../engine/timers';
import { delay } from '../leasing/backoff';
import { Semaphore } from './concurrency';
import {
  ACTIVITY_RETRY_POLICY,
  progressCheckpoint,
  retryIntervalInMs,
  type ActivityRetryPolicy,
  type CandidateSource,
  type FindCandidatesOutput,
  type TriggerActivities,
  type UncountedBatch,
} from './trigger-activities';
import { claimResumption } from './operation-resumption';
import type { LaunchOptions, OperationLauncher, WaitOutcome } from './trigger-submitter';
import type { Logger } from './trigger-activity-service';

/** Progress within a page is written at most once per this many milliseconds of the runner's clock. */
export const PROGRESS_INTERVAL_IN_MS = 1000;

export interface LocalOperationRunnerOptions {
  /** Instance applications in flight at once, across all operations. @default 16 */
  concurrency?: number;
  /** Retries of retryable failures (lease busy, transient storage). @default ACTIVITY_RETRY_POLICY (the durable host's) */
  retryPolicy?: Partial<ActivityRetryPolicy>;
  /** The engine's clock (resumption counts are stamped with it). @default the wall clock */
  now?: () => Date;
  /** Where armed timers go (the local timer scheduler); without it this launcher arms none. */
  armTimer?: (timer: DueTimer) => Promise<void>;
}

export class LocalOperationRunner implements OperationLauncher {
  private readonly activities: TriggerActivities;
  private readonly running = new Map<string, Promise<void>>();
  private readonly semaphore: Semaphore;
  private readonly retryPolicy: ActivityRetryPolicy;
  private readonly now: () => Date;
  private readonly shutdown = new AbortController();
  readonly armTimer?: (timer: DueTimer) => Promise<void>;

  /**
   * `activitiesFor` builds the activities this runner runs, given the runner as their launcher (triggers
   * raised while applying one are operations this runner starts too).
   */
  constructor(
    private readonly logger: Logger,
    activitiesFor: (launcher: OperationLauncher) => TriggerActivities,
    options: LocalOperationRunnerOptions = {},
  ) {
    // Before the activities are built: they bind this launcher's armTimer.
    if (options.armTimer) this.armTimer = options.armTimer;
    this.activities = activitiesFor(this);
    // Every request waiting for an operation (`Prefer: wait`) listens for the shutdown: many at once is normal.
    setMaxListeners(0, this.shutdown.signal);
    this.semaphore = new Semaphore(options.concurrency ?? 16);
    this.retryPolicy = { ...ACTIVITY_RETRY_POLICY, ...options.retryPolicy };
    this.now = options.now ?? (() => new Date());
  }

  /** Operations currently running in this process. */
  get inFlight(): number {
    return this.running.size;
  }

  async start(operationId: string, options: LaunchOptions = {}): Promise<void> {
    if (this.shutdown.signal.aborted || this.running.has(operationId)) return;
    const run = this.run(operationId, options.operation, options.firstPage)
      .catch((error: unknown) => this.logger.error('operation run stopped', { operationId, error: String(error) }))
      .finally(() => this.running.delete(operationId));
    this.running.set(operationId, run);
  }

  /**
   * Looks up the first page of candidates, for `start` (`LaunchOptions.firstPage`): the submitter runs
   * it while it records the operation, rather than after.
   */
  findFirstPage(subjects: readonly string[]): Promise<FindCandidatesOutput> {
    // An activity of the contract, called early: a host concern (the overlap), not a step of its own.
    return this.withRetry(() => this.activities.findCandidates({ subjects }));
  }

  /** From memory: resolves when the run started here ends, or when `timeoutInMs` or `signal` end the wait. */
  async waitUntilFinished(operationId: string, timeoutInMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    const run = this.running.get(operationId);
    if (!run) return 'unknown';
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        run.then((): WaitOutcome => 'finished'),
        new Promise<WaitOutcome>((resolve) => {
          timer = setTimeout(() => resolve('pending'), timeoutInMs);
          onAbort = () => resolve('pending');
          signal?.addEventListener('abort', onAbort, { once: true });
          this.shutdown.signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort) {
        signal?.removeEventListener('abort', onAbort);
        this.shutdown.signal.removeEventListener('abort', onAbort);
      }
    }
  }

  /** Waits for one operation started here (tests and the bench use it). */
  async whenDone(operationId: string): Promise<void> {
    await this.running.get(operationId);
  }

  /** Starts every operation left `notStarted` or `running` by an earlier process (poison handling: operation-resumption.ts). */
  async resumeUnfinished(operations: OperationStore): Promise<number> {
    let count = 0;
    for await (const listed of operations.listByStatus([OperationStatus.notStarted, OperationStatus.running], { maxPageSize: 100 })) {
      // Counted on the record, so one that keeps crashing the process ends failed (poison).
      const operation = await claimResumption(operations, listed, this.logger, this.now());
      if (!operation) continue;
      await this.start(operation.id, { operation });
      count += 1;
    }
    return count;
  }

  /**
   * Stops taking operations and waits up to `timeoutInMs` for those in flight. Whatever is unfinished
   * then stays `running` in the store and is resumed by the next start (at most once per instance).
   */
  async stop(timeoutInMs = 10000): Promise<void> {
    this.shutdown.abort();
    const all = Promise.allSettled([...this.running.values()]);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, timeoutInMs).unref())]);
  }

  private async run(operationId: string, known?: StoredOperation, firstPage?: Promise<FindCandidatesOutput>): Promise<void> {
    const activities = this.activities;
    // With the record in hand (just created, or listed for resumption) begin needs no read; `running` is
    // written with the first progress, so an operation of one instance goes from notStarted to done.
    const begun = await this.withRetry(() => activities.beginOperation({ operationId, ...(known ? { operation: known } : {}), deferRunning: true }));
    if (!begun.shouldRun) return;
    const source: CandidateSource = {
      subjects: begun.subjects,
      ...(begun.selection ? { selection: begun.selection } : {}),
      ...(begun.includeDeleting ? { includeDeleting: true } : {}),
      ...(begun.instanceIds ? { instanceIds: begun.instanceIds } : {}),
    };
    const read = (continuationToken: string | undefined): Promise<FindCandidatesOutput> => {
      const lookUp = () => this.withRetry(() => activities.findCandidates({ ...source, ...(continuationToken !== undefined ? { continuationToken } : {}) }));
      // The first page (of a trigger's candidates) may have been looked up while the operation was recorded; if that failed, look again.
      const prefetched = continuationToken === undefined ? firstPage : undefined;
      return prefetched ? prefetched.catch(lookUp) : lookUp();
    };
    // As the orchestrator does (functions/trigger-orchestrator.ts): batches counted so far, each batch
    // recorded in a checkpoint before it runs and counted by the next write, so that a resumed run offers
    // no counted instance again and reports every one. Here one batch (a page) runs at a time.
    const resumed = begun.resume;
    let totals = resumed ? resumed.totals : emptyTotals(begun.outcomes);
    let counted = resumed?.checkpoint.batches ?? 0;
    let finished = emptyTotals([]);
    /** Results the totals held before `finished` was added. */
    let held = totals.instances.length;
    const seen = new Set<string>();
    let recordsProgress = Boolean(resumed);
    let error: string | undefined;
    try {
      // The batch about to run: a resumed run's pending instances first, else the first page.
      let batch: UncountedBatch;
      /** The next page to read; undefined once every page has been read. */
      let nextPage: { continuationToken?: string } | undefined;
      if (resumed) {
        const { checkpoint } = resumed;
        batch = { instanceIds: checkpoint.pending };
        nextPage = checkpoint.allFound ? undefined : checkpoint.continuationToken !== undefined ? { continuationToken: checkpoint.continuationToken } : {};
      } else {
        const page = await read(undefined);
        batch = { instanceIds: page.instanceIds, readWith: {} };
        nextPage = page.continuationToken !== undefined ? { continuationToken: page.continuationToken } : undefined;
      }
      for (;;) {
        // An instance can match several subjects and so appear on several pages: offer it the trigger once.
        const fresh = batch.instanceIds.filter((id) => !seen.has(id));
        fresh.forEach((id) => seen.add(id));
        // Progress for clients' progress bars (the total once the last page is found), before each page
        // of an operation that will take a while; one of a single instance finishes about as fast as that write.
        recordsProgress ||= nextPage !== undefined || fresh.length > 1;
        if (recordsProgress) {
          const progress = { processed: totals.candidates, ...(nextPage === undefined ? { total: totals.candidates + fresh.length } : {}) };
          const checkpoint = progressCheckpoint(counted, countsToAdd(finished, held), [{ ...batch, instanceIds: fresh }], nextPage?.continuationToken, nextPage === undefined);
          await this.withRetry(() => activities.recordProgress({ operationId, progress, checkpoint }));
        }
        const total = nextPage === undefined ? totals.candidates + fresh.length : undefined;
        const pageProgress = recordsProgress ? this.progressWithin(operationId, totals.candidates, total) : undefined;
        const results = await Promise.all(
          fresh.map((instanceId) => this.semaphore.run(() => this.withRetry(() => activities.applyTrigger({ operationId, instanceId }))).then((result) => (pageProgress?.applied(), result))),
        );
        await pageProgress?.settled();
        finished = accumulateResults(emptyTotals([]), results);
        held = totals.instances.length;
        totals = mergeTotals(totals, finished);
        counted += 1;
        if (!nextPage) break;
        const readWith = nextPage;
        const page = await read(readWith.continuationToken);
        batch = { instanceIds: page.instanceIds, readWith };
        nextPage = page.continuationToken !== undefined ? { continuationToken: page.continuationToken } : undefined;
      }
    } catch (failure) {
      if (this.shutdown.signal.aborted) throw failure; // left `running`: the next start resumes it
      error = failure instanceof Error ? failure.message : String(failure);
    }
    const completion = { operationId, ...totals, ...(error !== undefined ? { error } : {}) };
    await this.withRetry(() => activities.completeOperation(completion));
  }

  /**
   * Progress within a page, as its instances are applied: at most one write per PROGRESS_INTERVAL_IN_MS
   * of the runner's clock, one at a time, none once the page is done (the next page's or the completion
   * follows). So an operation of a few hundred instances shows progress, and a fast one costs no more
   * writes than before. A failed write is logged: progress is for display, never the operation's failure.
   */
  private progressWithin(operationId: string, processedBefore: number, total: number | undefined) {
    let applied = 0;
    let lastWrite = this.now().getTime();
    let writing: Promise<void> | undefined;
    return {
      applied: () => {
        applied += 1;
        const at = this.now().getTime();
        if (writing || at - lastWrite < PROGRESS_INTERVAL_IN_MS || (total !== undefined && processedBefore + applied >= total)) return;
        lastWrite = at;
        const progress = { processed: processedBefore + applied, ...(total !== undefined ? { total } : {}) };
        writing = this.activities
          .recordProgress({ operationId, progress })
          .catch((error: unknown) => this.logger.warn('could not record the progress of an operation', { operationId, error: String(error) }))
          .finally(() => (writing = undefined));
      },
      /** Waits for a write in flight, so that no progress lands after the completion. */
      settled: async () => {
        await writing;
      },
    };
  }

  /** Runs an activity again after retryable failures (lease busy or lost, transient storage faults), as the durable host would. */
  private async withRetry<T>(step: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      if (this.shutdown.signal.aborted) throw new Error('shutting down');
      try {
        return await step();
      } catch (error) {
        if (!isRetryable(error) || attempt >= this.retryPolicy.maxAttempts) throw error;
        await delay(retryIntervalInMs(this.retryPolicy, attempt), this.shutdown.signal);
      }
    }
  }
}
