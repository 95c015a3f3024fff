/**
 * @module The retention purge: finished instances (complete or cancelled) last changed more than
 * `SIGNALBOX_RETENTION_DAYS` days ago are deleted by bulk `delete` operations, one per workflow and
 * finished status, through the same fan-out as any bulk action. Off unless the setting is a positive
 * number. On Azure an hourly timer function runs it (functions/retention.ts); locally it is the
 * `POST /api/instances/bulk` call a cron job would make.
 */
import { InstanceStatus } from '../engine/enums';
import type { StoredOperation } from '../engine/operation';
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
