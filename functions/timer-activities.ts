/**
 * @module The `fireTimer` activity of the timer orchestration: submits the due timer's trigger as an
 * operation (the operation id is the timer's trigger id, so a repeated firing finds the first one), which
 * a trigger orchestration then applies to the instance through the normal path.
 */
import type { InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { timerTrigger } from '../src/engine/decide';
import type { ApiServices } from '../src/host/http/types';
import { FIRE_TIMER_ACTIVITY, type FireTimerInput, type FireTimerOutput } from '../src/host/contracts/timer-activities';
import { withSpan } from './telemetry';
import { tenantOfInput } from '../src/host/contracts/tenant-scope';
import { inInvocation, servicesOfTenant } from './app-services';

/** The activity's work, given the services bound to the invocation's durable client. */
export async function fireTimer(timer: FireTimerInput, services: Pick<ApiServices, 'triggers'>): Promise<FireTimerOutput> {
  const operation = await services.triggers.submit(timerTrigger(timer));
  return { operationId: operation.id };
}

df.app.activity(FIRE_TIMER_ACTIVITY, {
  extraInputs: [df.input.durableClient()],
  handler: (input: unknown, context: InvocationContext) =>
    inInvocation(context, () =>
      withSpan('TimerActivities.fireTimer', { instanceId: (input as FireTimerInput).instanceId }, async () =>
        fireTimer(input as FireTimerInput, await servicesOfTenant(context, tenantOfInput(input))),
      ),
    ),
});
