/**
 * @module Suspending and resuming an instance, decided. A `suspended` instance takes no triggers
 * (`notActive`, nothing saved) and its timers do not fire; resuming makes it `waiting` again. Each
 * writes one history entry. A status that does not allow it is a ConflictError (409).
 */
import type { Decision } from './decision';
import { ActionOutcome, InstanceStatus } from '../model/enums';
import { ConflictError } from '../model/errors';
import { HistoryEvent, type Instance } from '../model/instance';
import { plainInstance } from './instance-changes';
import { withRelease } from './held-triggers';
import { retryTimerOf, timerOutboxRows } from './timers';
import { OutboxKind } from '../model/outbox';
import { withDebouncesRescheduled } from './debounce';

function relabel(stored: Instance, status: InstanceStatus, event: HistoryEvent, outcome: ActionOutcome, now: Date): Decision {
  const instance = plainInstance(stored);
  const at = now.toISOString();
  return {
    result: { instanceId: instance.id, outcome, fromStateId: instance.stateId, toStateId: instance.stateId },
    change: {
      instance: { ...instance, status, updatedAt: at, historyLength: instance.historyLength + 1 },
      historyEntry: { sequence: instance.historyLength, at, event, triggerId: null, transitionId: null, fromStateId: instance.stateId, toStateId: instance.stateId, status },
      outbox: [],
    },
    logs: [],
  };
}

/** Only a `waiting` instance can be suspended. */
export function decideSuspend(stored: Instance, now: Date): Decision {
  if (stored.status !== InstanceStatus.waiting) throw new ConflictError(`Instance "${stored.id}" is ${stored.status}: only waiting instances can be suspended`);
  return relabel(stored, InstanceStatus.suspended, HistoryEvent.suspended, ActionOutcome.suspended, now);
}

/**
 * Only a `suspended` instance can be resumed. Its armed timers are handed to the scheduler again, under
 * the resume as a new state entry (new timer ids, the same due times): a timer that fell due while it
 * was suspended was answered `notActive` and its schedule is spent, so it fires once now; one not yet
 * due fires when it is due, and its earlier schedule finds itself stale.
 */
export function decideResume(stored: Instance, now: Date): Decision {
  if (stored.status !== InstanceStatus.suspended) throw new ConflictError(`Instance "${stored.id}" is ${stored.status}, not suspended: only suspended instances can be resumed`);
  // What was held while it was suspended is released, oldest first (held-triggers.ts).
  const decision = withRelease(relabel(stored, InstanceStatus.waiting, HistoryEvent.resumed, ActionOutcome.resumed, now));
  const resumed = withDebouncesRescheduled(withRetryRescheduled(decision, now), now);
  const change = resumed.change!;
  if (!change.instance.timers?.length) return resumed;
  const stateEntry = stored.historyLength;
  const outbox = [...change.outbox, ...timerOutboxRows(stored, stateEntry, change.instance.timers)];
  return { ...resumed, change: { ...change, instance: { ...change.instance, stateEntry, outbox: outbox.map((row) => row.id) }, outbox } };
}

/**
 * A pending retry is handed to the scheduler again: due when it was (or now, if that passed while the
 * instance was suspended, when its timer was answered `notActive`). A new due time is a new retry id, so
 * the spent schedule is not mistaken for it.
 */
function withRetryRescheduled(decision: Decision, now: Date): Decision {
  const change = decision.change!;
  const pending = change.instance.pendingRetry;
  if (!pending) return decision;
  const nextAttemptAt = Date.parse(pending.nextAttemptAt) > now.getTime() ? pending.nextAttemptAt : now.toISOString();
  const instance = { ...change.instance, pendingRetry: { ...pending, nextAttemptAt } };
  const timer = retryTimerOf(instance)!;
  const outbox = [...change.outbox, { id: timer.timerId, kind: OutboxKind.timer, payload: timer } as const];
  return { ...decision, change: { ...change, instance: { ...instance, outbox: outbox.map((row) => row.id) }, outbox } };
}
