/**
 * @module Accepting a trigger: record its operation (the operation id is the trigger id, so a repeated
 * trigger id answers with its first operation; with a different body it is refused), then ask the host
 * to run it. Used by POST /api/triggers, by the instance-scoped trigger route, by the outbox relay for
 * raised triggers and by the timer schedulers for due timers, so every trigger takes the same path.
 *
 * One exception saves a write (issue 25, decision 0018): a trigger whose client waits for it (`Prefer:
 * wait`) and that has at most one candidate is run first, on a launcher that can (the local runner), and
 * recorded once, finished, by its completion (`submitWithin`). Nothing is lost by it: until the answer,
 * nothing was promised, and one instance's application is one atomic save (a crash before it changed
 * nothing, after it the retried trigger id answers `duplicate`); a wait that runs out records it before
 * answering 202, and the run completes that record.
 */
import { OperationStatus, internalKindOf, triggerPriority } from '../engine/model';
import { OperationKind, emptySummary, type BulkOperation, type MigrationOperation, type Operation, type StoredOperation } from '../engine/operations';
import type { BulkRequest, MigrationRequest } from '../engine/decide';
import { outcomesOf } from '../engine/operations';
import type { OperationOptions, OperationStore } from '../engine/ports';
import type { DueTimer } from '../engine/decide';
import type { Trigger } from '../engine/model';
import type { FindCandidatesOutput } from './contracts/operation-activities';
import { assertSameTrigger, triggerFingerprint } from './trigger-fingerprint';
import { CostAccumulator, currentCost, meter } from './cost/cost-scope';

/** Accumulators opened by a submission: a submission within one (submitWithin → submit) counts to it. */
const submissions = new WeakSet<CostAccumulator>();

/**
 * Runs a submission with its requests counted to the operation it records (decision 0021), in an
 * accumulator of its own: a trigger raised while an instance is applied is another operation, not part
 * of that application's cost.
 */
function counted<T>(work: (cost: CostAccumulator) => Promise<T>): Promise<T> {
  const existing = currentCost();
  if (existing && submissions.has(existing)) return work(existing);
  const cost = new CostAccumulator();
  submissions.add(cost);
  return meter(cost, () => work(cost));
}

/** How a host runs an operation: a durable orchestration on Azure, the in-process runner locally. */
export interface OperationLauncher {
  /**
   * Starts the operation's dispatch; must be idempotent (a second call for a running one does nothing).
   * `operation` is the record just read or written, so an in-process launcher need not read it again;
   * `isNew` says this call recorded it, so nothing can be running it yet.
   */
  start(operationId: string, options?: LaunchOptions): Promise<void>;
  /**
   * Waits up to `timeoutInMs` for an operation this launcher runs to finish, without reading the
   * operation store: `finished` (its record is then written), `pending` (the time ran out) or
   * `unknown` (not run here, e.g. by another local server on the same storage). Absent: `unknown`.
   */
  waitUntilFinished?(operationId: string, timeoutInMs: number, signal?: AbortSignal): Promise<WaitOutcome>;
  /**
   * Looks up the first page of candidates of a trigger about to be recorded, so the lookup overlaps the
   * record's write; handed back in `start` as `firstPage`. Absent: the run looks them up itself.
   */
  findFirstPage?(subjects: readonly string[]): Promise<FindCandidatesOutput>;
  /**
   * True when `start` can run an operation before it is recorded (`LaunchOptions.unrecorded`: its first
   * write creates the record) and `waitUntilFinished` knows it. Absent: every operation is recorded first.
   */
  readonly runsUnrecorded?: boolean;
  /**
   * Hands an armed timer (a `timer` outbox row, after the save that armed it) to the host's scheduler:
   * a durable timer orchestration on Azure, the storage-driven scheduler locally. Must be idempotent by
   * timer id. A host without one cannot relay timer rows (they stay in the outbox).
   */
  armTimer?(timer: DueTimer): Promise<void>;
}

