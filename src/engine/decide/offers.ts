/**
 * @module Recent offers: the triggers offered to an instance that did nothing to it (no transition, a
 * blocked exit or entry, not active, not interested). Such an offer changes nothing, so it leaves no
 * history entry and no mark on the instance's record (its ETag stays); without this list it would
 * leave no trace on the instance at all. The list is kept beside the instance, in its partition (one
 * row), written under the instance's lease, the newest MAX_RECENT_OFFERS kept. Triggers that did
 * change the instance are in its history (each entry names its operation).
 */
import type { TraceEntry } from './decision-trace';
import { TriggerOutcome } from '../model/enums';
import type { InstanceResult } from './instance-result';
import type { Trigger } from '../model/trigger';

/** Offers kept per instance, newest first; older ones are dropped. */
export const MAX_RECENT_OFFERS = 20;
/** Trace entries kept per offer (the deciding ones come first in a trace). */
export const MAX_OFFER_TRACE_ENTRIES = 10;

export interface TriggerOffer {
  /** The trigger's operation (its id): GET /api/operations/{operationId}. */
  readonly operationId: string;
  readonly triggerName: string;
  /** When it was offered (the engine's clock). */
  readonly at: string;
  readonly outcome:
    | typeof TriggerOutcome.noTransition
    | typeof TriggerOutcome.exitBlocked
    | typeof TriggerOutcome.entryBlocked
    | typeof TriggerOutcome.notActive
    | typeof TriggerOutcome.notInterested
    | typeof TriggerOutcome.capacityQueued
    | typeof TriggerOutcome.capacityTimeout;
  readonly fromStateId?: string;
  readonly transitionId?: string;
  readonly toStateId?: string;
  /** Why, as the decision traced it (at most MAX_OFFER_TRACE_ENTRIES entries). */
  readonly trace?: readonly TraceEntry[];
}

const unchangedOutcomes = new Set<string>([
  TriggerOutcome.noTransition,
  TriggerOutcome.exitBlocked,
  TriggerOutcome.entryBlocked,
  TriggerOutcome.notActive,
  TriggerOutcome.notInterested,
  // Waiting for room in a full state, or given up waiting: the instance is as it was (state-capacity.ts).
  TriggerOutcome.capacityQueued,
  TriggerOutcome.capacityTimeout,
]);

/** The offer to record for a trigger's result, or undefined when the result is not "offered, did nothing". */
export function offerOf(trigger: Trigger, result: InstanceResult, at: Date): TriggerOffer | undefined {
  if (!unchangedOutcomes.has(result.outcome)) return undefined;
  return {
    operationId: trigger.id,
    triggerName: trigger.name,
    at: at.toISOString(),
    outcome: result.outcome as TriggerOffer['outcome'],
    ...(result.fromStateId !== undefined ? { fromStateId: result.fromStateId } : {}),
    ...(result.transitionId !== undefined ? { transitionId: result.transitionId } : {}),
    ...(result.toStateId !== undefined ? { toStateId: result.toStateId } : {}),
    ...(result.trace?.length ? { trace: result.trace.slice(0, MAX_OFFER_TRACE_ENTRIES) } : {}),
  };
}

/**
 * `offer` added to the newest-first list `offers`, replacing an earlier record of the same operation
 * (a retried delivery decides again), the newest MAX_RECENT_OFFERS kept (pure).
 */
export function withOffer(offers: readonly TriggerOffer[], offer: TriggerOffer): TriggerOffer[] {
  return [offer, ...offers.filter((item) => item.operationId !== offer.operationId)].slice(0, MAX_RECENT_OFFERS);
}
