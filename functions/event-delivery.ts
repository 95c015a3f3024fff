/**
 * @module The activity of lifecycle event delivery on Azure: one attempt, through the worker's engine
 * (event-delivery-orchestrator.ts waits between attempts). Registered with a durable client like the
 * trigger activities, though an attempt starts nothing.
 */
import type { InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { ATTEMPT_EVENT_DELIVERY, type AttemptResult, type EventDeliveryTarget } from '../src/host/contracts/event-activities';
import { tenantOfInput } from '../src/host/contracts/tenant-scope';
import { inInvocation, invocationLogger, TenantGoneError, tenantHostCore } from './app-services';

export async function attemptEventDelivery(input: unknown, context: InvocationContext): Promise<AttemptResult> {
  const target = input as EventDeliveryTarget;
  const result = await inInvocation(context, async () => {
    const tenantId = tenantOfInput(input);
    const core = await tenantHostCore(tenantId);
    if (!core) throw new TenantGoneError(tenantId);
    return core.engine.attemptEventDelivery(target);
  });
  // As the local dispatcher does: a refused or failed delivery is said at warn, with its workflow and reason.
  // Through the invocation logger, which redacts secrets in URLs (a reason may quote the subscriber's URL).
  await inInvocation(context, async () => {
    if (result.next === 'done' && result.status === 'deadLettered') invocationLogger.warn('A lifecycle event was dead-lettered', { ...target, workflowId: result.workflowId, reason: result.reason });
    else if (result.next === 'retry')
      invocationLogger.warn('A lifecycle event delivery failed; trying again', { ...target, workflowId: result.workflowId, reason: result.reason, retryInMs: result.delayInMs });
  });
  return result;
}

df.app.activity(ATTEMPT_EVENT_DELIVERY, { extraInputs: [df.input.durableClient()], handler: attemptEventDelivery });
