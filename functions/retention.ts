/**
 * @module The retention recipe on Azure: an hourly timer function that purges finished instances older
 * than `SIGNALBOX_RETENTION_DAYS` (src/host/retention.ts). Off by default: without the setting each run
 * returns at once. The purge itself runs as bulk `delete` operations (durable orchestrations).
 */
import { app, type InvocationContext, type Timer } from '@azure/functions';
import * as df from 'durable-functions';
import { purgeFinishedInstances, retentionDays } from '../src/host/retention';
import { inInvocation, invocationLogger, servicesFor } from './wiring';

/** Every hour on the hour (NCRONTAB with seconds). */
export const RETENTION_SCHEDULE = '0 0 * * * *';

export async function runRetention(_timer: Timer, context: InvocationContext): Promise<void> {
  const days = retentionDays();
  if (days === undefined) return;
  await inInvocation(context, async () => {
    const services = await servicesFor(context);
    // The engine's clock, as every host time is (one clock).
    const operations = await purgeFinishedInstances(services, days, services.engine.options.clock.now());
    invocationLogger.info('retention purge started', { days, operations: operations.map((operation) => operation.id) });
  });
}

app.timer('retentionPurge', { schedule: RETENTION_SCHEDULE, extraInputs: [df.input.durableClient()], handler: runRetention });