export type WaitOutcome = 'finished' | 'pending' | 'unknown';

export interface LaunchOptions {
  readonly operation?: StoredOperation;
  /** The first page of candidates, looked up while the operation was recorded (`findFirstPage`). */
  readonly firstPage?: Promise<FindCandidatesOutput>;
  /** @default false */
  readonly isNew?: boolean;
  /**
   * `operation` is not in storage yet (`submitWithin`): the run's first write creates the record, or
   * completes the one recorded meanwhile for the same trigger. Only where `runsUnrecorded`. @default false
   */
  readonly unrecorded?: boolean;
  /** What recording it cost so far (decision 0021): an in-process launcher counts the run's requests on. */
  readonly cost?: CostAccumulator;
}

/** What `submitWithin` answers: the operation, and whether the wait it was given is used up. */
export interface SubmittedWithin {
  readonly operation: StoredOperation;
  /** True: answer with `operation` as it is; false: it was recorded first and the caller waits for it as usual. */
  readonly waited: boolean;
}

export class TriggerSubmitter {
  constructor(
    private readonly operations: OperationStore,
    private readonly launcher: OperationLauncher,
    /** The engine's clock and id port (one clock, one source of ids). */
    private readonly now: () => Date,
    private readonly newId: () => string,
  ) {}

  /**
   * Records a migration or bulk action as a new operation and starts it: the same fan-out as a
   * trigger's (the launcher cannot tell them apart), with its own outcomes in `summary`.
   */
  submitWork(work: { migration: MigrationRequest } | { bulk: BulkRequest }, options?: OperationOptions): Promise<StoredOperation> {
    return counted(async (cost) => {
      const at = this.now().toISOString();
      const base = { id: this.newId(), status: OperationStatus.notStarted, createdAt: at, updatedAt: at, candidates: 0, instances: [] };
      const operation: MigrationOperation | BulkOperation =
        'migration' in work ? { ...base, kind: OperationKind.migration, migration: work.migration, summary: {} } : { ...base, kind: OperationKind.bulk, bulk: work.bulk, summary: {} };
      const recorded = await this.operations.create({ ...operation, summary: emptySummary(outcomesOf(operation)) }, options);
      await this.launcher.start(recorded.operation.id, { operation: recorded.operation, isNew: recorded.created, cost });
      return recorded.operation;
    });
  }

  /**
   * Records the operation (or finds the existing one) and makes sure it runs. `to.instanceId`: the
   * trigger is sent to that instance alone (its route), which is its only candidate.
   */
  submit(trigger: Trigger, options?: OperationOptions, to?: { readonly instanceId: string }, lookedUp?: Promise<FindCandidatesOutput>): Promise<StoredOperation> {
    return counted(async (cost) => {
      // The candidate lookup runs while the record is written. Safe: the index does not depend on the
      // record, and the lookup is as much "at acceptance" as one made after it (the index is a superset of
      // the truth, re-checked under each instance's lease either way). It is used only when this call
      // records the operation; for a repeated trigger id it is one wasted read. A failed lookup is looked
      // up again by the run, so its rejection is handled here.
      const firstPage = lookedUp ?? this.lookUpFirstPage(trigger, to);
      const operation = this.operationOf(trigger, to);
      const { operation: recorded, created } = await this.operations.create(operation, options);
      // The same id with another body is a client error, not a repeat (trigger-fingerprint.ts).
      if (!created) assertSameTrigger(recorded, trigger, operation.triggerFingerprint);
      // A crash between recording and starting leaves an operation notStarted, and a dispatch that died
      // leaves it running: a repeat asks the launcher again, which starts it only if nothing runs it now.
      if (created || recorded.status === OperationStatus.notStarted || recorded.status === OperationStatus.running) {
        await this.launcher.start(recorded.id, { operation: recorded, isNew: created, cost, ...(created && firstPage ? { firstPage } : {}) });
      }
      return recorded;
    });
  }

