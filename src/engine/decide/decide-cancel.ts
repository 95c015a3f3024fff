/** @module Cancelling an instance, decided: any instance not complete or cancelled already becomes `cancelled`. */
import type { Decision } from './decision';
import { InstanceStatus, TriggerOutcome } from '../model/enums';
import { ConflictError } from '../model/errors';
import { HistoryEvent, type Instance } from '../model/instance';
import { cancelChildrenRows } from './child-cascade';
import { withHeld } from './held-triggers';
import { plainInstance, withoutPendingRetry } from './instance-changes';

/**
 * Throws ConflictError for a complete or cancelled instance. Interests are kept: triggers then get
 * `notActive`; its timers are disarmed and what it held (and a pending retry) is dropped. A parent's running children are
 * cancelled too (a `cancelChildren` row, delivered by the engine; child-cascade.ts).
 */
export function decideCancel(stored: Instance, now: Date): Decision {
  // Nothing would take a pending retry any more: it is dropped with the timers.
  const instance = withoutPendingRetry(withHeld(plainInstance(stored), []));
  if (instance.status === InstanceStatus.complete || instance.status === InstanceStatus.cancelled) {
    throw new ConflictError(`Instance "${instance.id}" is ${instance.status} and cannot be cancelled`);
  }
  const at = now.toISOString();
  const outbox = cancelChildrenRows(instance);
  return {
    result: { instanceId: instance.id, outcome: TriggerOutcome.transitioned, fromStateId: instance.stateId, toStateId: instance.stateId },
    change: {
      instance: { ...instance, status: InstanceStatus.cancelled, updatedAt: at, outbox: outbox.map((row) => row.id), historyLength: instance.historyLength + 1, timers: [] },
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
      outbox,
    },
    logs: [],
  };
}
