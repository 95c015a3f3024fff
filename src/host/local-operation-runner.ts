/**
 * @module Runs operations in-process for the local server: the same steps as the durable orchestrator
 * (page candidates, apply to each instance, complete) over the same TriggerActivityService, with
 * bounded concurrency and retries of retryable failures. Operations survive a crash in the operation
 * store as `notStarted` or `running`, and `resumeUnfinished` picks them up on the next start: instances
 * that had already applied the trigger answer `duplicate`, so none applies it twice.
 */
import { setMaxListeners } from 'node:events';
import { OperationStatus } from '../engine/enums';
import { isRetryable } from '../engine/errors';
import { accumulateResults, emptyTotals } from '../engine/operation';
import { pagedList } from '../engine/paging';
import type { OperationStore } from '../engine/ports';
import type { DueTimer } from '../engine/timers';
import { backoffDelayInMs, delay } from '../leasing/backoff';
import { Semaphore } from './concurrency';
import type { FindCandidatesOutput } from './trigger-activities';
import { claimResumption } from './operation-resumption';
import type { LaunchOptions, OperationLauncher, WaitOutcome } from './trigger-submitter';
import type { Logger, TriggerActivityService } from './trigger-activity-service';
import { OperationKind, type StoredOperation } from '../engine/operation';
import { outcomesOf } from '../engine/operation-work';
import { candidateSourceOf } from './trigger-activity-service';

export interface LocalOperationRunnerOptions {
  /** Instance applications in flight at once, across all operations. @default 16 */
  concurrency?: number;
  /** Attempts per instance for retryable failures (lease busy, transient storage). @default 5 */
  maxAttempts?: number;
  /** First retry delay; doubles each attempt, with jitter. @default 200 */
  firstRetryDelayInMs?: number;
  /** Where armed timers go (the local timer scheduler); without it this launcher arms none. */
  armTimer?: (timer: DueTimer) => Promise<void>;
}

export class LocalOperationRunner implements OperationLauncher {
  private readonly activities: TriggerActivityService;
  private readonly running = new Map<string, Promise<void>>();
  private readonly semaphore: Semaphore;
  private readonly maxAttempts: number;
  private readonly firstRetryDelayInMs: number;
  private readonly shutdown = new AbortController();
  readonly armTimer?: (timer: DueTimer) => Promise<void>;

  /**
   * `activitiesFor` builds the activities this runner runs, given the runner as their launcher (triggers
   * raised while applying one are operations this runner starts too).
   */
  constructor(
    private readonly logger: Logger,
    activitiesFor: (launcher: OperationLauncher) => TriggerActivityService,
    options: LocalOperationRunnerOptions = {},
  ) {
    // Before the activities are built: they bind this launcher's armTimer.
    if (options.armTimer) this.armTimer = options.armTimer;
    this.activities = activitiesFor(this);
    // Every request waiting for an operation (`Prefer: wait`) listens for the shutdown: many at once is normal.
    setMaxListeners(0, this.shutdown.signal);
    this.semaphore = new Semaphore(options.concurrency ?? 16);
    this.maxAttempts = options.maxAttempts ?? 5;
    this.firstRetryDelayInMs = options.firstRetryDelayInMs ?? 200;
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
    for await (const listed of pagedList((page) => operations.listByStatus([OperationStatus.notStarted, OperationStatus.running], page), { maxPageSize: 100 })) {
      // Counted on the record, so one that keeps crashing the process ends failed (poison).
      const operation = await claimResumption(operations, listed, this.logger);
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
    // With the record in hand (just created, or listed for resumption) the run needs no read.
    const loaded = known ?? (await activities.loadOperation(operationId));
    if (!loaded || loaded.status === OperationStatus.succeeded || loaded.status === OperationStatus.failed) return;
    let operation: StoredOperation = loaded;
    activities.remember(operation);
    const source = candidateSourceOf(operation);
    let totals = emptyTotals(operation.kind === undefined || operation.kind === OperationKind.trigger ? undefined : outcomesOf(operation));
    const seen = new Set<string>();
    let continuationToken: string | undefined;
    try {
      do {
        const pageToken = continuationToken;
        const lookUp = () => this.withRetry(() => activities.findCandidates({ ...source, ...(pageToken ? { continuationToken: pageToken } : {}) }));
        // The first page (of a trigger's candidates) may have been looked up while the operation was recorded; if that failed, look again.
        const prefetched = pageToken === undefined ? firstPage : undefined;
        const page = prefetched ? await prefetched.catch(lookUp) : await lookUp();
        // An operation that will take a while says so (`running`); one of a single instance finishes
        // about as fast as that write, so it goes from notStarted to done without it.
        if (operation.status === OperationStatus.notStarted && (page.continuationToken !== undefined || page.instanceIds.length > 1)) {
          const notStarted: StoredOperation = operation;
          operation = await this.withRetry(() => activities.markRunning(notStarted));
        }
        const fresh = page.instanceIds.filter((id) => !seen.has(id));
        fresh.forEach((id) => seen.add(id));
        if (operation.status === OperationStatus.running) {
          // Progress for clients' progress bars: the total is known once the last page is found.
          const progress = { processed: totals.candidates, ...(page.continuationToken === undefined ? { total: totals.candidates + fresh.length } : {}) };
          const running: StoredOperation = operation;
          operation = await this.withRetry(() => activities.saveProgress(running, progress));
        }
        const results = await Promise.all(fresh.map((instanceId) => this.semaphore.run(() => this.withRetry(() => activities.applyTrigger({ operationId, instanceId })))));
        totals = accumulateResults(totals, results);
        continuationToken = page.continuationToken;
      } while (continuationToken);
    } catch (error) {
      if (this.shutdown.signal.aborted) throw error; // left `running`: the next start resumes it
      const failed = operation;
      await this.withRetry(() => activities.finishOperation(failed, { operationId, ...totals, error: error instanceof Error ? error.message : String(error) }));
      return;
    }
    const finished = operation;
    await this.withRetry(() => activities.finishOperation(finished, { operationId, ...totals }));
  }

  /** Runs a step again after retryable failures (lease busy or lost, transient storage faults), with backoff. */
  private async withRetry<T>(step: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      if (this.shutdown.signal.aborted) throw new Error('shutting down');
      try {
        return await step();
      } catch (error) {
        if (!isRetryable(error) || attempt >= this.maxAttempts) throw error;
        await delay(backoffDelayInMs(attempt - 1, { initialBackoffInMs: this.firstRetryDelayInMs, maxBackoffInMs: 30 * this.firstRetryDelayInMs }));
      }
    }
  }
}
