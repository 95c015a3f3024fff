/** @module Small pure helpers shared by the decisions. */
import { TriggerOutcome } from '../model/enums';
import { APPLIED_TRIGGER_MEMORY, MAX_APPLIED_ERROR_LENGTH, type AppliedTrigger, type Instance, type StoredInstance } from '../model/instance';
import type { InstanceResult } from './instance-result';

/** The instance without store metadata (the ETag is not part of what is saved). */
export function plainInstance(instance: Instance | StoredInstance): Instance {
  if (!('etag' in instance)) return instance;
  const { etag: _etag, ...rest } = instance;
  return rest;
}

/** The instance without its fault and what a retry of it would re-apply (leaving the keys out rather than setting them to undefined). */
export function withoutFault(instance: Instance): Instance {
  if (!('fault' in instance) && !('faultedTrigger' in instance)) return instance;
  const { fault: _fault, faultedTrigger: _faultedTrigger, ...rest } = instance;
  return rest;
}

/** The instance without its pending retry (keys left out, not set to undefined). */
export function withoutPendingRetry(instance: Instance): Instance {
  if (!('pendingRetry' in instance) && !('retryTrigger' in instance)) return instance;
  const { pendingRetry: _pending, retryTrigger: _trigger, ...rest } = instance;
  return rest;
}

/** What the instance recorded for `triggerId`, if it remembers applying it. */
export function appliedRecord(instance: Instance, triggerId: string): AppliedTrigger | undefined {
  // Older instances (before the record existed) have no list.
  return (instance.appliedTriggers ?? []).find((item) => item.triggerId === triggerId);
}

/** Outcomes remembered as themselves; any other outcome of a change is remembered as `transitioned`. */
const rememberedOutcomes: ReadonlySet<string> = new Set<AppliedTrigger['outcome']>([
  TriggerOutcome.faulted,
  TriggerOutcome.errorHandled,
  TriggerOutcome.debounced,
  TriggerOutcome.noTransition,
  TriggerOutcome.exitBlocked,
  TriggerOutcome.entryBlocked,
]);

/** Appends what a trigger did, keeping the newest APPLIED_TRIGGER_MEMORY. */
export function rememberApplied(instance: Instance, triggerId: string, result: InstanceResult): AppliedTrigger[] {
  const record: AppliedTrigger = {
    triggerId,
    outcome: rememberedOutcomes.has(result.outcome) ? (result.outcome as AppliedTrigger['outcome']) : TriggerOutcome.transitioned,
    ...(result.transitionId ? { transitionId: result.transitionId } : {}),
    ...(result.fromStateId ? { fromStateId: result.fromStateId } : {}),
    ...(result.toStateId ? { toStateId: result.toStateId } : {}),
    ...(result.error !== undefined ? { error: result.error.slice(0, MAX_APPLIED_ERROR_LENGTH) } : {}),
  };
  const next = [...(instance.appliedTriggers ?? []), record];
  return next.length > APPLIED_TRIGGER_MEMORY ? next.slice(next.length - APPLIED_TRIGGER_MEMORY) : next;
}

/** The answer to a repeated delivery: `duplicate`, with what the trigger did then. */
export function duplicateResult(instanceId: string, record: AppliedTrigger): InstanceResult {
  const { triggerId: _triggerId, ...applied } = record;
  return { instanceId, outcome: TriggerOutcome.duplicate, applied };
}
