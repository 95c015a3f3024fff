/**
 * @module The run loop's vocabulary: the ports it writes through, what a decision is given, and what one
 * run of the loop returns (instance-runtime.ts and the modules of its steps share these).
 */
import type { WorkflowDefinition } from '../definition/definition';
import type { Decision } from '../decide/decision';
import type { InstanceResult } from '../operations/operation';
import type { Effects } from '../steps/effects';
import type { StoredInstance } from '../model/instance';
import type { OutboxRow } from '../model/outbox';
import type { DueTimerIndex, InstanceStore, InterestIndex, LeaseProvider, OperationOptions, OutboxStore } from '../ports/ports';
import type { Actor } from '../model/actor';
import type { SearchIndexStore } from '../search/search-port';
import type { FlowStore } from '../ports/flow-store';
import type { TaskIndex } from '../tasks/task-index';
import type { CapacityOffer, StateCapacityRows } from '../admission/state-capacity';
import type { AdmissionProtocol } from '../admission/admission-protocol';

export interface InstanceRuntimePorts {
  readonly instances: InstanceStore;
  readonly outbox: OutboxStore;
  readonly interests: InterestIndex;
  readonly leases: LeaseProvider;
  /** Where a host that schedules timers from storage finds them (the local server); absent elsewhere. */
  readonly dueTimers?: DueTimerIndex;
  /** The search index (search/search-port.ts); absent: instances are not indexed for search. */
  readonly search?: SearchIndexStore;
  /** Flow-control rows (concurrency slots); absent: `flow.concurrency` policies are not enforced. */
  readonly flow?: FlowStore;
  /** The inbox index of human tasks (tasks/task-index.ts); absent: tasks work, but no inbox can be listed. */
  readonly tasks?: TaskIndex;
}

/** What a decision needs besides the instance: its definition and the effects it may use. */
export interface DecideContext {
  readonly definition: WorkflowDefinition;
  readonly effects: Effects;
}

export type Decide = (stored: StoredInstance, context: DecideContext) => Promise<Decision>;

/** How a trigger is applied: `offeredSince` lets the runtime skip looking up records the instance let go. */
export interface ApplyTriggerOptions extends OperationOptions {
  /**
   * When the trigger's operation was recorded (ISO 8601): the trigger cannot have been applied before.
   * Absent (a trigger delivered in-process, without an operation): any time.
   */
  readonly offeredSince?: string;
  /**
   * The longest to wait in place (holding the caller's worker) for a concurrency slot, when shorter than the
   * policy's `maxWait`; 0 hands the trigger back at once (FlowQueuedError naming its queue) for the caller to
   * park it outside its workers (the local runner). @default the policy's maxWait
   */
  readonly maxSlotWaitInMs?: number;
}

/**
 * Clocks of different workers may disagree: a trigger offered less than this long after the instance let
 * an applied record go is still looked up among the rows kept beside it.
 */
export const APPLIED_LOOKUP_CLOCK_MARGIN_MS = 5 * 60_000;

/** The outcome of one run of the loop. */
export interface AppliedDecision {
  /** Undefined when the instance does not exist. */
  readonly decision?: Decision;
  /** The instance as saved, or as loaded when nothing changed; undefined when it does not exist. */
  readonly instance?: StoredInstance;
  /** Rows to relay now that the lease is released: those this change wrote and leftovers found on load. */
  readonly outbox: readonly OutboxRow[];
  /** Triggers waiting for room in a full state (`capacity`) that now fit: offer them again. */
  readonly capacityOffers?: readonly CapacityOffer[];
  /** A deletion's re-offers of the room the instance held (capacity-reoffers.ts): relayed though the instance is gone. */
  readonly released?: readonly OutboxRow[];
}

/** How a change is made: `operationId` names the migration or bulk action making it, recorded on its history entry; `actor` who asked. */
export interface ChangeOptions extends OperationOptions {
  readonly operationId?: string;
  /** Who asked for a change that is not a trigger's (a recovery, a cancellation, a migration, ...). */
  readonly actor?: Actor;
}

/** Answers for an instance instead of the decision (a bulk action's filter re-checked under the lease). */
export type InstancePrecondition = (stored: StoredInstance) => InstanceResult | undefined;

/**
 * Where a change from outside meets flow admission (instance-runtime.ts): the capacity rows (absent without
 * a flow store), the admission protocol of one application, and its settling after the save: a place counted
 * in that the saved instance does not use is given back (`failed`: the instance as stored now decides).
 */
export interface CapacityPlaces {
  readonly capacity?: StateCapacityRows;
  admissionOf(options: OperationOptions): AdmissionProtocol;
  giveBackUnusedPlace<Decided extends AppliedDecision>(protocol: AdmissionProtocol, workflowId: string | undefined, instanceId: string, decided: Decided, failed?: boolean): Promise<Decided>;
}
