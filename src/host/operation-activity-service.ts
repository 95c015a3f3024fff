/**
 * @module The OperationActivities both hosts run: the durable activities on Azure and the local runner's
 * steps, for every kind of operation (a trigger, a migration, a bulk action). Per-instance failures
 * that retrying cannot fix become a `faulted` result (a trigger's) or `failed` (the other kinds') for
 * that instance, so one bad instance never fails a whole operation; retryable ones are thrown for the
 * caller to retry.
 */
import type { Engine } from '../engine/engine';
import { ActionOutcome, OperationStatus, TriggerOutcome } from '../engine/model';
import { BoundedMap, FlowQueuedError, NotFoundError, isRetryable } from '../engine/model';
import {
  MAX_KEPT_RESULT_LENGTH,
  OperationKind,
  addCost,
  apportionCost,
  boundedWorkflowCosts,
  emptyCost,
  operationWorkflowId,
  subtractCost,
  sumCosts,
  type OperationCost,
  emptySummary,
  fitResult,
  mergeTotals,
  operationResult,
  type InstanceResult,
  type Operation,
  type OperationTotals,
  type StoredOperation,
} from '../engine/operations';
import { BulkAction } from '../engine/decide';
import { outcomesOf, selectionOf } from '../engine/operations';
import type { OperationStore } from '../engine/ports';
import { isFinished } from './finished-operation-cache';
import { CostAccumulator, currentCost, isCostCounting, meter } from './cost/cost-scope';
import type { DailyCosts } from './cost/daily-costs';
import { dayOf } from '../storage/table-cost-store';
import {
  CANDIDATE_PAGE_SIZE,
  type ApplyOperationAnswer,
  type ApplyOperationInput,
  type BeginOperationInput,
  type QueuedForSlot,
  type BeginOperationOutput,
  type CandidateSource,
  type CompleteOperationInput,
  type StoreResultsInput,
  type FindCandidatesInput,
  type FindCandidatesOutput,
  type RecordProgressInput,
  type InProcessOperationActivities,
} from './contracts/operation-activities';

export interface Logger {
  info(message: string, properties?: Record<string, unknown>): void;
  warn(message: string, properties?: Record<string, unknown>): void;
  error(message: string, properties?: Record<string, unknown>): void;
}

/**
 * Recent operations (what each applies: its trigger, migration or bulk action), so each worker reads an
 * operation once, not once per instance. The work of an operation never changes once recorded.
 */
export class OperationWorkCache {
  private readonly operations: BoundedMap<string, Operation>;
  constructor(capacity = 1000) {
    this.operations = new BoundedMap(capacity);
  }

  get(operationId: string): Operation | undefined {
    return this.operations.get(operationId);
  }

  set(operationId: string, operation: Operation): void {
    this.operations.set(operationId, operation);
  }
}

/** What an operation's record counts so far. */
function totalsOf(operation: Operation): OperationTotals {
  return {
    summary: operation.summary,
    instances: operation.instances,
    candidates: operation.candidates,
    ...(operation.tracesTruncated ? { tracesTruncated: true } : {}),
    ...(operation.costByWorkflow ? { costByWorkflow: operation.costByWorkflow } : {}),
  };
}

/** The write that records an operation's completion: one request (a transaction with its listing row), counted before it is sent. */
const COMPLETION_WRITE: OperationCost = { ...emptyCost(), storage: { ...emptyCost().storage, tableWrite: 1 } };

/** Where the operation's candidates come from. */
export function candidateSourceOf(operation: Operation): CandidateSource {
  const selection = selectionOf(operation);
  if (!selection) {
    if (operation.kind !== undefined && operation.kind !== OperationKind.trigger) return { subjects: [] };
    const { trigger } = operation;
    // A timer's trigger has one subject, its own instance (timers.ts), and so has one sent to an instance
    // by its route: that is the candidate.
    const addressed = trigger.timer ? trigger.subjects : operation.addressedInstanceId !== undefined ? [operation.addressedInstanceId] : undefined;
    return { subjects: trigger.subjects, ...(addressed ? { instanceIds: addressed } : {}) };
  }
  return { subjects: [], selection, ...(operation.kind === OperationKind.bulk && operation.bulk.action === BulkAction.delete ? { includeDeleting: true } : {}) };
}

