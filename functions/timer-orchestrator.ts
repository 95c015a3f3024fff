/**
 * @module The timer orchestration (issue 13): one small orchestration per armed timer, its durable
 * instance id derived from the timer id (timerOrchestrationId), started by the outbox relay after the
 * save that armed the timer. It sleeps on Durable Functions' own durable timers until the due time, then
 * calls `fireTimer`, which submits the timer's trigger as an operation. Nothing ever cancels it: a timer
 * whose state was left (or whose instance was cancelled, completed, faulted) wakes up, its trigger finds
 * the instance no longer armed for it (`notInterested`, or `notActive`), and nothing is saved, so
 * disarming costs no write on the trigger path.
 *
 * Durable timers of JavaScript apps on the Azure Storage provider are limited to six days; as the Durable
 * Functions documentation advises, longer waits are a loop of shorter timers (at most three days each).
 *
 * Deterministic code: time is `context.df.currentUtcDateTime`; it imports only durable-functions and the
 * pure activity contract (test/functions/determinism.test.ts checks the imports).
 */
import * as df from 'durable-functions';
import type { OrchestrationContext, OrchestrationHandler } from 'durable-functions';
import { FIRE_TIMER_ACTIVITY, nextTimerFireAt, type FireTimerInput, type FireTimerOutput } from '../src/host/contracts/timer-activities';
import { activityRetryOptions } from './apply-operation-batch';

export const TIMER_ORCHESTRATOR = 'timerOrchestrator';

export const timerOrchestrator: OrchestrationHandler = function* (context: OrchestrationContext) {
  const timer = context.df.getInput<FireTimerInput>();
  // Durable timers until the due time, each at most three days long; a due time in the past fires at once.
  for (let fireAt = nextTimerFireAt(context.df.currentUtcDateTime, timer.dueAt); fireAt; fireAt = nextTimerFireAt(context.df.currentUtcDateTime, timer.dueAt)) {
    yield context.df.createTimer(fireAt);
  }
  const fired: FireTimerOutput = yield context.df.callActivityWithRetry(FIRE_TIMER_ACTIVITY, activityRetryOptions, timer);
  return fired;
};

df.app.orchestration(TIMER_ORCHESTRATOR, timerOrchestrator);
