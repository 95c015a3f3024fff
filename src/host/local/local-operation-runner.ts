/**
 * @module Runs operations in-process for the local server: a thin scheduler of the one fan-out algorithm
 * (src/engine/operations/fan-out.ts) over the activity contract (operation-activities.ts: begin, find a
 * page, apply the operation to each instance of a batch, record progress, complete), the same algorithm,
 * contract and retry policy the durable orchestrator drives.
 *
 * What stays here is what only an in-process host needs: bounded concurrency of applications across
 * operations, shared fairly across tenants (concurrency.ts FairScheduler: one tenant's broadcast does not
 * starve another's trigger; the durable host caps each fan-out instead), triggers waiting for a concurrency
 * slot parked outside those slots (slot-parking.ts; durable activities wait up to the policy's maxWait), resumption of operations a crash left
 * `notStarted` or `running` (durable orchestrations resume themselves; poison handling in
 * operation-resumption.ts), the in-memory bookkeeping `Prefer: wait` reads (`waitUntilFinished`: a
 * durable host asks the orchestration's status instead), the first page looked up while the operation
 * is recorded (`findFirstPage`), and a graceful stop. A resumed operation goes on from its checkpoint
 * (the batches it counted are not offered again); an instance of the batch in flight at the crash that
 * had applied the trigger answers `duplicate` (instance-runtime.ts), so none applies it twice.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { OperationStatus } from '../../engine/model';
import { BoundedMap, isRetryable } from '../../engine/model';
import { countOutcomes, emptyTotals, type AppliedOutcome, type OperationProgress, type StoredOperation } from '../../engine/operations';
import { FanOut, failureReason, type BatchOutcome, type FanOutBatch } from '../../engine/operations';
import type { OperationStore } from '../../engine/ports';
import type { DueTimer } from '../../engine/decide';
import { delay } from '../../leasing/backoff';
import { DEFAULT_PRIORITY, FairScheduler } from './concurrency';
import {
  ACTIVITY_RETRY_POLICY,
  candidateSource,
  retryIntervalInMs,
  type ActivityRetryPolicy,
  type ApplyOperationInput,
  type FindCandidatesOutput,
  type InProcessOperationActivities,
} from '../contracts/operation-activities';
import { PoisonOperationError, beginDeciding, endDeciding } from './operation-resumption';
import { decideWithin, outsideDecisions } from './deciding-scope';
import { SlotParking, appliedOrParked, lineOf, parkingQueueOf, placeOf, type ParkedTrigger, type SlotQueue } from './slot-parking';
import { progressWithin } from './batch-progress';
import { DEFAULT_TENANT_ID } from '../tenant-quotas';
import type { LaunchOptions, OperationLauncher, WaitOutcome } from '../trigger-submitter';
import type { Logger } from '../operation-activity-service';
import { CostAccumulator, meter } from '../cost/cost-scope';

/** Kept here for the callers that read it from the runner. */
export { PROGRESS_INTERVAL_IN_MS } from './batch-progress';

/**
 * An operation of at most this many candidates, found in one page, keeps its results in memory for its
 * completion's write (FanOutLimits.maxKeptResults) instead of writing a row per instance: a trigger to
 * one instance costs one request less. Small enough that the record always holds them all (each kept
 * result is at most MAX_KEPT_RESULT_LENGTH, traces together at most MAX_TRACES_LENGTH).
 */
export const MAX_KEPT_RESULTS = 100;

export interface LocalOperationRunnerOptions {
  /** Instance applications in flight at once, across all operations. @default 16 */
  concurrency?: number;
  /**
   * The slots, shared fairly across the runners that share it (a runner per tenant); `concurrency` is then
   * its limit's business. @default a scheduler of its own, of `concurrency` slots
   */
  scheduler?: FairScheduler;
  /** This runner's fairness key: its tenant. @default DEFAULT_TENANT_ID */
  tenantId?: string;
  /** Retries of retryable failures (lease busy, transient storage). @default ACTIVITY_RETRY_POLICY (the durable host's) */
  retryPolicy?: Partial<ActivityRetryPolicy>;
  /** The engine's clock (resumption counts are stamped with it). @default the wall clock */
  now?: () => Date;
  /** Where armed timers go (the local timer scheduler); without it this launcher arms none. */
  armTimer?: (timer: DueTimer) => Promise<void>;
  /**
   * Subscribes to the concurrency slots this process releases (ConcurrencySlots.onRelease), so that a trigger
   * parked for a key tries again as soon as one of its slots frees; without it, parked triggers try again
   * every `parkedRetryIntervalInMs`.
   */
  slotReleases?: (listener: (workflowId: string, key: string) => void) => () => void;
  /** How often the first trigger parked for a key tries again without a release seen here. @default 1000 */
  parkedRetryIntervalInMs?: number;
  /**
   * Park a trigger to an instance whose last application was queued under a key that has triggers parked
   * here, without loading the instance (KeyHints). `false` loads every trigger's instance first, as before
   * (bench:flow compares the two). @default true
   */
  keyHints?: boolean;
}

