/**
 * @module Operations: the long-running-operation record of one fan-out over instances: a trigger's
 * dispatch, a migration between versions, or a bulk action (operation-work.ts).
 */
import { TriggerOutcome, type OperationOutcome, type OperationStatus } from '../model/enums';
import type { BulkRequest, MigrationRequest } from '../decide/operation-work';
import type { Trigger } from '../model/trigger';
import { addCost, addWorkflowCosts, emptyCost, type OperationCost, type WorkflowCosts } from './operation-cost';

/** At most this many per-instance results are kept on an operation; the summary counts all. */
export const MAX_OPERATION_RESULTS = 1000;

export type { InstanceResult } from '../decide/instance-result';
import type { InstanceResult } from '../decide/instance-result';

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

/** How far a running operation got: `total` once every candidate is known, `processed` as results come in. */
export interface OperationProgress {
  readonly total?: number;
  readonly processed: number;
}

export const OperationKind = {
  trigger: 'trigger',
  migration: 'migration',
  bulk: 'bulk',
} as const;
export type OperationKind = (typeof OperationKind)[keyof typeof OperationKind];

interface OperationRecord {
  readonly id: string;
  readonly status: OperationStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Instances the trigger was offered to. */
  readonly candidates: number;
  readonly summary: OutcomeSummary;
  /** The first MAX_OPERATION_RESULTS results (fewer when they would not fit: `instancesTruncated`). */
  readonly instances: readonly InstanceResult[];
  /** Only when status is `failed`. */
  readonly error?: string;
  /** While running (recorded page by page). */
  readonly progress?: OperationProgress;
  /**
   * True when `instances` does not hold every result (past MAX_OPERATION_RESULTS, or trimmed so the record
   * fits its store: see fitOperation); `summary` still counts them all.
   */
  readonly instancesTruncated?: boolean;
  /**
   * True when some results' traces were left out: past the first MAX_TRACED_RESULTS results, or beyond
   * MAX_TRACES_LENGTH characters of traces (see fitOperation); the outcomes are all still there.
   */
  readonly tracesTruncated?: boolean;
  /**
   * Deaths in a row of a process while it was deciding this operation (local host's poison rule,
   * host/local/operation-resumption.ts: a mark in `deciding` found under the instance's lease); a decision
   * that ends starts the count again, and past a small limit the operation fails as poison.
   */
  readonly resumes?: number;
  /** Written by records before the deciding marks (start-ups counted by progress); no longer read. */
  readonly resumedAtProgress?: number;
  /**
   * Decisions of a resumed run in progress, by instance id: a token written under the instance's lease as
   * its decision begins and removed before the lease is let go. One found by the next holder of that lease
   * was left by a process that died while deciding (a poison strike).
   */
  readonly deciding?: Readonly<Record<string, string>>;
  /**
   * While running: how far the fan-out got, so a resumed run goes on from there (never offering again an
   * instance counted in `candidates`, `summary` and `instances`, which hold every finished batch's results).
   */
  readonly checkpoint?: OperationCheckpoint;
  /**
   * What the operation cost (decision 0021): on a finished record every request its run sent, up to and
   * including the write of this record; absent on records written before costs were counted.
   */
  readonly cost?: OperationCost;
  /**
   * `cost` by workflow (apportionCost): each workflow's instances' applications, and the rest shared.
   * While running: what the counted batches' applications cost so far (progress writes carry it).
   */
  readonly costByWorkflow?: WorkflowCosts;
}

/**
 * Where an unfinished operation's fan-out stands, written with its progress (operation-activities.ts): the
 * record's totals count the first `batches` batches (pages) of instances; `pending` were found and not
 * yet counted (offered first when the run resumes); candidates not yet found are read on from
 * `continuationToken` (absent: from the first page) unless `allFound`.
 */
export interface OperationCheckpoint {
  readonly batches: number;
  readonly pending: readonly string[];
  readonly allFound: boolean;
  readonly continuationToken?: string;
}

/** A trigger's dispatch; records from before operation kinds have no `kind`. */
export interface TriggerOperation extends OperationRecord {
  readonly kind?: typeof OperationKind.trigger;
  readonly triggerId: string;
  /** The trigger itself, kept so an unfinished operation can be resumed after a crash. */
  readonly trigger: Trigger;
  /** A hash of the trigger's body, so a repeat of its id with another body is refused (host/trigger-fingerprint.ts). */
  readonly triggerFingerprint?: string;
  /**
   * Sent to this one instance (POST /api/instances/{id}/triggers; its one subject is the instance id): it
   * is the only candidate, as for a timer's trigger, so no interest lookup is made.
   */
  readonly addressedInstanceId?: string;
  /** The trigger's priority (1-5, the default filled in), where runners queue operations; absent on records written before priorities. */
  readonly priority?: number;
}

export interface MigrationOperation extends OperationRecord {
  readonly kind: typeof OperationKind.migration;
  readonly migration: MigrationRequest;
}

export interface BulkOperation extends OperationRecord {
  readonly kind: typeof OperationKind.bulk;
  readonly bulk: BulkRequest;
}

export type Operation = TriggerOperation | MigrationOperation | BulkOperation;
export type StoredOperation = Operation & { readonly etag: string };