export interface OperationActivityServiceOptions {
  readonly engine: Engine;
  readonly operations: OperationStore;
  readonly operationWorkCache: OperationWorkCache;
  readonly logger: Logger;
  /** The engine's clock (one clock for the host's times). */
  readonly now: () => Date;
  /** Where each finished operation's cost is added per workflow per day (decision 0021); absent: on the record only. */
  readonly costs?: Pick<DailyCosts, 'add'>;
}

export class OperationActivityService implements InProcessOperationActivities {
  /**
   * The record of each operation this service began and has not completed, as last written: progress and
   * completion write from it without reading. Only within one service: the local runner keeps one for
   * its life; the Functions app builds one per activity invocation, so there each activity reads, as
   * another worker may have run the previous one.
   */
  private readonly inHand = new Map<string, StoredOperation>();
  /** Operations begun before they were recorded (BeginOperationInput.unrecorded): their first write creates the record. */
  private readonly unrecorded = new Set<string>();

  constructor(private readonly options: OperationActivityServiceOptions) {}

  private now(): string {
    return this.options.now().toISOString();
  }

  async beginOperation(input: BeginOperationInput): Promise<BeginOperationOutput> {
    const { operationId, operation: known, deferRunning = false, unrecorded = false } = typeof input === 'string' ? { operationId: input } : input;
    const operation = known ?? (await this.options.operations.get(operationId));
    if (!operation) throw new NotFoundError(`Operation "${operationId}" does not exist`);
    this.options.operationWorkCache.set(operationId, operation);
    const source = candidateSourceOf(operation);
    const outcomes = operation.kind === undefined || operation.kind === OperationKind.trigger ? {} : { outcomes: outcomesOf(operation) };
    if (operation.status === OperationStatus.succeeded || operation.status === OperationStatus.failed) {
      return { ...source, ...outcomes, shouldRun: false };
    }
    // Begun from its record (a run started again after one that wrote nothing): no longer unrecorded.
    if (unrecorded && known) this.unrecorded.add(operationId);
    else this.unrecorded.delete(operationId);
    const begun = operation.status === OperationStatus.running || deferRunning ? operation : await this.write({ ...operation, status: OperationStatus.running });
    this.inHand.set(operationId, begun);
    // An earlier run got this far: go on from there, with what it counted.
    const resume = operation.checkpoint ? { resume: { checkpoint: operation.checkpoint, totals: totalsOf(operation) } } : {};
    return { ...source, ...outcomes, ...resume, shouldRun: true };
  }

  /** The operation's latest record: the one in hand, else read. */
  private async recordOf(operationId: string): Promise<StoredOperation | undefined> {
    return this.inHand.get(operationId) ?? (await this.options.operations.get(operationId));
  }

  /** Replaces the record (stamped `updatedAt`), keeping the result in hand while the operation runs. */
  private async write(operation: Operation): Promise<StoredOperation> {
    const stamped = { ...operation, updatedAt: this.now() };
    const stored = this.unrecorded.has(operation.id) ? await this.recordFirst(stamped) : await this.options.operations.update(stamped);
    if (stored.status === OperationStatus.succeeded || stored.status === OperationStatus.failed) this.inHand.delete(stored.id);
    else this.inHand.set(stored.id, stored);
    return stored;
  }

  /**
   * The first write of an operation begun before it was recorded: creates the record. One recorded
   * meanwhile for the same trigger (the submitter's, when the client's wait ran out: unfinished) is
   * completed by this write; a finished one, or one of another body under the same id, is left as it is.
   */
  private async recordFirst(operation: Operation): Promise<StoredOperation> {
    const { operation: recorded, created } = await this.options.operations.create(operation);
    if (created || isFinished(recorded) || sameWork(recorded, operation)) this.unrecorded.delete(operation.id);
    // Another's record is never written over: each write of this run tries to create again, and answers it.
    if (created || isFinished(recorded) || !sameWork(recorded, operation)) return recorded;
    return this.options.operations.update(operation);
  }

