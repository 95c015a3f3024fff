/**
 * @module Faults as decisions. A failing condition or action faults the instance in the state it had
 * reached, keeping the context changes made before the fault (they help diagnose it, and recovery re-runs
 * entry actions anyway); nothing it raised is written (the change did not happen, so nobody should hear
 * about it). A change too large to save faults the instance as it was before the change, with a short
 * message, so that the record stays small and the fault is real.
 */
import type { Cause, Decision, LogLine } from './decision';
import { InstanceStatus, TriggerOutcome } from '../model/enums';
import { HistoryEvent, type FaultedTrigger, type Instance } from '../model/instance';
import { jsonSizeInBytes } from '../model/json';
import type { Trigger } from '../model/trigger';
import { plainInstance, rememberApplied } from './instance-changes';
import type { InstanceResult } from './instance-result';

export interface FaultAt {
  readonly cause: Cause;
  readonly stateId: string;
  readonly context: Instance['context'];
  readonly transitionId?: string;
  readonly fromStateId: string | null;
  readonly now: Date;
  /** @default faulted (a faulted creation says `created`) */
  readonly event?: HistoryEvent;
  readonly logs?: readonly LogLine[];
}

/**
 * The context before a faulted trigger is kept for its retry only up to this size: beyond it the fault
 * cannot be retried (recovery still can), so a large context is not stored twice in one record.
 */
export const MAX_RETRY_CONTEXT_SIZE_IN_BYTES = 128 * 1024;

/**
 * What a retry of this fault would re-apply (Instance.faultedTrigger): only for a trigger's application to
 * an instance that was taking triggers, and only when the context before it is small enough to keep.
 */
function faultedTriggerOf(instance: Instance, trigger: Trigger, faultContext: Instance['context']): FaultedTrigger | undefined {
  if (instance.status !== InstanceStatus.waiting && instance.status !== InstanceStatus.initializing) return undefined;
  const changed = instance.context !== faultContext;
  if (changed && jsonSizeInBytes(instance.context) > MAX_RETRY_CONTEXT_SIZE_IN_BYTES) return undefined;
  return {
    trigger,
    workflowVersion: instance.workflowVersion,
    stateId: instance.stateId,
    status: instance.status,
    ...(changed ? { context: instance.context } : {}),
    ...(instance.stateEntry !== undefined ? { stateEntry: instance.stateEntry } : {}),
    ...(instance.timers?.length ? { timers: instance.timers } : {}),
  };
}

export function faultDecision(stored: Instance, message: string, at: FaultAt): Decision {
  const instance = plainInstance(stored);
  const now = at.now.toISOString();
  const triggerId = at.cause.kind === 'trigger' ? at.cause.trigger.id : null;
  const faultedTrigger = at.cause.kind === 'trigger' ? faultedTriggerOf(instance, at.cause.trigger, at.context) : undefined;
  const result: InstanceResult = {
    instanceId: instance.id,
    outcome: TriggerOutcome.faulted,
    ...(at.transitionId ? { transitionId: at.transitionId } : {}),
    ...(at.fromStateId ? { fromStateId: at.fromStateId } : {}),
    toStateId: at.stateId,
    error: message,
  };
  const { faultedTrigger: _earlier, ...withoutEarlier } = instance;
  const next: Instance = {
    ...withoutEarlier,
    ...(faultedTrigger ? { faultedTrigger } : {}),
    stateId: at.stateId,
    status: InstanceStatus.faulted,
    context: at.context,
    fault: { message, triggerId, at: now },
    updatedAt: now,
    appliedTriggers: triggerId ? rememberApplied(instance, triggerId, result) : instance.appliedTriggers,
    historyLength: instance.historyLength + 1,
    // A faulted instance takes no triggers and fires no timers; recovery arms its state's timers anew.
    timers: [],
  };
  return {
    result,
    change: {
      instance: next,
      historyEntry: {
        sequence: instance.historyLength,
        at: now,
        event: at.event ?? HistoryEvent.faulted,
        triggerId,
        transitionId: at.transitionId ?? null,
        fromStateId: at.fromStateId,
        toStateId: at.stateId,
        status: InstanceStatus.faulted,
      },
      outbox: [],
    },
    logs: at.logs ?? [],
  };
}

/**
 * The change could not be saved because the instance would exceed the store's size limit: fault the
 * instance as it was loaded (its context unchanged), so the next save is small and the fault is real.
 */
export function oversizeFaultDecision(stored: Instance, cause: Cause, attempted: Decision, storeMessage: string, now: Date): Decision {
  const message = `the change could not be saved: ${storeMessage}`.slice(0, 1000);
  return faultDecision(stored, message, {
    cause,
    stateId: stored.stateId,
    context: stored.context,
    ...(attempted.result.transitionId ? { transitionId: attempted.result.transitionId } : {}),
    fromStateId: stored.stateId,
    now,
  });
}