  /**
   * A trigger whose client waits up to `waitInMs` for it (`Prefer: wait`). With at most one candidate (sent
   * to an instance, or a subject lookup that found one or none), on a launcher that `runsUnrecorded`, and
   * with an id no earlier request recorded, it runs before it is recorded, and its completion writes the
   * record once, finished: one operation write instead of two. When the wait runs out first it is recorded
   * then, unfinished, and the run completes that record. Anything else is `submit` (`waited: false`).
   * `idFromClient`: the id was the client's, so it may be a repeat (one point read of its record, which
   * keeps "the same id with another body changes nothing"); an id this server made up cannot be.
   */
  submitWithin(trigger: Trigger, waitInMs: number, how: { readonly to?: { readonly instanceId: string }; readonly idFromClient: boolean }, options?: OperationOptions): Promise<SubmittedWithin> {
    return counted(async (cost) => {
      const { to } = how;
      const firstPage = this.lookUpFirstPage(trigger, to);
      if (!this.launcher.runsUnrecorded || !this.launcher.waitUntilFinished || waitInMs <= 0) return { operation: await this.submit(trigger, options, to, firstPage), waited: false };
      // The candidates first (none to look up when addressed), so that a broadcast reads no record it does not need.
      const page = await firstPage?.catch(() => undefined);
      const oneCandidate = to !== undefined || internalKindOf(trigger, 'timer') !== undefined || (page !== undefined && page.instanceIds.length <= 1 && page.continuationToken === undefined);
      if (!oneCandidate || (how.idFromClient && (await this.operations.get(trigger.id, options)))) return { operation: await this.submit(trigger, options, to, firstPage), waited: false };

      const operation = this.operationOf(trigger, to);
      await this.launcher.start(operation.id, { operation: { ...operation, etag: '' }, isNew: true, unrecorded: true, cost, ...(firstPage ? { firstPage } : {}) });
      const outcome = await this.launcher.waitUntilFinished(operation.id, waitInMs);
      const written = outcome === 'finished' ? await this.operations.get(operation.id, options) : undefined;
      if (written) {
        assertSameTrigger(written, trigger, operation.triggerFingerprint);
        return { operation: written, waited: true };
      }
      // The wait ran out (or the run ended without writing: a storage fault past its retries): recorded now,
      // before the answer promises anything. A run still going completes this record.
      const { operation: recorded, created } = await this.operations.create(operation, options);
      if (!created) assertSameTrigger(recorded, trigger, operation.triggerFingerprint);
      // A run that ended without its record (or no longer known here): run it again from the record (the
      // instance answers `duplicate` if it was applied). One still going (`pending`) completes the record itself.
      if (created && outcome !== 'pending') await this.launcher.start(recorded.id, { operation: recorded, isNew: true, cost });
      return { operation: recorded, waited: true };
    });
  }

  /** A timer's trigger, and one sent to an instance, names its candidate itself (candidateSourceOf): nothing to look up. */
  private lookUpFirstPage(trigger: Trigger, to: { readonly instanceId: string } | undefined): Promise<FindCandidatesOutput> | undefined {
    const firstPage = internalKindOf(trigger, 'timer') || to ? undefined : this.launcher.findFirstPage?.(trigger.subjects);
    firstPage?.catch(() => undefined);
    return firstPage;
  }

  /** The operation a trigger is recorded as: its id is the trigger's (the exactly-once key). */
  private operationOf(trigger: Trigger, to: { readonly instanceId: string } | undefined): Operation & { readonly triggerFingerprint: string } {
    const at = this.now().toISOString();
    return {
      id: trigger.id,
      triggerId: trigger.id,
      trigger,
      triggerFingerprint: triggerFingerprint(trigger),
      ...(to ? { addressedInstanceId: to.instanceId } : {}),
      priority: triggerPriority(trigger),
      status: OperationStatus.notStarted,
      createdAt: at,
      updatedAt: at,
      candidates: 0,
      summary: emptySummary(),
      instances: [],
    };
  }
}