export function operationKind(operation: Operation): OperationKind {
  return operation.kind ?? OperationKind.trigger;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * An operation as a list shows it: what it was and how it ended, without its per-instance results or
 * the bookkeeping of a run in progress (`progress` is read from the operation itself).
 */
export type ListedOperation = DistributiveOmit<
  Operation,
  'instances' | 'progress' | 'resumes' | 'resumedAtProgress' | 'deciding' | 'triggerFingerprint' | 'addressedInstanceId' | 'cost' | 'costByWorkflow'
>;

/** The operation as listed (pure). */
export function listedOperation(operation: Operation): ListedOperation {
  const {
    instances: _instances,
    progress: _progress,
    resumes: _resumes,
    resumedAtProgress: _at,
    deciding: _deciding,
    etag: _etag,
    triggerFingerprint: _fingerprint,
    addressedInstanceId: _addressed,
    // The record has the cost; the listing row (what lists show) need not carry it too.
    cost: _cost,
    costByWorkflow: _byWorkflow,
    ...rest
  } = operation as StoredOperation & { triggerFingerprint?: string; addressedInstanceId?: string };
  return rest as ListedOperation;
}

/** The workflow a migration or bulk action is of; a trigger is addressed to subjects, not to a workflow. */
export function operationWorkflowId(operation: Pick<Operation, 'kind'> & Partial<Pick<MigrationOperation, 'migration'> & Pick<BulkOperation, 'bulk'>>): string | undefined {
  if (operation.kind === OperationKind.migration) return operation.migration?.workflowId;
  if (operation.kind === OperationKind.bulk) return operation.bulk?.filter.workflowId;
  return undefined;
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

/** Characters kept of one instance's error message on an operation record. */
export const MAX_RESULT_ERROR_LENGTH = 500;
/**
 * Characters of JSON the per-instance results of one operation may take. Table Storage stores strings
 * as UTF-16 and an entity is at most 1 MiB: this leaves room for the trigger (at most 64 KiB) and the rest.
 */
export const MAX_OPERATION_RESULTS_LENGTH = 320_000;
/** Of MAX_OPERATION_RESULTS_LENGTH, at most this many characters are traces: outcomes are kept before traces. */
export const MAX_TRACES_LENGTH = 160_000;

function shortened(message: string, limit: number): string {
  return message.length <= limit ? message : `${message.slice(0, limit - 15)}… (truncated)`;
}

/**
 * One result as an operation's results partition keeps it (a row per instance): its error shortened as
 * on the record, and a trace longer than MAX_TRACES_LENGTH left out, so that every row fits (pure).
 */
export function fitResult(result: InstanceResult): InstanceResult {
  const error = result.error !== undefined && result.error.length > MAX_RESULT_ERROR_LENGTH ? shortened(result.error, MAX_RESULT_ERROR_LENGTH) : result.error;
  const { trace, error: _error, ...rest } = result;
  const keepTrace = trace !== undefined && JSON.stringify(trace).length <= MAX_TRACES_LENGTH;
  return { ...rest, ...(error !== undefined ? { error } : {}), ...(keepTrace ? { trace } : {}) };
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

/**
 * The operation as its store keeps it: error messages shortened, and the per-instance results cut to
 * fit MAX_OPERATION_RESULTS_LENGTH, saying so in `instancesTruncated`. An operation whose record would
 * not fit would otherwise never finish (its final write refused, it stays `running`) (pure).
 */
export function fitOperation<T extends Operation>(operation: T): T {
  let length = 0;
  let tracesLength = 0;
  let tracesDropped = false;
  const kept: InstanceResult[] = [];
  for (const [index, result] of operation.instances.entries()) {
    let fitted = result.error !== undefined && result.error.length > MAX_RESULT_ERROR_LENGTH ? { ...result, error: shortened(result.error, MAX_RESULT_ERROR_LENGTH) } : result;
    if (fitted.trace) {
      const traceLength = JSON.stringify(fitted.trace).length;
      if (index >= MAX_TRACED_RESULTS || tracesLength + traceLength > MAX_TRACES_LENGTH) {
        const { trace: _left, ...rest } = fitted;
        fitted = rest;
        tracesDropped = true;
      } else {
        tracesLength += traceLength;
      }
    }
    length += JSON.stringify(fitted).length + 1;
    if (length > MAX_OPERATION_RESULTS_LENGTH) break;
    kept.push(fitted);
  }
  const counted = Object.values(operation.summary).reduce((sum, count) => sum + count, 0);
  const truncated = kept.length < operation.instances.length || kept.length < counted;
  const tracesTruncated = tracesDropped || Boolean(operation.tracesTruncated);
  const changed = truncated !== Boolean(operation.instancesTruncated) || tracesTruncated !== Boolean(operation.tracesTruncated) || kept.some((result, index) => result !== operation.instances[index]);
  const error = operation.error !== undefined && operation.error.length > 4 * MAX_RESULT_ERROR_LENGTH ? shortened(operation.error, 4 * MAX_RESULT_ERROR_LENGTH) : operation.error;
  if (!changed && error === operation.error) return operation;
  const { instancesTruncated: _previous, tracesTruncated: _previousTraces, ...rest } = operation;
  return {
    ...rest,
    instances: kept,
    ...(error !== undefined ? { error } : {}),
    ...(truncated ? { instancesTruncated: true } : {}),
    ...(tracesTruncated ? { tracesTruncated: true } : {}),
  } as unknown as T;
}
