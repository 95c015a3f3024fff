/**
 * @module What the operation activities (operation-activity-service.ts) read from and write into an
 * operation's record, as pure functions: where its candidates come from, what it counted so far, the record
 * a progress write leaves (the checkpoint's batch added once), the record its completion leaves (with its
 * cost, decision 0021), and whether two records stand for the same trigger's work.
 */
import { OperationStatus, internalKindOf } from '../engine/model';
import {
  OperationKind,
  addCost,
  apportionCost,
  boundedWorkflowCosts,
  emptyCost,
  emptySummary,
  mergeTotals,
  operationWorkflowId,
  outcomesOf,
  selectionOf,
  sumCosts,
  type Operation,
  type OperationCost,
  type OperationTotals,
  type StoredOperation,
} from '../engine/operations';
import { BulkAction } from '../engine/decide';
import type { CandidateSource, CompleteOperationInput, RecordProgressInput } from './contracts/operation-activities';

/** What an operation's record counts so far. */
export function totalsOf(operation: Operation): OperationTotals {
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
    const addressed = internalKindOf(trigger, 'timer') ? trigger.subjects : operation.addressedInstanceId !== undefined ? [operation.addressedInstanceId] : undefined;
    return { subjects: trigger.subjects, ...(addressed ? { instanceIds: addressed } : {}) };
  }
  return { subjects: [], selection, ...(operation.kind === OperationKind.bulk && operation.bulk.action === BulkAction.delete ? { includeDeleting: true } : {}) };
}

/**
 * The record a progress write leaves: the progress, and the next batch's results added once (a repeated write,
 * a retried activity, finds them counted). Any other batch number is out of order (a write of an earlier run):
 * the checkpoint is left as it was.
 */
export function progressedRecord(operation: Operation, { progress, checkpoint }: Pick<RecordProgressInput, 'progress' | 'checkpoint'>): Operation {
  const counted = operation.checkpoint?.batches ?? 0;
  if (!checkpoint || (checkpoint.batches !== counted && checkpoint.batches !== counted + 1)) return { ...operation, status: OperationStatus.running, progress };
  const { finished, ...at } = checkpoint;
  const totals = checkpoint.batches === counted + 1 ? mergeTotals(totalsOf(operation), finished) : totalsOf(operation);
  const { tracesTruncated: _left, ...rest } = operation;
  return {
    ...rest,
    status: OperationStatus.running,
    progress,
    candidates: totals.candidates,
    summary: totals.summary,
    instances: totals.instances,
    ...(totals.tracesTruncated ? { tracesTruncated: true } : {}),
    ...(totals.costByWorkflow ? { costByWorkflow: totals.costByWorkflow } : {}),
    checkpoint: at,
  };
}

/**
 * The record a completion leaves, with the operation's cost when `counting`: what its applications cost
 * (`input.costByWorkflow`), what the caller counted besides (`input.overhead`), what the completing call sent
 * before its write (`sentHere`), and the write itself. `costByWorkflow` is all of it apportioned, for the daily sums.
 */
export function completedRecord(
  operation: StoredOperation,
  input: CompleteOperationInput,
  sentHere: OperationCost,
  counting: boolean,
): { readonly record: Operation; readonly costByWorkflow: Readonly<Record<string, OperationCost>> } {
  const { progress: _progress, checkpoint: _checkpoint, etag: _etag, costByWorkflow: _counted, ...finished } = operation;
  const overhead = addCost(addCost(input.overhead ?? emptyCost(), sentHere), COMPLETION_WRITE);
  const cost = addCost(sumCosts(Object.values(input.costByWorkflow ?? {})), overhead);
  const costByWorkflow = apportionCost(cost, input.costByWorkflow, operationWorkflowId(operation));
  const costs = counting ? { cost, costByWorkflow: boundedWorkflowCosts(costByWorkflow) } : {};
  const record: Operation = {
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
  };
  return { record, costByWorkflow };
}

/** The same trigger under the same id (its fingerprint), so one record may stand for the other's run. */
export function sameWork(recorded: Operation, operation: Operation): boolean {
  return 'triggerFingerprint' in recorded && 'triggerFingerprint' in operation && recorded.triggerFingerprint === operation.triggerFingerprint;
}
