/**
 * @module Recovery of what a crash left behind (src/host/start-up-recovery.ts: outbox rows saved but not
 * relayed, lifecycle events never handed to delivery), on Azure: one timer-triggered function. A timer
 * trigger runs on one worker at a time (the Functions host holds a blob lease for its schedule), so
 * however many workers the app scales to, each sweep is two scans across the instances' partitions, not
 * two per worker. Rows waiting for a sweep are also relayed by the next load of their instance.
 */
import { app, type InvocationContext, type Timer } from '@azure/functions';
import * as df from 'durable-functions';
import { recoverLeftovers } from '../src/host/start-up-recovery';
import { everyTenantCore, inInvocation, invocationLogger, servicesOfCore, tenantAdministration } from './app-services';

export const RECOVERY_FUNCTION = 'recoverLeftovers';

/**
 * Every 10 minutes (NCRONTAB with seconds). Not `runOnStartup`: that would run it at every worker's start,
 * which is what this function exists to avoid; a crash's leftovers wait at most one period.
 */
export const RECOVERY_SCHEDULE = '0 */10 * * * *';

export async function runRecovery(_timer: Timer, context: InvocationContext): Promise<void> {
  await inInvocation(context, async () => {
    // Every tenant's leftovers, one tenant after another (each is its own storage), then deletions a crash interrupted.
    for (const { tenantId, core } of await everyTenantCore()) {
      const services = servicesOfCore(context, tenantId, core);
      await recoverLeftovers(services.engine, invocationLogger);
    }
    await tenantAdministration().resumeDeletions();
  });
}

app.timer(RECOVERY_FUNCTION, { schedule: RECOVERY_SCHEDULE, extraInputs: [df.input.durableClient()], handler: runRecovery });
