/**
 * @module What an operation has counted (pure): the outcome summary, the first results kept, the cost by
 * workflow, and how a fan-out's batches and applications add into them. The orchestrators load it
 * (test/functions/determinism.test.ts), so it imports nothing impure.
 */
import { TriggerOutcome, type OperationOutcome } from '../model/enums';
import type { InstanceResult } from '../decide/instance-result';
import { addCost, addWorkflowCosts, emptyCost, type OperationCost, type WorkflowCosts } from './operation-cost';

/** At most this many per-instance results are kept on an operation; the summary counts all. */
export const MAX_OPERATION_RESULTS = 1000;

/**
 * The result an operation records for an instance. Within one operation (whose id is its trigger's id),
 * a `duplicate` can only come from the operation's own earlier attempt (a retried activity, a run resumed
 * after a crash), so the operation reports what that attempt did, as the instance recorded it.
 */
export function operationResult(result: InstanceResult): InstanceResult {
  if (result.outcome !== TriggerOutcome.duplicate || !result.applied) return result;
  return { instanceId: result.instanceId, ...result.applied };
}

/** Count per outcome: a trigger's operation lists every trigger outcome, other kinds their own (operation-work.ts). */
export type OutcomeSummary = Partial<Record<OperationOutcome, number>>;

export function emptySummary(outcomes: readonly OperationOutcome[] = Object.values(TriggerOutcome)): OutcomeSummary {
  return Object.fromEntries(outcomes.map((outcome) => [outcome, 0])) as OutcomeSummary;
}

/** What an operation has counted so far: the summary of all results, the first of them, how many. */
export interface OperationTotals {
  readonly summary: OutcomeSummary;
  /** At most MAX_OPERATION_RESULTS, in the order they were added. */
  readonly instances: readonly InstanceResult[];
  readonly candidates: number;
  /** True once a result's trace was left out (past MAX_TRACED_RESULTS). */
  readonly tracesTruncated?: boolean;
  /** What the applications counted cost, by the workflow of their instance (AppliedOutcome.cost). */
  readonly costByWorkflow?: WorkflowCosts;
}

/** Only the first this many results of an operation keep their traces (decision-trace.ts). */
export const MAX_TRACED_RESULTS = 100;

/** The results with traces past the first `traced` removed, and whether any was. */
function withTracesFrom(results: readonly InstanceResult[], traced: number): { results: InstanceResult[]; dropped: boolean } {
  let dropped = false;
  const kept = results.map((result, index) => {
    if (index < traced || !result.trace) return result;
    dropped = true;
    const { trace: _left, ...rest } = result;
    return rest;
  });
  return { results: kept, dropped };
}

/** No results yet; the summary lists `outcomes` at 0 (a trigger's by default). */
export function emptyTotals(outcomes?: readonly OperationOutcome[]): OperationTotals {
  return { summary: emptySummary(outcomes), instances: [], candidates: 0 };
}

/** Adds `more` to `into`, keeping the first MAX_OPERATION_RESULTS results (pure). */
export function mergeTotals(into: OperationTotals, more: OperationTotals): OperationTotals {
  const summary = { ...into.summary };
  for (const [outcome, count] of Object.entries(more.summary) as [OperationOutcome, number][]) summary[outcome] = (summary[outcome] ?? 0) + count;
  const room = Math.max(0, MAX_OPERATION_RESULTS - into.instances.length);
  // Traces stay on the first results only, so totals carried between activities (and the record) stay small.
  const added = withTracesFrom(more.instances.slice(0, room), MAX_TRACED_RESULTS - into.instances.length);
  const tracesTruncated = Boolean(into.tracesTruncated || more.tracesTruncated) || added.dropped || more.instances.slice(room).some((result) => result.trace);
  const costByWorkflow = addWorkflowCosts(into.costByWorkflow, more.costByWorkflow);
  return {
    summary,
    instances: [...into.instances, ...added.results],
    candidates: into.candidates + more.candidates,
    ...(tracesTruncated ? { tracesTruncated } : {}),
    ...(costByWorkflow ? { costByWorkflow } : {}),
  };
}

/**
 * A batch's totals as a checkpoint carries them to the record (operation-activities.ts), given how many
 * results the totals held before it: past MAX_OPERATION_RESULTS only its counts, as the record keeps no more (pure).
 */
export function countsToAdd(finished: OperationTotals, held: number): OperationTotals {
  return held >= MAX_OPERATION_RESULTS && finished.instances.length > 0 ? { ...finished, instances: [] } : finished;
}

/** Adds results to the totals (pure). */
export function accumulateResults(into: OperationTotals, results: readonly InstanceResult[]): OperationTotals {
  const summary: OutcomeSummary = {};
  const reported = results.map(operationResult);
  for (const result of reported) summary[result.outcome] = (summary[result.outcome] ?? 0) + 1;
  return mergeTotals(into, { summary, instances: reported, candidates: results.length });
}

/**
 * What an application of an operation to one instance hands back to the fan-out: its outcome, and the
 * result itself only when the fan-out asked to keep it (a batch that is the whole operation: its
 * completion records it); otherwise the result is in the operation's results partition.
 */
export interface AppliedOutcome {
  readonly outcome: OperationOutcome;
  readonly result?: InstanceResult;
  /**
   * In-process only (ApplyOperationInput.storeResultLater): the instance's result as applied, not stored
   * yet; the caller stores its batch's results together before it counts the batch.
   */
  readonly unstored?: InstanceResult;
  /** What applying it cost (decision 0021), attributed to `workflowId` (absent: the instance was not found). */
  readonly cost?: OperationCost;
  readonly workflowId?: string;
}

/**
 * Characters of JSON a result handed back with its outcome may take (`AppliedOutcome.result`): on Azure
 * it travels through durable history, so a longer one (a long trace) is stored as a row instead.
 */
export const MAX_KEPT_RESULT_LENGTH = 4_000;

/** The application as a durable activity of its own (the orchestrations' plan counts it: decision 0021) (pure). */
export function countedAsActivity(applied: AppliedOutcome): AppliedOutcome {
  const cost = applied.cost ?? emptyCost();
  return { ...applied, cost: { ...cost, activities: cost.activities + 1 } };
}

/**
 * Counts outcomes into totals (pure), with the results handed back (in instance id order, as the
 * results partition lists them); the others are in the operation's results partition.
 */
export function countOutcomes(into: OperationTotals, applied: readonly AppliedOutcome[]): OperationTotals {
  const summary: OutcomeSummary = {};
  for (const { outcome } of applied) summary[outcome] = (summary[outcome] ?? 0) + 1;
  const costByWorkflow: Record<string, OperationCost> = {};
  for (const { cost, workflowId = '' } of applied) if (cost) costByWorkflow[workflowId] = addCost(costByWorkflow[workflowId] ?? emptyCost(), cost);
  const costs = Object.keys(costByWorkflow).length > 0 ? { costByWorkflow } : {};
  const kept = applied.flatMap(({ result }) => (result ? [result] : [])).sort((a, b) => (a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0));
  return mergeTotals(into, { summary, instances: kept, candidates: applied.length, ...costs });
}