/** Instances whose concurrency key the runner remembers (KeyHints): about 100 bytes each. */
export const MAX_KEY_HINTS = 10_000;

export class LocalOperationRunner implements OperationLauncher {
  private readonly activities: InProcessOperationActivities;
  private readonly running = new Map<string, Promise<void>>();
  /** Operations started before they were recorded (LaunchOptions.unrecorded) whose record is not written yet. */
  private readonly unrecorded = new Set<string>();
  /**
   * Operations resumed at this start, and the store they were resumed from: each decision of theirs is marked
   * on their record under the instance's lease (operation-resumption.ts, deciding-scope.ts), so a strike
   * counts only when a process died while deciding. Operations started here write no marks.
   */
  private readonly resumed = new Set<string>();
  private resumedFrom?: OperationStore;
  /** This process, in the tokens of its decisions' marks. */
  private readonly processToken = randomUUID();
  private decisions = 0;
  private readonly scheduler: FairScheduler;
  private readonly tenantId: string;
  private readonly retryPolicy: ActivityRetryPolicy;
  private readonly now: () => Date;
  private readonly shutdown = new AbortController();
  /** Triggers waiting for a concurrency slot, outside the scheduler's slots (slot-parking.ts). */
  private readonly parking: SlotParking;
  /**
   * The concurrency queue each instance's last application was handed back from (FlowQueuedError), the most
   * recent MAX_KEY_HINTS instances; absent when hints are off. Only a hint: see applyOne.
   */
  private readonly keyHints: BoundedMap<string, SlotQueue> | undefined;
  readonly armTimer?: (timer: DueTimer) => Promise<void>;
  /** Runs an operation before it is recorded (trigger-submitter.ts `submitWithin`): its completion writes the record. */
  readonly runsUnrecorded = true;

  /**
   * `activitiesFor` builds the activities this runner runs, given the runner as their launcher (triggers
   * raised while applying one are operations this runner starts too).
   */
  constructor(
    private readonly logger: Logger,
    activitiesFor: (launcher: OperationLauncher) => InProcessOperationActivities,
    options: LocalOperationRunnerOptions = {},
  ) {
    // Before the activities are built: they bind this launcher's armTimer.
    if (options.armTimer) this.armTimer = options.armTimer;
    this.activities = activitiesFor(this);
    // Every request waiting for an operation (`Prefer: wait`) listens for the shutdown: many at once is normal.
    setMaxListeners(0, this.shutdown.signal);
    this.scheduler = options.scheduler ?? new FairScheduler(options.concurrency ?? 16);
    this.tenantId = options.tenantId ?? DEFAULT_TENANT_ID;
    this.retryPolicy = { ...ACTIVITY_RETRY_POLICY, ...options.retryPolicy };
    this.now = options.now ?? (() => new Date());
    this.parking = new SlotParking({ signal: this.shutdown.signal, ...(options.parkedRetryIntervalInMs !== undefined ? { retryIntervalInMs: options.parkedRetryIntervalInMs } : {}) });
    if (options.keyHints !== false) this.keyHints = new BoundedMap(MAX_KEY_HINTS);
    const unsubscribe = options.slotReleases?.((workflowId, key) => this.parking.released({ workflowId, key }));
    if (unsubscribe) this.shutdown.signal.addEventListener('abort', unsubscribe, { once: true });
  }

  /** Applications parked for a concurrency slot (holding no slot of the scheduler). */
  get parked(): number {
    return this.parking.parked;
  }

  /** Operations currently running in this process. */
  get inFlight(): number {
    return this.running.size;
  }

