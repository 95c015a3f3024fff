/**
 * @module Retrying a fault, decided: the trigger whose application faulted the instance (recorded with the
 * fault, Instance.faultedTrigger) is applied again, under its own id, to the instance as that trigger first
 * found it (its state, status, context, timers), through the ordinary decision. Whatever that decides is
 * one save that also clears the fault, so:
 *
 * - the trigger applies exactly once: its record in the applied-ids memory (written `faulted` by the
 *   fault) is replaced by what the retry did in the same conditional save, so a late redelivery of the
 *   original is a `duplicate`, and a second retry finds the instance no longer faulted (a 409, or
 *   `skipped` in a bulk retry). A retry that faults again records the fault anew: it can be retried again.
 * - a retry whose trigger now moves nothing (its conditions no longer hold) still ends the fault: the
 *   instance is back where the trigger found it (a `retried` history entry), and the trigger is
 *   remembered as applied with that outcome.
 *
 * Who may retry is the host's business (the same role as recovery); the retried trigger keeps its sender
 * (`actor`), and the history entry names who asked for the retry (`retriedBy`).
 */
import type { Decision } from './decision';
import type { WorkflowDefinition } from '../definition/definition';
import { InstanceStatus, TriggerOutcome } from '../model/enums';
import { ConflictError } from '../model/errors';
import { HistoryEvent, type FaultedTrigger, type HistoryEntry, type Instance } from '../model/instance';
import type { Actor } from '../model/actor';
import { appliedRecord, plainInstance, rememberApplied, withoutFault } from './instance-changes';
import { withRelease } from './held-triggers';
import { withDebouncesRescheduled } from './debounce';
import { timerOutboxRows } from './timers';
import type { InstanceResult } from './instance-result';

/** Why the instance's fault cannot be retried now (the message of a 409), or undefined when it can. */
export function faultRetryRefusal(definition: WorkflowDefinition, instance: Instance, triggerId?: string): string | undefined {
  const name = `Instance "${instance.id}"`;
  if (instance.status !== InstanceStatus.faulted) return `${name} is ${instance.status}, not faulted: only a faulted instance can be retried`;
  const faulted = instance.faultedTrigger;
  if (!faulted) {
    if (instance.fault?.triggerId === null || instance.fault?.triggerId === undefined) {
      return `${name} faulted while being created or recovered, not while applying a trigger: there is no trigger to retry; recover it into a state instead`;
    }
    return `${name} cannot retry trigger "${instance.fault.triggerId}": the fault did not record it (it happened before retries existed, or the context before it was too large to keep); recover it into a state instead`;
  }
  if (faulted.workflowVersion !== instance.workflowVersion) {
    return `${name} was migrated from version ${faulted.workflowVersion} to ${instance.workflowVersion} since it faulted: the trigger would not meet what it faulted on; recover it into a state instead`;
  }
  if (!Object.hasOwn(definition.states, faulted.stateId)) return `${name}: the state "${faulted.stateId}" the trigger found it in is not in version ${instance.workflowVersion}; recover it instead`;
  if (triggerId !== undefined && faulted.trigger.id !== triggerId) {
    return `${name} faulted since on another trigger ("${faulted.trigger.id}", not "${triggerId}"): retry that one`;
  }
  return undefined;
}

/**
 * The instance as the faulted trigger first found it, with the trigger's `faulted` record removed so it is
 * decided again. Throws ConflictError (faultRetryRefusal) when the fault cannot be retried.
 */
export function faultRetryStart(definition: WorkflowDefinition, stored: Instance, triggerId?: string): { readonly restored: Instance; readonly faulted: FaultedTrigger } {
  const refused = faultRetryRefusal(definition, stored, triggerId);
  if (refused) throw new ConflictError(refused);
  const instance = plainInstance(stored);
  const faulted = instance.faultedTrigger!;
  const { stateEntry: _entry, timers: _timers, ...rest } = withoutFault(instance);
  const restored: Instance = {
    ...rest,
    stateId: faulted.stateId,
    status: faulted.status,
    context: faulted.context ?? instance.context,
    ...(faulted.stateEntry !== undefined ? { stateEntry: faulted.stateEntry } : {}),
    timers: faulted.timers ?? [],
    appliedTriggers: (instance.appliedTriggers ?? []).filter((record) => record.triggerId !== faulted.trigger.id),
  };
  return { restored, faulted };
}

