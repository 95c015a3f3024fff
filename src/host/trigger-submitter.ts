/**
 * @module Accepting a trigger: record its operation (the operation id is the trigger id, so a repeated
 * trigger id answers with its first operation; with a different body it is refused), then ask the host
 * to run it. Used by POST /api/triggers, by the instance-scoped trigger route, by the outbox relay for
 * raised triggers and by the timer schedulers for due timers, so every trigger takes the same path.
 */
import { OperationStatus, triggerPriority } from '../engine/model';
import { OperationKind, emptySummary, type BulkOperation, type MigrationOperation, type StoredOperation } from '../engine/operations';
import type { BulkRequest, MigrationRequest } from '../engine/decide';
import { outcomesOf } from '../engine/operations';
import type { OperationOptions, OperationStore } from '../engine/ports';
import type { DueTimer } from '../engine/decide';
import type { Trigger } from '../engine/model';
import type { FindCandidatesOutput } from './contracts/operation-activities';
import { assertSameTrigger, triggerFingerprint } from './trigger-fingerprint';

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
  async submitWork(work: { migration: MigrationRequest } | { bulk: BulkRequest }, options?: OperationOptions): Promise<StoredOperation> {
    const at = this.now().toISOString();
    const base = { id: this.newId(), status: OperationStatus.notStarted, createdAt: at, updatedAt: at, candidates: 0, instances: [] };
    const operation: MigrationOperation | BulkOperation =
      'migration' in work ? { ...base, kind: OperationKind.migration, migration: work.migration, summary: {} } : { ...base, kind: OperationKind.bulk, bulk: work.bulk, summary: {} };
    const recorded = await this.operations.create({ ...operation, summary: emptySummary(outcomesOf(operation)) }, options);
    await this.launcher.start(recorded.operation.id, { operation: recorded.operation, isNew: recorded.created });
    return recorded.operation;
  }

  /**
   * Records the operation (or finds the existing one) and makes sure it runs. `to.instanceId`: the
   * trigger is sent to that instance alone (its route), which is its only candidate.
   */
  async submit(trigger: Trigger, options?: OperationOptions, to?: { readonly instanceId: string }): Promise<StoredOperation> {
    const at = this.now().toISOString();
    // The candidate lookup runs while the record is written. Safe: the index does not depend on the
    // record, and the lookup is as much "at acceptance" as one made after it (the index is a superset of
    // the truth, re-checked under each instance's lease either way). It is used only when this call
    // records the operation; for a repeated trigger id it is one wasted read. A failed lookup is looked
    // up again by the run, so its rejection is handled here.
    // A timer's trigger, and one sent to an instance, names its candidate itself (candidateSourceOf): nothing to look up.
    const firstPage = trigger.timer || to ? undefined : this.launcher.findFirstPage?.(trigger.subjects);
    firstPage?.catch(() => undefined);
    const fingerprint = triggerFingerprint(trigger);
    const { operation, created } = await this.operations.create(
      {
        id: trigger.id,
        triggerId: trigger.id,
        trigger,
        triggerFingerprint: fingerprint,
        ...(to ? { addressedInstanceId: to.instanceId } : {}),
        priority: triggerPriority(trigger),
        status: OperationStatus.notStarted,
        createdAt: at,
        updatedAt: at,
        candidates: 0,
        summary: emptySummary(),
        instances: [],
      },
      options,
    );
    // The same id with another body is a client error, not a repeat (trigger-fingerprint.ts).
    if (!created) assertSameTrigger(operation, trigger, fingerprint);
    // A crash between recording and starting leaves an operation notStarted, and a dispatch that died
    // leaves it running: a repeat asks the launcher again, which starts it only if nothing runs it now.
    if (created || operation.status === OperationStatus.notStarted || operation.status === OperationStatus.running) {
      await this.launcher.start(operation.id, { operation, isNew: created, ...(created && firstPage ? { firstPage } : {}) });
    }
    return operation;
  }
}
