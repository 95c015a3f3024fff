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
import { FIRE_TIMER_ACTIVITY, type FireTimerInput, type FireTimerOutput } from '../src/host/timer-activities';
import { activityRetryOptions } from './apply-trigger-batch';

export const TIMER_ORCHESTRATOR = 'timerOrchestrator';

/** The longest single durable timer this orchestration creates: well within the six-day limit. */
export const MAX_TIMER_INTERVAL_IN_MS = 3 * 24 * 3600_000;

export const timerOrchestrator: OrchestrationHandler = function* (context: OrchestrationContext) {
  const timer = context.df.getInput<FireTimerInput>();
  const dueMs = Date.parse(timer.dueAt);
  // A due time in the past (or now) fires at once.
  while (context.df.currentUtcDateTime.getTime() < dueMs) {
    const nextMs = Math.min(dueMs, context.df.currentUtcDateTime.getTime() + MAX_TIMER_INTERVAL_IN_MS);
    yield context.df.createTimer(new Date(nextMs));
  }
  const fired: FireTimerOutput = yield context.df.callActivityWithRetry(FIRE_TIMER_ACTIVITY, activityRetryOptions, timer);
  return fired;
};

df.app.orchestration(TIMER_ORCHESTRATOR, timerOrchestrator);
