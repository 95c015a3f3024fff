/**
 * @module Timers (shared/design/workflow-model.md, "Timers"): arming them when an instance enters a state,
 * and the trigger a timer applies when it falls due. Arming is `armTimers` (pure but for the clock and
 * `at` expressions), called by `enterState` for creation, transitions, self-transitions and recovery, and
 * reusable by any decision that puts an instance into a state (migration). Each armed timer becomes a
 * `timer` outbox row (its `DueTimer`), which the host's scheduler receives after the save: a durable
 * timer orchestration on Azure, the storage-driven scheduler locally, the engine's clock in-process.
 */
import { DateTime } from 'luxon';
import { addWorkingTime } from '../timers/business-calendar';
import { depthFault } from './causal-budget';
import type { Cause } from './decision';
import { isTimerTransition, type StateDefinition, type WorkflowDefinition } from '../definition/definition';
import { evaluateExpression } from '../expressions/expressions';
import type { ArmedTimer, Instance } from '../model/instance';
import { OutboxKind, type TimerOutboxRow } from '../model/outbox';
import type { Draft } from './draft';
import { MAX_TIMER_DELAY_IN_DAYS, MAX_TIMER_DELAY_TEXT, parseIsoDuration, type TimerDefinition } from '../timers/timer-definition';
import type { Trigger } from '../model/trigger';
import type { DueTimer } from '../model/outbox';
import { debounceTriggerId, retryTriggerId, timerTriggerId } from '../model/trigger-ids';

/** The name of every timer's trigger (conditions of a timer transition may read `trigger.parameters`). */
export const TIMER_TRIGGER_NAME = 'timer';

export type { DueTimer } from '../model/outbox';

/** The name of every pending retry's trigger (which re-applies the trigger that failed). */
export const RETRY_TRIGGER_NAME = 'retry';

/** The name of every debounce's trigger (which applies a held-back burst). */
export const DEBOUNCE_TRIGGER_NAME = 'debounce';

/** The name of the trigger that ends a wait for room in a full state at its deadline. */
export const CAPACITY_WAIT_TRIGGER_NAME = 'capacityTimeout';

/** The trigger a due timer applies to its instance (subject: the instance's own id). */
export function timerTrigger(timer: DueTimer): Trigger {
  if (timer.capacityWait) {
    const { triggerId, stateId, key } = timer.capacityWait;
    return {
      id: timer.timerId,
      name: CAPACITY_WAIT_TRIGGER_NAME,
      subjects: [timer.instanceId],
      parameters: { triggerId, stateId, key, dueAt: timer.dueAt },
      internal: { kind: 'capacityWait', triggerId, stateId, key, ...(timer.incarnation !== undefined ? { incarnation: timer.incarnation } : {}) },
    };
  }
  if (timer.debounce) {
    const { triggerName, triggerId } = timer.debounce;
    return {
      id: timer.timerId,
      name: DEBOUNCE_TRIGGER_NAME,
      subjects: [timer.instanceId],
      parameters: { triggerName, triggerId, dueAt: timer.dueAt },
      internal: { kind: 'debounce', triggerName, triggerId, ...(timer.incarnation !== undefined ? { incarnation: timer.incarnation } : {}) },
    };
  }
  if (timer.retry) {
    const { triggerId, attempt } = timer.retry;
    return {
      id: timer.timerId,
      name: RETRY_TRIGGER_NAME,
      subjects: [timer.instanceId],
      parameters: { triggerId, attempt, dueAt: timer.dueAt },
      internal: { kind: 'retry', triggerId, attempt, ...(timer.incarnation !== undefined ? { incarnation: timer.incarnation } : {}) },
    };
  }
  return {
    id: timer.timerId,
    name: TIMER_TRIGGER_NAME,
    subjects: [timer.instanceId],
    parameters: { transitionId: timer.transitionId, stateEntry: timer.stateEntry, dueAt: timer.dueAt },
    internal: { kind: 'timer', transitionId: timer.transitionId, stateEntry: timer.stateEntry, ...(timer.incarnation !== undefined ? { incarnation: timer.incarnation } : {}) },
    // Only when there is one, so every path that builds this trigger (relay, due-timer row) builds the same body.
    ...(timer.causalDepth ? { causalDepth: timer.causalDepth } : {}),
    ...(timer.causalBudget !== undefined ? { causalBudget: timer.causalBudget } : {}),
  };
}

