/**
 * @module Lifecycle event delivery on Azure: one orchestration per delivery (event × subscription),
 * started from the outbox relay's `event` rows and by redelivery requests (event-launcher.ts). It calls
 * the `attemptEventDelivery` activity (the engine's one attempt, shared with the local dispatcher: order
 * per instance and subscription, the POST through the outbound pipeline, the record of the attempt) and
 * waits the delay the delivery policy returned on a durable timer, until the event is delivered or
 * dead-lettered. The activity is retried only for storage failures (activityRetryOptions). Deterministic:
 * the jittered delay comes from the activity's recorded result, the time from the replay-safe clock.
 */
import * as df from 'durable-functions';
import type { OrchestrationContext, OrchestrationHandler } from 'durable-functions';
import { ATTEMPT_EVENT_DELIVERY, EVENT_DELIVERY_ORCHESTRATOR, MAX_ROUNDS_PER_EXECUTION, dueAfter, type AttemptResult, type EventDeliveryInput } from '../src/host/contracts/event-activities';
import { activityRetryOptions } from './apply-operation-batch';

export const eventDeliveryOrchestrator: OrchestrationHandler = function* (context: OrchestrationContext) {
  // The whole input goes to each attempt: the target and its tenant.
  const target = context.df.getInput<EventDeliveryInput>();
  for (let round = 0; round < MAX_ROUNDS_PER_EXECUTION; round++) {
    const result: AttemptResult = yield context.df.callActivityWithRetry(ATTEMPT_EVENT_DELIVERY, activityRetryOptions, target);
    if (result.next === 'done') return result.status;
    yield context.df.createTimer(dueAfter(context.df.currentUtcDateTime, result.delayInMs));
  }
  context.df.continueAsNew(target);
  return undefined;
};

df.app.orchestration(EVENT_DELIVERY_ORCHESTRATOR, eventDeliveryOrchestrator);
