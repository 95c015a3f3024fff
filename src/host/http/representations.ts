/** @module What the API returns for stored things: the public shape, without internal bookkeeping. */
import type { WorkflowVersion } from '../../engine/definition';
import type { StoredInstance } from '../../engine/model';
import { faultedCountOf, listedOperation, operationEnding, operationPriority, type ListedOperation, type StoredOperation } from '../../engine/operations';
import type { Page } from '../../engine/ports';

export function workflowBody(workflow: WorkflowVersion) {
  return { ...workflow.definition, version: workflow.version, etag: workflow.etag };
}

export function instanceBody(instance: StoredInstance) {
  return {
    id: instance.id,
    workflowId: instance.workflowId,
    workflowVersion: instance.workflowVersion,
    stateId: instance.stateId,
    status: instance.status,
    context: instance.context,
    interests: instance.interests,
    // Armed timers of the current state entry (none once it is left, fired or spent; none when not waiting).
    timers: (instance.timers ?? []).map((timer) => ({ transitionId: timer.transitionId, dueAt: timer.dueAt })),
    // `retryable`: the fault recorded its trigger (Instance.faultedTrigger, internal), so a retry can apply it again.
    ...(instance.fault ? { fault: { ...instance.fault, ...(instance.faultedTrigger && instance.status === 'faulted' ? { retryable: true } : {}) } } : {}),
    ...(instance.pendingRetry ? { pendingRetry: instance.pendingRetry } : {}),
    ...(instance.parent ? { parent: { instanceId: instance.parent.instanceId } } : {}),
    ...(instance.businessKey !== undefined ? { businessKey: instance.businessKey } : {}),
    ...(instance.search?.problems ? { indexProblems: instance.search.problems } : {}),
    ...(instance.cost ? { cost: instance.cost } : {}),
    createdAt: instance.createdAt,
    updatedAt: instance.updatedAt,
    etag: instance.etag,
  };
}

/** What the operation was: its trigger (name, subjects, parameters), migration or bulk action. */
function operationWhat(operation: ListedOperation) {
  if (operation.kind === 'migration') {
    const { actor: _actor, ...migration } = operation.migration;
    return { migration };
  }
  if (operation.kind === 'bulk') {
    const { actor: _actor, ...bulk } = operation.bulk;
    return { bulk };
  }
  const { name, subjects, parameters, contentType, priority } = operation.trigger;
  return {
    triggerId: operation.triggerId,
    trigger: { name, subjects, ...(parameters !== undefined ? { parameters } : {}), ...(contentType !== undefined ? { contentType } : {}), ...(priority !== undefined ? { priority } : {}) },
    priority: operationPriority(operation),
  };
}

/** Who asked for the operation (absent on records made before actors, and by library callers that name none). */
function actorOfOperation(operation: ListedOperation) {
  const actor = operation.kind === 'migration' ? operation.migration.actor : operation.kind === 'bulk' ? operation.bulk.actor : operation.trigger.actor;
  return actor ? { actor } : {};
}

/** An operation as GET /api/operations lists it: what it was and how it ended, without its per-instance results. */
export function listedOperationBody(operation: ListedOperation) {
  return {
    id: operation.id,
    kind: operation.kind ?? 'trigger',
    ...operationWhat(operation),
    ...actorOfOperation(operation),
    status: operation.status,
    // `succeeded` says the dispatch finished; `outcome` says how it went for the instances, `faulted` how many faulted.
    ...(operationEnding(operation) ? { outcome: operationEnding(operation)! } : {}),
    faulted: faultedCountOf(operation),
    createdAt: operation.createdAt,
    updatedAt: operation.updatedAt,
    candidates: operation.candidates,
    summary: operation.summary,
    ...(operation.error ? { error: operation.error } : {}),
  };
}

export function operationBody(operation: StoredOperation) {
  const { error, ...listed } = listedOperationBody(listedOperation(operation));
  return {
    ...listed,
    instances: operation.instances,
    ...(operation.progress && operation.status === 'running' ? { progress: operation.progress } : {}),
    ...(operation.instancesTruncated ? { instancesTruncated: true } : {}),
    ...(operation.tracesTruncated ? { tracesTruncated: true } : {}),
    ...(error ? { error } : {}),
    ...(operation.cost ? { cost: operation.cost } : {}),
    ...(operation.costByWorkflow ? { costByWorkflow: operation.costByWorkflow } : {}),
  };
}

export function operationUrl(operationId: string): string {
  return `/api/operations/${encodeURIComponent(operationId)}`;
}

export function instanceUrl(instanceId: string): string {
  return `/api/instances/${encodeURIComponent(instanceId)}`;
}

/** A page of a list as the API returns it: `{ items, continuationToken? }`. */
export function pageBody<T>(items: readonly T[], page: Pick<Page<unknown>, 'continuationToken'>) {
  return { items, ...(page.continuationToken ? { continuationToken: page.continuationToken } : {}) };
}
