/**
 * @module The retention recipe on Azure: an hourly timer function that purges finished instances older
 * than `SIGNALBOX_RETENTION_DAYS` (src/host/retention.ts; off by default), as bulk `delete` operations
 * (durable orchestrations), and deletes finished operation records older than
 * `SIGNALBOX_OPERATION_RETENTION_DAYS` (30 days by default).
 */
import { app, type InvocationContext, type Timer } from '@azure/functions';
import * as df from 'durable-functions';
import { operationRetentionDays, purgeFinishedInstances, purgeFinishedOperations, retentionDays } from '../src/host/retention';
import type { ApiServices } from '../src/host/http/types';
import { everyTenantCore, inInvocation, invocationLogger, servicesOfCore } from './app-services';

/** Every hour on the hour (NCRONTAB with seconds). */
export const RETENTION_SCHEDULE = '0 0 * * * *';

export async function runRetention(_timer: Timer, context: InvocationContext): Promise<void> {
  const days = retentionDays();
  // Operation records have a retention of their own, on by default (30 days).
  const operationDays = operationRetentionDays();
  if (days === undefined && operationDays === undefined) return;
  await inInvocation(context, async () => {
    // Each tenant's instances and operation records live in its own tables: one purge per tenant.
    for (const { tenantId, core } of await everyTenantCore()) {
      const services = servicesOfCore(context, tenantId, core);
      await purgeTenant(services, tenantId, days, operationDays);
    }
  });
}

async function purgeTenant(services: ApiServices, tenantId: string, days: number | undefined, operationDays: number | undefined): Promise<void> {
  // The engine's clock, as every host time is (one clock).
  const now = services.engine.options.clock.now();
  if (operationDays !== undefined) {
    const deleted = await purgeFinishedOperations(services.operations, operationDays, now);
    invocationLogger.info('operation records purged', { tenantId, days: operationDays, deleted });
  }
  if (days === undefined) return;
  const operations = await purgeFinishedInstances(services, days, now);
  invocationLogger.info('retention purge started', { tenantId, days, operations: operations.map((operation) => operation.id) });
}

app.timer('retentionPurge', { schedule: RETENTION_SCHEDULE, extraInputs: [df.input.durableClient()], handler: runRetention });
