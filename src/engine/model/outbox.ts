/**
 * @module The typed outbox: what a change must make happen elsewhere once it is saved. Rows live in the
 * instance's partition and are written in the same atomic save as the change (so a failed save emits
 * nothing and a successful one loses nothing); a relay delivers them after the instance's lease is
 * released and deletes each row once delivered. Row ids are deterministic, so a delivery repeated after a
 * crash is recognised downstream (a raised trigger's id is its operation id).
 *
 * Kinds: `trigger` (a raised trigger), `timer` (a timer armed on entering a state, timers.ts), `event` (a
 * lifecycle event handed to delivery; record-backed, never stored), `startInstance` (a child to create) and
 * `cancelChildren` (a parent's children to cancel). A new kind adds a row type to `OutboxRow` and a handler
 * to the relay's `OutboxHandlers` (docs/decisions/0001-outbox.md).
 */
import type { Actor } from './actor';
import type { JsonObject } from './json';
import type { Trigger } from './trigger';

export const OutboxKind = {
  trigger: 'trigger',
  timer: 'timer',
  event: 'event',
  startInstance: 'startInstance',
  cancelChildren: 'cancelChildren',
} as const;
export type OutboxKind = (typeof OutboxKind)[keyof typeof OutboxKind];

/** A row of one kind: `id` is unique per instance and deterministic (derived from what caused it). */
export interface OutboxRowOf<K extends OutboxKind, P> {
  readonly id: string;
  readonly kind: K;
  readonly payload: P;
}

/** A trigger raised by an action: delivered as a trigger of its own (`POST /api/triggers`), id and all. */
export type TriggerOutboxRow = OutboxRowOf<typeof OutboxKind.trigger, Trigger>;

/** Lifecycle events handed to delivery (events/lifecycle-events.ts): the event's id and its subscribers. */
export type EventOutboxRow = OutboxRowOf<typeof OutboxKind.event, { readonly instanceId: string; readonly eventId: string; readonly subscriptionIds: readonly string[] }>;

/** A child instance to create (the `startInstance` action): created once, with `parent` set. */
export interface StartInstancePayload {
  readonly workflowId: string;
  readonly instanceId: string;
  readonly context: JsonObject;
  readonly parent: { readonly instanceId: string; readonly incarnation?: string; readonly returnContextItems?: readonly string[] };
  /** The causal depth of the child's creation (causal-budget.ts): the parent's change + 1. Absent on rows written before causal depths existed. */
  readonly causalDepth?: number;
  /** The child's share of its parent's causal budget (causal-budget.ts). Absent on rows written before it: the whole budget. */
  readonly causalBudget?: number;
  /** `system`, caused by the actor of the parent's change. */
  readonly actor?: Actor;
}
export type StartInstanceOutboxRow = OutboxRowOf<typeof OutboxKind.startInstance, StartInstancePayload>;

/** A cancelled parent's children to cancel too (those of its incarnation still running): delivered by the engine. */
export type CancelChildrenOutboxRow = OutboxRowOf<typeof OutboxKind.cancelChildren, { readonly parentId: string; readonly incarnation?: string }>;

/** A timer armed on entering a state: delivered to the host's scheduler (row id = the timer's trigger id). */
export type TimerOutboxRow = OutboxRowOf<typeof OutboxKind.timer, DueTimer>;

/** Every row kind the engine writes (payloads must be JSON objects). */
export type OutboxRow = TriggerOutboxRow | TimerOutboxRow | EventOutboxRow | StartInstanceOutboxRow | CancelChildrenOutboxRow;

/** A row as stored, with the instance it belongs to (the start-up sweep lists rows of every instance). */
export interface StoredOutboxRow {
  readonly instanceId: string;
  readonly row: OutboxRow;
}

/**
 * Kinds whose rows are relayed but not written as outbox rows: a lifecycle event's record (written in the
 * same save, its deliveries `pending`) is already the durable hand-off, resumed at start-up
 * (Engine.resumeEventDeliveries), so a separate row would only cost a delete after every relay.
 */
export const RECORD_BACKED_KINDS: ReadonlySet<OutboxKind> = new Set([OutboxKind.event]);

/** Whether `row` is written to (and deleted from) the outbox store. */
export function isStoredOutboxRow(row: OutboxRow): boolean {
  return !RECORD_BACKED_KINDS.has(row.kind);
}

/** Rows of the same instance written by one change: at most this many (a save is one table transaction of at most 100 operations). */
export const MAX_OUTBOX_ROWS_PER_CHANGE = 90;

/** An armed timer with everything a scheduler needs to fire it: the payload of a `timer` outbox row. */
export interface DueTimer {
  /** The timer's trigger id (also its operation id, and its outbox row id). */
  readonly timerId: string;
  readonly instanceId: string;
  readonly transitionId: string;
  readonly stateEntry: number;
  /** ISO 8601, UTC. */
  readonly dueAt: string;
  /** The causal depth its trigger carries (ArmedTimer.causalDepth); absent: 0. */
  readonly causalDepth?: number;
  /** The causal budget its trigger carries (ArmedTimer.causalBudget); absent: the whole budget. */
  readonly causalBudget?: number;
  /** The incarnation that armed it (absent for instances without one): another incarnation never fires it. */
  readonly incarnation?: string;
  /**
   * Present only for a pending retry (instance.ts, `pendingRetry`): the timer re-applies that trigger
   * instead of firing a transition (`transitionId` is then empty).
   */
  readonly retry?: { readonly triggerId: string; readonly attempt: number };
  /**
   * Present only for a debounced burst (instance.ts, `debounces`): the timer applies the burst of that
   * trigger name whose latest trigger is `triggerId` (`transitionId` is then empty).
   */
  readonly debounce?: { readonly triggerName: string; readonly triggerId: string };
  /**
   * Present only for a trigger waiting for room in a full state (instance.ts, `capacityWaits`): the timer
   * ends that wait (`capacityTimeout`) if it still waits (`transitionId` is then empty).
   */
  readonly capacityWait?: { readonly triggerId: string; readonly stateId: string; readonly key: string };
}
