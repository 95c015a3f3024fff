/**
 * @module Suspending and resuming an instance, decided. A `suspended` instance takes no triggers
 * (`notActive`, nothing saved) and its timers do not fire; resuming makes it `waiting` again. Each
 * writes one history entry. A status that does not allow it is a ConflictError (409).
 */
import type { Decision } from './decision';
import { ActionOutcome, InstanceStatus } from './enums';
import { ConflictError } from './errors';
import { HistoryEvent, type Instance } from './instance';
import { plainInstance } from './instance-changes';

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
 * Only a `suspended` instance can be resumed. Timers (issue 13): when instances carry timers, those that
 * fell due while it was suspended fire once after this change is saved (an outbox row per due timer).
 */
export function decideResume(stored: Instance, now: Date): Decision {
  if (stored.status !== InstanceStatus.suspended) throw new ConflictError(`Instance "${stored.id}" is ${stored.status}, not suspended: only suspended instances can be resumed`);
  return relabel(stored, InstanceStatus.waiting, HistoryEvent.resumed, ActionOutcome.resumed, now);
}
