/** @module The CLI's names for the API's shapes (src/client/types.ts names them from the generated types), used by api.ts and the commands. */
import type { DryRun, DryRunInstance, HistoryEntry, Instance, InstanceOutcome, InstanceStatus, ListedOperation, Operation, Page, Workflow } from '../client';
import type { JsonObject } from '../engine/model';

export type {
  AcceptedOperation,
  AvailableTriggers,
  BulkAction,
  BulkDryRun,
  BulkRequest,
  InstanceFilter,
  InstanceSearch,
  InstanceCountQuery,
  InstanceCounts,
  MigrationReport,
  MigrationRequest,
  OperationFilter,
  WaitingAnswer,
  WaitingSummary,
} from '../client';
export type ApiWorkflow = Workflow;
export type ApiInstance = Instance;
export type ApiHistoryEntry = HistoryEntry;
export type ApiInstanceResult = InstanceOutcome;
export type ApiOperation = Operation;
export type ApiDryRun = DryRun;
export type ApiDryRunInstance = DryRunInstance;
export type InstanceStatusName = InstanceStatus;
export type ApiPage<T> = Page<T>;
export type ApiListedOperation = ListedOperation;
export interface TriggerToSend {
  readonly id?: string;
  readonly name: string;
  readonly subjects?: string[];
  readonly contentType?: string;
  readonly parameters?: JsonObject;
}