/** Outcomes that leave the trigger pending (applied later, under its own id): it is not remembered yet (nor while it is held or awaits its retry). */
const pendingOutcomes: ReadonlySet<string> = new Set([TriggerOutcome.retryScheduled, TriggerOutcome.capacityQueued]);

export interface FaultRetry {
  /** The faulted instance as loaded. */
  readonly faultedInstance: Instance;
  /** faultRetryStart's instance: what the trigger was decided on. */
  readonly restored: Instance;
  readonly faulted: FaultedTrigger;
  readonly now: Date;
  /** Who asked for the retry. */
  readonly retriedBy?: Actor;
  /** The retry's operation. */
  readonly operationId?: string;
}

/**
 * The decision of the retried trigger (made on `retry.restored`) as the retry's change: always a save (the
 * fault ends, or is recorded anew), the trigger remembered, its entries naming who asked for the retry.
 */
export function faultRetryDecision(decision: Decision, retry: FaultRetry): Decision {
  const { faultedInstance, restored, faulted, now } = retry;
  const trigger = faulted.trigger;
  const at = now.toISOString();
  let change = decision.change ?? { instance: { ...restored, updatedAt: at }, outbox: [] };
  let instance = change.instance;
  const result: InstanceResult = decision.result;
  const pending = pendingOutcomes.has(result.outcome) || instance.pendingRetry?.triggerId === trigger.id || (instance.heldTriggers ?? []).some((held) => held.id === trigger.id);
  if (!appliedRecord(instance, trigger.id) && !pending) {
    const outcome = result.outcome === TriggerOutcome.exitBlocked || result.outcome === TriggerOutcome.entryBlocked ? result.outcome : TriggerOutcome.noTransition;
    instance = { ...instance, appliedTriggers: rememberApplied(instance, trigger.id, { ...result, outcome }) };
  }
  const annotate = (entry: HistoryEntry): HistoryEntry => ({
    ...entry,
    ...(retry.retriedBy ? { retriedBy: retry.retriedBy } : {}),
    ...(retry.operationId !== undefined ? { operationId: retry.operationId } : {}),
  });
  if (change.historyEntry) {
    change = { ...change, historyEntry: annotate(change.historyEntry), ...(change.precedingEntries ? { precedingEntries: change.precedingEntries.map(annotate) } : {}) };
  } else {
    // Nothing the trigger did wrote an entry (it moved nothing, or waits again): the retry's own entry
    // says the fault ended, and the timers of the state it is back in are handed to the scheduler again
    // under this entry (the fault disarmed them; their earlier schedules find themselves stale).
    const sequence = faultedInstance.historyLength;
    const entry: HistoryEntry = annotate({
      sequence,
      at,
      event: HistoryEvent.retried,
      triggerId: trigger.id,
      transitionId: null,
      fromStateId: faultedInstance.stateId,
      toStateId: instance.stateId,
      status: instance.status,
      ...(trigger.actor ? { actor: trigger.actor } : {}),
    });
    const rearmed = instance.timers?.length && instance.stateEntry === restored.stateEntry ? timerOutboxRows(instance, sequence, instance.timers) : [];
    const outbox = [...change.outbox, ...rearmed];
    instance = {
      ...instance,
      historyLength: sequence + 1,
      ...(rearmed.length > 0 ? { stateEntry: sequence } : {}),
      outbox: [...new Set([...instance.outbox, ...rearmed.map((row) => row.id)])],
    };
    change = { ...change, historyEntry: entry, outbox };
  }
  let retried: Decision = { ...decision, change: { ...change, instance } };
  // Taking triggers again: what was held while it was faulted is released, its bursts scheduled again.
  if (instance.status === InstanceStatus.waiting || instance.status === InstanceStatus.initializing) {
    retried = withDebouncesRescheduled(withRelease(retried), now);
  }
  return retried;
}