type TimedInstance = Pick<Instance, 'id' | 'incarnation' | 'stateEntry' | 'timers' | 'pendingRetry' | 'debounces' | 'capacityWaits'>;

/** The timers ending the instance's waits for room in full states (`capacityWaits`), one per waiting trigger. */
export function capacityWaitTimersOf(instance: Pick<Instance, 'id' | 'incarnation' | 'capacityWaits'>): DueTimer[] {
  return (instance.capacityWaits ?? []).map((wait) => ({
    // A transition id no definition can hold (`~`): the timer's id is its own, derived from the trigger and the deadline.
    timerId: timerTriggerId(instance.id, 0, `~capacity.${Date.parse(wait.deadline)}.${wait.triggerId}`, instance.incarnation),
    instanceId: instance.id,
    transitionId: '',
    stateEntry: 0,
    dueAt: wait.deadline,
    ...(instance.incarnation !== undefined ? { incarnation: instance.incarnation } : {}),
    capacityWait: { triggerId: wait.triggerId, stateId: wait.stateId, key: wait.key },
  }));
}

/** The timers of the instance's held-back bursts (`flow.debounce`), one per trigger name. */
export function debounceTimersOf(instance: Pick<Instance, 'id' | 'incarnation' | 'stateEntry' | 'debounces'>): DueTimer[] {
  return (instance.debounces ?? []).map((pending) => ({
    timerId: debounceTriggerId(instance.id, pending.triggerName, pending.trigger.id, pending.dueAt, instance.incarnation),
    instanceId: instance.id,
    transitionId: '',
    stateEntry: instance.stateEntry ?? 0,
    dueAt: pending.dueAt,
    ...(instance.incarnation !== undefined ? { incarnation: instance.incarnation } : {}),
    debounce: { triggerName: pending.triggerName, triggerId: pending.trigger.id },
  }));
}

/** The timer of the instance's pending retry, if it has one. */
export function retryTimerOf(instance: Pick<Instance, 'id' | 'incarnation' | 'stateEntry' | 'pendingRetry'>): DueTimer | undefined {
  const pending = instance.pendingRetry;
  if (!pending) return undefined;
  return {
    timerId: retryTriggerId(instance.id, pending.triggerId, pending.attempt, pending.nextAttemptAt, instance.incarnation),
    instanceId: instance.id,
    transitionId: '',
    stateEntry: instance.stateEntry ?? 0,
    dueAt: pending.nextAttemptAt,
    ...(instance.incarnation !== undefined ? { incarnation: instance.incarnation } : {}),
    retry: { triggerId: pending.triggerId, attempt: pending.attempt },
  };
}

/** The due timers of an instance as saved (what schedulers and the due-time index hold), its pending retry's and debounces' included. */
export function dueTimersOf(instance: TimedInstance): DueTimer[] {
  const retry = retryTimerOf(instance);
  return [...armedTimersOf(instance), ...(retry ? [retry] : []), ...debounceTimersOf(instance), ...capacityWaitTimersOf(instance)];
}

function armedTimersOf(instance: TimedInstance): DueTimer[] {
  if (!instance.timers?.length || instance.stateEntry === undefined) return [];
  const { stateEntry, incarnation } = instance;
  return instance.timers.map((timer) => ({
    timerId: timerTriggerId(instance.id, stateEntry, timer.transitionId, incarnation),
    instanceId: instance.id,
    transitionId: timer.transitionId,
    stateEntry,
    dueAt: timer.dueAt,
    ...(timer.causalDepth ? { causalDepth: timer.causalDepth } : {}),
    ...(timer.causalBudget !== undefined ? { causalBudget: timer.causalBudget } : {}),
    ...(incarnation !== undefined ? { incarnation } : {}),
  }));
}

/** Timers of `next` that `previous` did not have (a new entry, or a new transition): what to index and schedule. */
export function newlyArmed(previous: TimedInstance | undefined, next: TimedInstance): DueTimer[] {
  const before = new Set(previous ? dueTimersOf(previous).map((timer) => timer.timerId) : []);
  return dueTimersOf(next).filter((timer) => !before.has(timer.timerId));
}

/**
 * Timers `previous` had armed that `next` no longer has: its entry was left (or ended), or the timer was
 * spent. Their due-timer rows are stale.
 */
