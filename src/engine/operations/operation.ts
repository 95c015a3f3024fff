/**
 * @module Operations: the long-running-operation record of one fan-out over instances: a trigger's
 * dispatch, a migration between versions, or a bulk action (operation-work.ts).
 */
import type { OperationStatus } from '../model/enums';
import type { BulkRequest, MigrationRequest } from '../decide/operation-work';
import type { Trigger } from '../model/trigger';
import type { OperationCost, WorkflowCosts } from './operation-cost';

export type { InstanceResult } from '../decide/instance-result';
import type { InstanceResult } from '../decide/instance-result';
import type { OutcomeSummary } from './operation-totals';

// What an operation counts and how its record is fitted to the store have their own modules.
export * from './operation-totals';
export * from './operation-fit';

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