  async findCandidates(input: FindCandidatesInput): Promise<FindCandidatesOutput> {
    if (input.instanceIds) return { instanceIds: [...input.instanceIds] };
    const maxPageSize = Math.max(1, Math.min(CANDIDATE_PAGE_SIZE, Math.floor(input.maxPageSize ?? CANDIDATE_PAGE_SIZE)));
    const pageOptions = { maxPageSize, ...(input.continuationToken ? { continuationToken: input.continuationToken } : {}) };
    const page = input.selection
      ? await this.options.engine.migrationsAndBulkActions.selectPage(input.selection, pageOptions, input.includeDeleting ?? false)
      : await this.options.engine.findCandidates(input.subjects, pageOptions);
    return { instanceIds: page.items, ...(page.continuationToken ? { continuationToken: page.continuationToken } : {}) };
  }

  private async operationOf(operationId: string): Promise<Operation> {
    const cached = this.options.operationWorkCache.get(operationId);
    if (cached) return cached;
    const operation = await this.options.operations.get(operationId);
    if (!operation) throw new NotFoundError(`Operation "${operationId}" does not exist`);
    this.options.operationWorkCache.set(operationId, operation);
    return operation;
  }

  /**
   * Applies the operation to one instance, its requests counted apart (a child of the run's accumulator,
   * cost-scope.ts) and attributed to the instance's workflow (decision 0021).
   */
  async applyOperation(input: ApplyOperationInput): Promise<ApplyOperationAnswer> {
    if (!isCostCounting()) return this.applyCounted(input, new CostAccumulator());
    const accumulator = (currentCost() ?? new CostAccumulator()).child();
    const outcome = await meter(accumulator, () => this.applyCounted(input, accumulator));
    const cost = accumulator.close();
    const workflowId = accumulator.workflowId;
    return { ...outcome, cost, ...(workflowId !== undefined ? { workflowId } : {}) };
  }

  private async applyCounted(
    { operationId, instanceId, keepResult = false, storeResultLater = false, parkWhenQueued = false }: ApplyOperationInput,
    accumulator: CostAccumulator,
  ): Promise<ApplyOperationAnswer> {
    const operation = await this.operationOf(operationId);
    accumulator.workflowId = operationWorkflowId(operation);
    // A `duplicate` (a retried or resumed application) is reported as what the first one did, and its row
    // is kept if that one wrote it (with its trace, which the instance's record does not hold).
    const applied = await this.resultOf(operation, instanceId, parkWhenQueued, (workflowId) => (accumulator.workflowId = workflowId));
    // Queued for a slot: nothing applied, nothing stored (the result row is written by the try that applies it).
    if ('queued' in applied) return applied;
    const result = operationResult(applied);
    if (keepResult) {
      const kept = fitResult(result);
      if (JSON.stringify(kept).length <= MAX_KEPT_RESULT_LENGTH) return { outcome: result.outcome, result: kept };
    }
    if (storeResultLater) return { outcome: result.outcome, unstored: applied };
    await this.storeResult(operationId, applied);
    return { outcome: result.outcome };
  }

  /** Put in the same turn, the rows go out together (one transaction per 100: TableOperationStore.putResult). */
  async storeResults({ operationId, results }: StoreResultsInput): Promise<void> {
    await Promise.all(results.map((applied) => this.storeResult(operationId, applied)));
  }

  private async storeResult(operationId: string, applied: InstanceResult): Promise<void> {
    await this.options.operations.putResult(operationId, operationResult(applied), { keepExisting: applied.outcome === TriggerOutcome.duplicate });
  }

