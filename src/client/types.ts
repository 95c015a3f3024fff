/**
 * @module The API's shapes by name, every one taken from the types generated from the OpenAPI document
 * (api-types.ts), so the CLI and the console read exactly what the server says it sends. The lists of
 * statuses and kinds are values (for menus and argument checks); each is checked against its generated
 * union, so a status the API adds fails to compile until it is listed.
 */
import type { components, operations } from './api-types';

export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
export type Workflow = Schemas['Workflow'];
export type WorkflowDefinition = Schemas['WorkflowDefinition'];
export type WorkflowSummary = Schemas['WorkflowSummary'];
export type Instance = Schemas['Instance'];
export type InstanceStatus = Instance['status'];
export type HistoryEntry = Schemas['HistoryEntry'];
/** A trigger offered to an instance that changed nothing. */
export type Offer = Schemas['OfferList']['items'][number];
export type TraceEntry = Schemas['TraceEntry'];
export type Operation = Schemas['Operation'];
export type OperationStatus = Operation['status'];
export type OperationKind = Operation['kind'];
/** An operation as a list shows it: without its per-instance results. */
export type ListedOperation = Schemas['ListedOperation'];
/** One instance's result in an operation. */
export type InstanceOutcome = Operation['instances'][number];
export type AcceptedOperation = Schemas['AcceptedOperation'];
/** What an operation cost, counted (decision 0021), and a workflow's sums per day with an estimate. */
export type OperationCost = Schemas['OperationCost'];
export type WorkflowCost = Schemas['WorkflowCost'];
export type TenantCost = Schemas['TenantCost'];
export type DryRun = Schemas['DryRun'];
export type DryRunInstance = DryRun['instances'][number];
export type AvailableTriggers = Schemas['AvailableTriggers'];
export type AvailableTrigger = AvailableTriggers['items'][number];
export type LifecycleEvent = Schemas['LifecycleEvent'];
/** Why an instance is not moving (`GET /instances/{id}/waiting`): the primary class and every reason. */
export type WaitingAnswer = Schemas['WaitingAnswer'];
export type WaitingReason = Schemas['WaitingReason'];
export type WaitingClass = WaitingAnswer['class'];
/** A workflow's instances that are not final, counted per class and state (`GET /workflows/{id}/waiting`). */
export type WaitingSummary = Schemas['WaitingSummary'];
export type WaitingGroup = WaitingSummary['groups'][number];
export type MigrationReport = Schemas['MigrationReport'];
/** A tenant (the admin API, `/tenants`). */
export type Tenant = Schemas['Tenant'];
/** A tenant's deletion as DELETE /tenants/{tenantId} answers it. */
export type TenantDeletion = Schemas['TenantDeletion'];
/** What PUT /tenants/{tenantId} takes: its own storage account, its own quotas. */
export type TenantInput = Schemas['TenantInput'];
export type BulkDryRun = Schemas['BulkDryRun'];
/** A trigger sent to one instance (`POST /instances/{id}/triggers`). */
export type InstanceTrigger = NonNullable<operations['sendInstanceTrigger']['requestBody']>['content']['application/json'];
export type CreateInstanceRequest = operations['createInstance']['requestBody']['content']['application/json'];
export type MigrationRequest = NonNullable<operations['migrateInstances']['requestBody']>['content']['application/json'];
export type BulkRequest = NonNullable<operations['bulkInstances']['requestBody']>['content']['application/json'];
export type BulkAction = BulkRequest['action'];

/** A page of a list: `continuationToken` is there when there may be more. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly continuationToken?: string;
}

type InstanceQuery = NonNullable<operations['listInstances']['parameters']['query']>;
export type InstanceFilter = Pick<InstanceQuery, 'workflowId' | 'stateId' | 'status' | 'subject' | 'parentId'>;
/** A search of one workflow's instances by a filter (README, "Finding instances"). */
export type InstanceSearch = Required<Pick<InstanceQuery, 'workflowId'>> & Pick<InstanceQuery, 'filter' | 'orderBy' | 'explain'>;
type CountQuery = NonNullable<operations['countInstances']['parameters']['query']>;
/** What `GET /api/instance-counts` is asked. */
export type InstanceCountQuery = CountQuery;
/** What it answers: `{ count }`, with `groups` when grouped. */
export type InstanceCounts = operations['countInstances']['responses'][200]['content']['application/json'];
type OperationQuery = NonNullable<operations['listOperations']['parameters']['query']>;
export type OperationFilter = Pick<OperationQuery, 'kind' | 'status' | 'outcome' | 'workflowId' | 'createdSince' | 'createdBefore'>;

/** Every member of the union `T`, each once: a list that misses one does not compile. */
function everyMember<T extends string>() {
  return <const List extends readonly T[]>(list: List & ([T] extends [List[number]] ? unknown : 'a member is missing')): List => list;
}

/** In the order the console shows them (a life's course). */
export const instanceStatuses = everyMember<InstanceStatus>()(['initializing', 'waiting', 'suspended', 'faulted', 'complete', 'cancelled']);
export const operationKinds = everyMember<OperationKind>()(['trigger', 'migration', 'bulk']);
/** In precedence order: the first that applies to an instance is its primary class. */
export const waitingClasses = everyMember<WaitingClass>()([
  'final',
  'faulted',
  'suspended',
  'queuedForSlot',
  'waitingForRoom',
  'leaseHeld',
  'waitingForRetry',
  'debounced',
  'waitingForChildren',
  'waitingForTimer',
  'waitingForTrigger',
  'heldNotifications',
  'stranded',
]);
export const operationStatuses = everyMember<OperationStatus>()(['notStarted', 'running', 'succeeded', 'failed']);
/** How a finished operation ended for its instances (`outcome` on an operation, and its filter). */
export const operationOutcomes = everyMember<NonNullable<OperationFilter['outcome']>>()(['succeeded', 'completedWithFaults', 'failed']);
