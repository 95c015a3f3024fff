/** @module Cancellation (pure): any instance that is not complete or cancelled already becomes `cancelled`. */
import type { Effects } from './effects';
import { InstanceStatus } from './enums';
import { ConflictError } from './errors';
import { HistoryEvent, type Instance } from './instance';
import { plainInstance } from './instance-changes';
import type { ChangedInstance } from './recover-instance';

/** Throws ConflictError for a complete or cancelled instance. Interests are kept: triggers then get `notActive`. */
export function cancelInstanceState(stored: Instance, effects: Pick<Effects, 'now'>): ChangedInstance {
  const instance = plainInstance(stored);
  if (instance.status === InstanceStatus.complete || instance.status === InstanceStatus.cancelled) {
    throw new ConflictError(`Instance "${instance.id}" is ${instance.status} and cannot be cancelled`);
  }
  const at = effects.now().toISOString();
  return {
    instance: { ...instance, status: InstanceStatus.cancelled, updatedAt: at, historyLength: instance.historyLength + 1 },
    historyEntry: {
      sequence: instance.historyLength,
      at,
      event: HistoryEvent.cancelled,
      triggerId: null,
      transitionId: null,
      fromStateId: instance.stateId,
      toStateId: instance.stateId,
      status: InstanceStatus.cancelled,
    },
    raisedTriggers: [],
  };
}