  private async resultOf(operation: Operation, instanceId: string, parkWhenQueued: boolean, onWorkflow: (workflowId: string) => void): Promise<InstanceResult | QueuedForSlot> {
    const operationId = operation.id;
    const { engine } = this.options;
    try {
      switch (operation.kind) {
        case OperationKind.migration:
          return await engine.migrationsAndBulkActions.migrate(instanceId, operation.migration, { operationId });
        case OperationKind.bulk:
          return await engine.migrationsAndBulkActions.applyBulk(instanceId, operation.bulk, { operationId });
        default:
          // A repeated delivery answers `duplicate` with what the trigger did then, from the instance's record;
          // the operation's totals report that (operationResult in src/engine/operations/operation.ts).
          // Applied no earlier than its operation was recorded: the instance looks up older records only then.
          return await engine.applyTrigger(instanceId, operation.trigger, { offeredSince: operation.createdAt, ...(parkWhenQueued ? { maxSlotWaitInMs: 0 } : {}) }, onWorkflow);
      }
    } catch (error) {
      // Handed back without a slot (no wait in place): the engine's verdict is the answer, for every host alike.
      if (parkWhenQueued && error instanceof FlowQueuedError) return { queued: error.verdict };
      if (isRetryable(error)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      this.options.logger.error('applying an operation to an instance failed', { operationId, instanceId, error: message });
      return { instanceId, outcome: operation.kind === OperationKind.migration || operation.kind === OperationKind.bulk ? ActionOutcome.failed : TriggerOutcome.faulted, error: message };
    }
  }

  async recordProgress({ operationId, progress, checkpoint }: RecordProgressInput): Promise<void> {
    const operation = await this.recordOf(operationId);
    if (!operation || operation.status === OperationStatus.succeeded || operation.status === OperationStatus.failed) return;
    const counted = operation.checkpoint?.batches ?? 0;
    // The next batch's results are added once; a repeated write (a retried activity) finds them counted.
    // Any other number is out of order (a write of an earlier run): the checkpoint is left as it was.
    if (!checkpoint || (checkpoint.batches !== counted && checkpoint.batches !== counted + 1)) {
      await this.write({ ...operation, status: OperationStatus.running, progress });
      return;
    }
    const { finished, ...at } = checkpoint;
    const totals = checkpoint.batches === counted + 1 ? mergeTotals(totalsOf(operation), finished) : totalsOf(operation);
    const { tracesTruncated: _left, ...rest } = operation;
    await this.write({
      ...rest,
      status: OperationStatus.running,
      progress,
      candidates: totals.candidates,
      summary: totals.summary,
      instances: totals.instances,
      ...(totals.tracesTruncated ? { tracesTruncated: true } : {}),
      ...(totals.costByWorkflow ? { costByWorkflow: totals.costByWorkflow } : {}),
      checkpoint: at,
    });
  }

  /**
   * Records the completion with the operation's cost (decision 0021): what its applications cost
   * (`input.costByWorkflow`), what the caller counted besides (`input.overhead`), what this call sent
   * before its write, and the write itself; then adds it to each workflow's row of the day (costs).
   */
  async completeOperation(input: CompleteOperationInput): Promise<void> {
    const accumulator = currentCost();
    const before = accumulator?.snapshot();
    const counting = isCostCounting();
    const operation = await this.recordOf(input.operationId);
    if (!operation) throw new NotFoundError(`Operation "${input.operationId}" does not exist`);
    const { progress: _progress, checkpoint: _checkpoint, etag: _etag, costByWorkflow: _counted, ...finished } = operation;
    const here = accumulator && before ? subtractCost(accumulator.snapshot(), before) : emptyCost();
    const overhead = addCost(addCost(input.overhead ?? emptyCost(), here), COMPLETION_WRITE);
    const cost = addCost(sumCosts(Object.values(input.costByWorkflow ?? {})), overhead);
    const costByWorkflow = apportionCost(cost, input.costByWorkflow, operationWorkflowId(operation));
    const costs = counting ? { cost, costByWorkflow: boundedWorkflowCosts(costByWorkflow) } : {};
    const written = await this.write({
      ...finished,
      status: input.error === undefined ? OperationStatus.succeeded : OperationStatus.failed,
      candidates: input.candidates,
      // Every outcome of the kind is listed, at 0 when none had it.
      summary: { ...emptySummary(outcomesOf(operation)), ...input.summary },
      instances: input.instances,
      ...(input.tracesTruncated ? { tracesTruncated: true } : {}),
      ...(input.error === undefined ? {} : { error: input.error }),
      // All of them go to the daily sums; the record names the costliest (a broadcast may reach hundreds).
      ...costs,
    });
    if (counting) this.addToDailyCosts(written.updatedAt, costByWorkflow);
  }

  /** In memory, written in the background (daily-costs.ts): no request more for the completion. */
  private addToDailyCosts(at: string, costByWorkflow: Readonly<Record<string, OperationCost>>): void {
    const { costs } = this.options;
    if (!costs) return;
    const day = dayOf(at);
    for (const [workflowId, cost] of Object.entries(costByWorkflow)) costs.add(day, workflowId, cost);
  }
}

/** The same trigger under the same id (its fingerprint), so one record may stand for the other's run. */
function sameWork(recorded: Operation, operation: Operation): boolean {
  return 'triggerFingerprint' in recorded && 'triggerFingerprint' in operation && recorded.triggerFingerprint === operation.triggerFingerprint;
}
