/**
 * @module What an instance waits on, kept on it (Instance): the timers armed for its state entry, its window
 * of self-caused changes (causal-budget.ts), bursts held back by `flow.debounce`, and where it is counted and
 * waiting for a state's `capacity`. The instance itself, its faults and its history are instance.ts.
 */
import type { Actor } from './actor';
import type { Trigger } from './trigger';

/** A timer armed when the instance entered its current state: its transition fires at `dueAt` (ISO 8601, UTC). */
export interface ArmedTimer {
  readonly transitionId: string;
  /** The actor of the change that armed it: its firing is `system` work caused by them. */
  readonly armedBy?: Actor;
  readonly dueAt: string;
  /**
   * The causal depth its firing carries (causal-budget.ts): the arming change's + 1 when it was due at
   * once, absent (0) when it was due later. Internal: the API shows `transitionId` and `dueAt` only.
   */
  readonly causalDepth?: number;
  /** Its share of the arming change's causal budget (causal-budget.ts), when it was due at once; absent (the whole budget) otherwise. */
  readonly causalBudget?: number;
}

/** How many changes an instance made to itself without outside input, in the window that opened at `windowStartedAt` (causal-budget.ts). */
export interface SelfCausedChanges {
  readonly windowStartedAt: string;
  readonly count: number;
}

/**
 * A burst of triggers of one name held back by the workflow's `flow.debounce` (decide/debounce.ts): the
 * trigger to apply (the latest, or the merge of them all), applied at `dueAt` by a timer (a `timer`
 * outbox row and a due-timer row, like a pending retry's). At most one per trigger name.
 */
export interface PendingDebounce {
  readonly triggerName: string;
  /** When the first trigger of the burst arrived (ISO 8601, UTC): `maxWaitMs` counts from it. */
  readonly firstAt: string;
  /** When the burst is applied unless another trigger of it arrives first (ISO 8601, UTC). */
  readonly dueAt: string;
  /** How many triggers the burst holds. */
  readonly coalesced: number;
  /** What is applied: the latest trigger (its id, subjects, actor), with the merged parameters when the policy merges. */
  readonly trigger: Trigger;
}

/** Where an instance is counted for a state's `capacity` (Instance.capacityEntry). */
export interface CapacityEntry {
  readonly stateId: string;
  readonly key: string;
}

/** A trigger of the instance waiting for room in a full state (Instance.capacityWaits). */
export interface CapacityWait {
  readonly triggerId: string;
  readonly stateId: string;
  readonly key: string;
  /** ISO 8601, UTC: when its timer ends the wait. */
  readonly deadline: string;
  /**
   * An automatic transition's wait (its trigger is the instance's own `capacityRoom` trigger): the state
   * the instance waits in. Leaving it ends the wait, as the transition is no longer the instance's to take.
   */
  readonly whileIn?: string;
}
