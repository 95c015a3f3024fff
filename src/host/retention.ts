/**
 * @module The retention purge: finished instances (complete or cancelled) last changed more than
 * `SIGNALBOX_RETENTION_DAYS` days ago are deleted by bulk `delete` operations, one per workflow and
 * finished status, through the same fan-out as any bulk action. Off unless the setting is a positive
 * number. On Azure an hourly timer function runs it (functions/retention.ts); locally it is the
 * `POST /api/instances/bulk` call a cron job would make.
 *
 * Operation records have a retention of their own (`SIGNALBOX_OPERATION_RETENTION_DAYS`, 30 days by
 * default, on both hosts, hourly): a finished one (succeeded or failed) last changed longer ago is
 * deleted, so a trigger's parameters do not outlive the instances it changed. Unfinished operations are
 * never deleted (they are resumed). Once its record is gone, a trigger id can be used again (a new trigger).
 */
import { InstanceStatus, OperationStatus } from '../engine/model';
import { ValidationError } from '../engine/model';
import type { StoredOperation } from '../engine/operations';
import type { OperationStore } from '../engine/ports';
import type { ApiServices } from './http/types';
import { readSetting, type Environment } from './settings';

/** The retention period in days, or undefined when retention is off (unset, empty, not a positive number). */
export function retentionDays(env: Environment = process.env): number | undefined {
  const value = readSetting('SIGNALBOX_RETENTION_DAYS', env);
  if (value === undefined) return undefined;
  const days = Number(value);
  return Number.isFinite(days) && days > 0 ? days : undefined;
}

/** Starts the purge operations for instances finished before `now` minus `days`; returns them. */
export async function purgeFinishedInstances(services: Pick<ApiServices, 'engine' | 'triggers'>, days: number, now: Date): Promise<StoredOperation[]> {
  const updatedBefore = new Date(now.getTime() - days * 86_400_000).toISOString();
  const operations: StoredOperation[] = [];
  for await (const workflow of services.engine.workflows.list({ maxPageSize: 1000 })) {
    for (const status of [InstanceStatus.complete, InstanceStatus.cancelled]) {
      operations.push(await services.triggers.submitWork({ bulk: { action: 'delete', filter: { workflowId: workflow.id, status, updatedBefore } } }));
    }
  }
  return operations;
}

/** Days a finished operation record is kept when SIGNALBOX_OPERATION_RETENTION_DAYS is not set. */
export const DEFAULT_OPERATION_RETENTION_DAYS = 30;

/** How often the hosts run the operation purge. */
export const OPERATION_PURGE_INTERVAL_MS = 3_600_000;

/**
 * The operation retention in days (DEFAULT_OPERATION_RETENTION_DAYS when unset or empty), or undefined
 * for 0 (keep them forever). Anything else is a configuration error, refused at start-up.
 */
export function operationRetentionDays(env: Environment = process.env): number | undefined {
  const value = readSetting('SIGNALBOX_OPERATION_RETENTION_DAYS', env);
  if (value === undefined) return DEFAULT_OPERATION_RETENTION_DAYS;
  const days = Number(value);
  if (!Number.isFinite(days) || days < 0) {
    throw new ValidationError('SIGNALBOX_OPERATION_RETENTION_DAYS must be a number of days (0 keeps operation records forever)', [
      { path: 'SIGNALBOX_OPERATION_RETENTION_DAYS', message: 'must be a number of days, 0 or more' },
    ]);
  }
  return days > 0 ? days : undefined;
}

/** Deletes finished operation records last changed before `now` minus `days`; returns how many. */
export async function purgeFinishedOperations(operations: OperationStore, days: number, now: Date): Promise<number> {
  const updatedBefore = new Date(now.getTime() - days * 86_400_000).toISOString();
  // Collected first: deleting while paging a table query could skip rows.
  const expired: string[] = [];
  for await (const operation of operations.listByStatus([OperationStatus.succeeded, OperationStatus.failed], { maxPageSize: 1000, updatedBefore })) expired.push(operation.id);
  for (const operationId of expired) await operations.delete(operationId);
  return expired.length;
}