  async start(operationId: string, options: LaunchOptions = {}): Promise<void> {
    if (this.shutdown.signal.aborted || this.running.has(operationId)) return;
    const unrecorded = options.unrecorded === true && options.operation !== undefined;
    if (unrecorded) this.unrecorded.add(operationId);
    // Every request of the run counts to the operation (its submission's too, when it was just recorded).
    const cost = options.cost ?? new CostAccumulator();
    // Started from within another's application (a raised trigger): not part of that application's decision.
    const run = outsideDecisions(() => meter(cost, () => this.run(operationId, cost, options.operation, options.firstPage, unrecorded)))
      .catch((error: unknown) => this.logger.error('operation run stopped', { operationId, error: String(error) }))
      .finally(() => {
        this.running.delete(operationId);
        this.unrecorded.delete(operationId);
      });
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

  /**
   * Starts every operation left `notStarted` or `running` by an earlier process, its decisions marked (poison
   * handling: operation-resumption.ts). Nothing is written here: a start-up that resumes an operation is no strike.
   * Another live server's operations are resumed too (which are whose is not recorded): each instance applies a
   * trigger id once, so the second application answers `duplicate`.
   */
  async resumeUnfinished(operations: OperationStore): Promise<number> {
    let count = 0;
    for await (const listed of operations.listByStatus([OperationStatus.notStarted, OperationStatus.running], { maxPageSize: 100 })) {
      if (this.running.has(listed.id)) continue;
      this.resumedFrom = operations;
      this.resumed.add(listed.id);
      // The run's own writes (progress, completion) start from this copy: without the marks and strikes, which
      // only the decisions' writes keep (else a progress write would put a dead mark back after it was judged).
      const { deciding: _marks, resumes: _strikes, ...operation } = listed;
      await this.start(listed.id, { operation });
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

  /**
   * Drives the one fan-out algorithm (src/engine/operations/fan-out.ts), as the durable orchestrator does:
   * one batch (a page) applied at a time, the next page read while it runs.
   */
  private async run(operationId: string, cost: CostAccumulator, known?: StoredOperation, firstPage?: Promise<FindCandidatesOutput>, unrecorded = false): Promise<void> {
    const activities = this.activities;
    // With the record in hand (just created, or listed for resumption) begin needs no read; `running` is
    // written with the fan-out's first progress, so an operation of one instance goes from notStarted to done.
    // One not recorded yet (`unrecorded`) is recorded by that first write.
    const begun = await this.withRetry(() => activities.beginOperation({ operationId, ...(known ? { operation: known } : {}), deferRunning: true, ...(unrecorded ? { unrecorded } : {}) }));
    if (!begun.shouldRun) return;
    const source = candidateSource(begun);
    const read = (continuationToken: string | undefined): Promise<FindCandidatesOutput> => {
      const lookUp = () => this.withRetry(() => activities.findCandidates({ ...source, ...(continuationToken !== undefined ? { continuationToken } : {}) }));
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
      if (this.shutdown.signal.aborted) {
        await Promise.all(batches);
        throw new Error('shutting down');
      }
      const step = fanOut.next();
      if (step.next === 'complete') {
        // What the run sent besides its applications (each counted apart: AppliedOutcome.cost) is the overhead.
        await this.withRetry(() => activities.completeOperation({ operationId, ...step.completion, overhead: cost.snapshot() }));
        return;
      }
      try {
        switch (step.next) {
          case 'read':
            fanOut.pageRead(await read(step.continuationToken));
            break;
          case 'apply':
            batches.push(this.applyBatch(operationId, priority, step.batch, () => fanOut.progress));
            break;
          case 'wait':
            fanOut.batchFinished(await batches.shift()!);
            break;
          case 'record':
            await this.withRetry(() => activities.recordProgress({ operationId, progress: step.progress, checkpoint: step.checkpoint }));
            break;
        }
      } catch (failure) {
        fanOut.failed(failureReason(failure));
      }
    }
  }

  /**
   * Applies the operation to each instance of a batch (bounded by the fair scheduler's slots, in the
   * runner's tenant's turns and at the operation's priority) and settles once
   * every one has: a failure does not leave the others running uncounted (the fan-out's rule for every host).
   */
  private async applyBatch(operationId: string, priority: number | undefined, { instanceIds, keepResults }: FanOutBatch, progress: () => OperationProgress): Promise<BatchOutcome> {
    const pageProgress = progressWithin({ operationId, before: progress, now: this.now, activities: this.activities, logger: this.logger });
    // A batch's results are stored together after it (one transaction per 100 rows, not a request each),
    // before the fan-out counts it: a crash before that re-applies the batch (its instances answer `duplicate`).
    const storeResults = !keepResults && this.activities.storeResults ? this.activities.storeResults.bind(this.activities) : undefined;
    const input = (instanceId: string): ApplyOperationInput => ({
      operationId,
      instanceId,
      ...(keepResults ? { keepResult: true } : {}),
      ...(storeResults ? { storeResultLater: true } : {}),
      parkWhenQueued: true,
    });
    const settled = await Promise.allSettled(instanceIds.map((instanceId) => this.applyOne(input(instanceId), priority ?? DEFAULT_PRIORITY).then((result) => (pageProgress.applied(), result))));
    await pageProgress.settled();
    const applied = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    let failure: { readonly reason: unknown } | undefined = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    const unstored = applied.flatMap(({ unstored }) => (unstored ? [unstored] : []));
    if (storeResults && unstored.length > 0) {
      try {
        await this.withRetry(() => storeResults({ operationId, results: unstored }));
      } catch (error) {
        failure ??= { reason: error };
      }
    }
    const results = applied.map(({ unstored: _stored, ...outcome }) => outcome);
    return { ...countOutcomes(emptyTotals([]), results), ...(failure ? { error: failureReason(failure.reason) } : {}) };
  }

  /**
   * One application in a slot of the scheduler; one that finds its key's concurrency slots taken gives the
   * scheduler's slot back and is parked until its turn to try again (slot-parking.ts), never dropped.
   */
  private async applyOne(input: ApplyOperationInput, priority: number): Promise<AppliedOutcome> {
    let parked: { readonly queue: SlotQueue; readonly place: ParkedTrigger; readonly byHint: boolean } | undefined;
    try {
      // The key hint: the instance's last application was handed back from this key's queue, and triggers
      // of that key are parked here now, so this one would most likely be handed back too, after taking a
      // worker and loading the instance (lease and read). It joins that key's line directly instead and is
      // applied normally at its turn, its key computed again under the lease: a wrong hint (the key reads the
      // trigger, or the instance's context changed) costs it the wait for the triggers ahead of it in that
      // line, each tried at a release of the key here or every parked retry interval, and then it is
      // applied, or moved to its real key's line; it never admits a trigger the engine would not.
      const hinted = this.keyHints?.get(input.instanceId);
      if (hinted && this.parking.has(hinted)) {
        parked = { queue: hinted, place: this.parking.join(hinted, priority, false), byHint: true };
        await this.recordBeforeWaiting(input.operationId);
        await parked.place.turn();
      }
      for (;;) {
        try {
          return await this.scheduler.run(this.tenantId, priority, () => this.withRetry(() => this.attempt(input)));
        } catch (error) {
          const queue = parkingQueueOf(error);
          if (!queue) throw error;
          this.keyHints?.set(input.instanceId, queue);
          // A trigger that waits for a slot is listed in its key's queue by its operation: recorded first.
          if (!parked) await this.recordBeforeWaiting(input.operationId);
          if (parked && (parked.byHint || lineOf(parked.queue) !== lineOf(queue))) {
            // Parked by a hint, it is listed in the key's queue in storage only now, behind the triggers listed
            // there before it: it takes its place in the line here behind them too, and before the triggers still
            // parked on the hint alone (else it would try first and be turned away while they wait for a turn).
            // Parked under a wrong hint, it waits in its real key's line.
            parked.place.leave();
            parked = undefined;
          }
          parked ??= { queue, place: this.parking.join(queue, priority, true, placeOf(error)), byHint: false };
          await parked.place.turn();
        }
      }
    } finally {
      parked?.place.leave();
    }
  }

  /**
   * One application attempt; a resumed operation's is marked on its record while it decides, under the instance's
   * lease (deciding-scope.ts). One found poison there decides nothing and fails its operation (PoisonOperationError).
   */
  private async attempt(input: ApplyOperationInput): Promise<AppliedOutcome> {
    const operations = this.resumedFrom;
    if (!operations || !this.resumed.has(input.operationId)) return appliedOrParked(await this.activities.applyOperation(input));
    const { operationId, instanceId } = input;
    const token = `${this.processToken}:${++this.decisions}`;
    let poison: PoisonOperationError | undefined;
    const outcome = await decideWithin(
      {
        instanceId,
        begin: () =>
          beginDeciding(operations, operationId, instanceId, token, this.logger, this.now()).catch((error: unknown) => {
            if (error instanceof PoisonOperationError) poison = error;
            throw error;
          }),
        // A mark left by a storage fault costs at most one strike it did not earn: logged, the decision's outcome kept.
        end: (decided) =>
          endDeciding(operations, operationId, instanceId, token, decided, this.now()).catch((error: unknown) =>
            this.logger.warn('could not remove the mark of a decision that ended', { operationId, instanceId, error: String(error) }),
          ),
      },
      async () => appliedOrParked(await this.activities.applyOperation(input)),
    );
    // The activity reports the refusal as the instance's fault; the operation fails instead (the fan-out's failure).
    if (poison) throw poison;
    return outcome;
  }

  /** Writes the record of an operation started before it was recorded (its first write creates it), once. */
  private async recordBeforeWaiting(operationId: string): Promise<void> {
    if (!this.unrecorded.delete(operationId)) return;
    await this.withRetry(() => this.activities.recordProgress({ operationId, progress: { processed: 0, total: 1 } }));
  }

  /** Runs an activity again after retryable failures (lease busy or lost, transient storage faults), as the durable host would. */
  private async withRetry<T>(step: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      if (this.shutdown.signal.aborted) throw new Error('shutting down');
      try {
        return await step();
      } catch (error) {
        // A trigger waiting for a concurrency slot is parked (applyOne), not retried in its slot.
        if (!isRetryable(error) || parkingQueueOf(error) || attempt >= this.retryPolicy.maxAttempts) throw error;
        await delay(retryIntervalInMs(this.retryPolicy, attempt), this.shutdown.signal);
      }
    }
  }
}
