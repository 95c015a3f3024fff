/**
 * @module Accepting a trigger: record its operation (the operation id is the trigger id, so a repeated
 * trigger id answers with its first operation; with a different body it is refused), then ask the host
 * to run it. Used by POST /api/triggers, by the instance-scoped trigger route, by the outbox relay for
 * raised triggers and by the timer schedulers for due timers, so every trigger takes the same path.
 */
import { OperationStatus } from '../engine/enums';
import { emptySummary, type StoredOperation } from '../engine/operation';
import type { OperationOptions, OperationStore } from '../engine/ports';
import type { DueTimer } from '../engine/timers';
import type { Trigger } from '../engine/trigger';
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
   * Hands an armed timer (a `timer` outbox row, after the save that armed it) to the host's scheduler:
   * a durable timer orchestration on Azure, the storage-driven scheduler locally. Must be idempotent by
   * timer id. A host without one cannot relay timer rows (they stay in the outbox).
   */
  armTimer?(timer: DueTimer): Promise<void>;
}

export interface LaunchOptions {
  readonly operation?: StoredOperation;
  /** @default false */
  readonly isNew?: boolean;
}

export class TriggerSubmitter {
  constructor(
    private readonly operations: OperationStore,
    private readonly launcher: OperationLauncher,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Records the operation (or finds the existing one) and makes sure it runs. */
  async submit(trigger: Trigger, options?: OperationOptions): Promise<StoredOperation> {
    const at = this.now().toISOString();
    const fingerprint = triggerFingerprint(trigger);
    const { operation, created } = await this.operations.create(
      {
        id: trigger.id,
        triggerId: trigger.id,
        trigger,
        triggerFingerprint: fingerprint,
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
      await this.launcher.start(operation.id, { operation, isNew: created });
    }
    return operation;
  }
}
