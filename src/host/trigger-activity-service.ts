/**
 * @module The TriggerActivities both hosts run: the durable activities on Azure and the local runner's
 * steps. Per-instance failures that retrying cannot fix become a `faulted` result for that instance,
 * so one bad instance never fails a whole operation; retryable ones are thrown for the caller to retry.
 */
import type { Engine } from '../engine/engine';
import { OperationStatus, TriggerOutcome } from '../engine/enums';
import { NotFoundError, isRetryable } from '../engine/errors';
import type { InstanceResult, Operation, StoredOperation } from '../engine/operation';
import type { OperationStore } from '../engine/ports';
import type { Trigger } from '../engine/trigger';
import {
  CANDIDATE_PAGE_SIZE,
  type ApplyTriggerInput,
  type BeginOperationOutput,
  type CompleteOperationInput,
  type FindCandidatesInput,
  type FindCandidatesOutput,
  type TriggerActivities,
} from './trigger-activities';

export interface Logger {
  info(message: string, properties?: Record<string, unknown>): void;
  warn(message: string, properties?: Record<string, unknown>): void;
  error(message: string, properties?: Record<string, unknown>): void;
}

/** Triggers of recent operations, so each worker reads an operation's trigger once, not once per instance. */
export class TriggerCache {
  private readonly triggers = new Map<string, Trigger>();
  constructor(private readonly capacity = 1000) {}

  get(operationId: string): Trigger | undefined {
    return this.triggers.get(operationId);
  }

  set(operationId: string, trigger: Trigger): void {
    this.triggers.set(operationId, trigger);
    if (this.triggers.size > this.capacity) this.triggers.delete(this.triggers.keys().next().value!);
  }
}

export interface TriggerActivityServiceOptions {
  readonly engine: Engine;
  readonly operations: OperationStore;
  readonly triggerCache: TriggerCache;
  readonly logger: Logger;
  readonly now?: () => Date;
}

export class TriggerActivityService implements TriggerActivities {
  constructor(private readonly options: TriggerActivityServiceOptions) {}

  private now(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  async loadOperation(operationId: string): Promise<StoredOperation | undefined> {
    return this.options.operations.get(operationId);
  }

  /** Keeps an operation's trigger in the cache, so applications need not read it. */
  remember(operation: Operation): void {
    this.options.triggerCache.set(operation.id, operation.trigger);
  }

  /** Marks an operation record already in hand `running` (one write). */
  async markRunning(operation: Operation): Promise<StoredOperation> {
    return this.options.operations.update({ ...operation, status: OperationStatus.running, updatedAt: this.now() });
  }

  async beginOperation(operationId: string): Promise<BeginOperationOutput> {
    const operation = await this.options.operations.get(operationId);
    if (!operation) throw new NotFoundError(`Operation "${operationId}" does not exist`);
    this.options.triggerCache.set(operationId, operation.trigger);
    if (operation.status === OperationStatus.succeeded || operation.status === OperationStatus.failed) {
      return { subjects: operation.trigger.subjects, shouldRun: false };
    }
    if (operation.status !== OperationStatus.running) await this.markRunning(operation);
    return { subjects: operation.trigger.subjects, shouldRun: true };
  }

  async findCandidates(input: FindCandidatesInput): Promise<FindCandidatesOutput> {
    const page = await this.options.engine.findCandidates(input.subjects, {
      maxPageSize: CANDIDATE_PAGE_SIZE,
      ...(input.continuationToken ? { continuationToken: input.continuationToken } : {}),
    });
    return { instanceIds: page.items, ...(page.continuationToken ? { continuationToken: page.continuationToken } : {}) };
  }

  private async triggerOf(operationId: string): Promise<Trigger> {
    const cached = this.options.triggerCache.get(operationId);
    if (cached) return cached;
    const operation = await this.options.operations.get(operationId);
    if (!operation) throw new NotFoundError(`Operation "${operationId}" does not exist`);
    this.options.triggerCache.set(operationId, operation.trigger);
    return operation.trigger;
  }

  async applyTrigger({ operationId, instanceId }: ApplyTriggerInput): Promise<InstanceResult> {
    const trigger = await this.triggerOf(operationId);
    try {
      // A repeated delivery answers `duplicate` with what the trigger did then, from the instance's record;
      // the operation's totals report that (operationResult in src/engine/operation.ts).
      return await this.options.engine.applyTrigger(instanceId, trigger);
    } catch (error) {
      if (isRetryable(error)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      this.options.logger.error('applying a trigger failed', { operationId, instanceId, error: message });
      return { instanceId, outcome: TriggerOutcome.faulted, error: message };
    }
  }

  async completeOperation(input: CompleteOperationInput): Promise<void> {
    const operation = await this.options.operations.get(input.operationId);
    if (!operation) throw new NotFoundError(`Operation "${input.operationId}" does not exist`);
    await this.finishOperation(operation, input);
  }

  /** Records the outcome on an operation record already in hand (one write, no read). */
  async finishOperation(operation: Operation, input: CompleteOperationInput): Promise<void> {
    await this.options.operations.update({
      ...operation,
      status: input.error === undefined ? OperationStatus.succeeded : OperationStatus.failed,
      updatedAt: this.now(),
      candidates: input.candidates,
      summary: input.summary,
      instances: input.instances,
      ...(input.tracesTruncated ? { tracesTruncated: true } : {}),
      ...(input.error === undefined ? {} : { error: input.error }),
    });
  }
}
