/**
 * @module Deleting an instance, decided: the first step of a deletion marks the instance `deleting`
 * (one conditional save).
 * From then on it is gone for every reader, and the runtime removes its rows (instance-runtime.ts,
 * `delete`). A waiting or initializing instance is refused (ConflictError) unless forced.
 */
import type { Decision } from './decision';
import { ActionOutcome, InstanceStatus } from '../model/enums';
import { ConflictError } from '../model/errors';
import { HistoryEvent, type Instance } from '../model/instance';
import { plainInstance } from './instance-changes';

/** Statuses that are still running: deleting them needs `force`. */
const runningStatuses: ReadonlySet<InstanceStatus> = new Set([InstanceStatus.waiting, InstanceStatus.initializing]);

export function decideDelete(stored: Instance, force: boolean, now: Date): Decision {
  const instance = plainInstance(stored);
  if (runningStatuses.has(instance.status) && !force) {
    throw new ConflictError(`Instance "${instance.id}" is ${instance.status}: delete it with force=true, or cancel it first`);
  }
  const at = now.toISOString();
  return {
    result: { instanceId: instance.id, outcome: ActionOutcome.deleted, fromStateId: instance.stateId },
    change: {
      // updatedAt is kept (a retention purge repeated after a crash must still match it), and so are the
      // interests: the deletion removes their index rows, and a deletion run again must know them.
      instance: { ...instance, deleting: { at }, historyLength: instance.historyLength + 1 },
      historyEntry: {
        sequence: instance.historyLength,
        at,
        event: HistoryEvent.deleted,
        triggerId: null,
        transitionId: null,
        fromStateId: instance.stateId,
        toStateId: instance.stateId,
        status: instance.status,
      },
      outbox: [],
    },
    logs: [],
  };
}