export function noLongerArmed(previous: TimedInstance, next: TimedInstance): DueTimer[] {
  const after = new Set(dueTimersOf(next).map((timer) => timer.timerId));
  return dueTimersOf(previous).filter((timer) => !after.has(timer.timerId));
}

/** The instant an `at` expression gave, or an Error saying why it is none (a fault, like a failing entry action). */
function instantOf(value: unknown, transitionId: string): Date {
  if (typeof value === 'string') {
    // An instant without an offset is read as UTC, so the result never depends on the server's zone.
    const parsed = DateTime.fromISO(value, { zone: 'utc' });
    if (parsed.isValid) return parsed.toJSDate();
  }
  const shown = value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 100);
  throw new Error(`the timer of transition "${transitionId}": "at" gave ${shown}, not an ISO 8601 instant`);
}

/** The due time of one timer armed at `enteredAt`; throws (a fault) when `at` gives no instant, or one past the limit. */
async function dueAtOf(timer: TimerDefinition, transitionId: string, definition: WorkflowDefinition, draft: Draft, enteredAt: Date): Promise<Date> {
  const dueAt = await unboundedDueAtOf(timer, transitionId, definition, draft, enteredAt);
  if (!(dueAt.getTime() - enteredAt.getTime() <= MAX_TIMER_DELAY_IN_DAYS * DAY_IN_MS)) {
    throw new Error(`the timer of transition "${transitionId}": "${timer.at !== undefined ? 'at' : 'after'}" is due more than ${MAX_TIMER_DELAY_TEXT} after the state was entered, the limit`);
  }
  return dueAt;
}

const DAY_IN_MS = 24 * 3600_000;

async function unboundedDueAtOf(timer: TimerDefinition, transitionId: string, definition: WorkflowDefinition, draft: Draft, enteredAt: Date): Promise<Date> {
  if (timer.at !== undefined) return instantOf(await evaluateExpression(timer.at, draft.scope(), { now: () => draft.effects.now() }), transitionId);
  const duration = parseIsoDuration(timer.after!);
  if (typeof duration === 'string') throw new Error(`the timer of transition "${transitionId}": ${duration}`);
  if (timer.calendar === undefined) return DateTime.fromJSDate(enteredAt, { zone: 'utc' }).plus(duration).toJSDate();
  const calendar = definition.calendars?.[timer.calendar];
  if (!calendar) throw new Error(`the timer of transition "${transitionId}" names a missing calendar "${timer.calendar}"`);
  return addWorkingTime(enteredAt, duration.as('milliseconds'), calendar);
}

/**
 * The timers of `state` armed on entering it at `enteredAt`, with the draft's context as it stands after
 * the entry actions. Throws (to fault the instance) when an `at` gives no instant. A final state has none.
 * A timer due at once (at or before `enteredAt`: `PT0S`, a past `at`) is follow-up work of the arming
 * change, at `followUpDepth` (causal-budget.ts); past the causal depth limit that throws too. One due later
 * starts a chain of its own: the wait paces it.
 */
export async function armTimers(draft: Draft, state: StateDefinition, enteredAt: Date, followUpDepth = 1, cause?: Cause): Promise<ArmedTimer[]> {
  const armed: ArmedTimer[] = [];
  for (const transition of state.transitions) {
    if (!isTimerTransition(transition)) continue;
    const dueAt = await dueAtOf(transition.timer, transition.id, draft.definition, draft, enteredAt);
    if (dueAt.getTime() > enteredAt.getTime()) {
      armed.push({ transitionId: transition.id, dueAt: dueAt.toISOString() });
      continue;
    }
    const fault = depthFault(`the timer of transition "${transition.id}" (due at once)`, followUpDepth, cause);
    if (fault) throw new Error(fault);
    armed.push({ transitionId: transition.id, dueAt: dueAt.toISOString(), causalDepth: followUpDepth });
  }
  return armed;
}

/** The outbox rows that hand armed timers to the host's scheduler after the save. */
export function timerOutboxRows(instance: Pick<Instance, 'id' | 'incarnation'>, stateEntry: number, timers: readonly ArmedTimer[]): TimerOutboxRow[] {
  return dueTimersOf({ id: instance.id, ...(instance.incarnation !== undefined ? { incarnation: instance.incarnation } : {}), stateEntry, timers }).map((payload) => ({
    id: payload.timerId,
    kind: OutboxKind.timer,
    payload,
  }));
}
