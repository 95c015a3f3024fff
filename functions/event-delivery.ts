/**
 * @module The activity of lifecycle event delivery on Azure: one attempt, through the worker's engine
 * (event-delivery-orchestrator.ts waits between attempts). Registered with a durable client like the
 * trigger activities, though an attempt starts nothing.
 */
import type { InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { ATTEMPT_EVENT_DELIVERY, type AttemptResult, type EventDeliveryTarget } from '../src/host/event-activities';
import { hostCore, inInvocation } from './wiring';

export async function attemptEventDelivery(input: unknown, context: InvocationContext): Promise<AttemptResult> {
  return inInvocation(context, async () => (await hostCore()).engine.attemptEventDelivery(input as EventDeliveryTarget));
}

df.app.activity(ATTEMPT_EVENT_DELIVERY, { extraInputs: [df.input.durableClient()], handler: attemptEventDelivery });
