/**
 * @module The typed outbox: what a change must make happen elsewhere once it is saved. Rows live in the
 * instance's partition and are written in the same atomic save as the change (so a failed save emits
 * nothing and a successful one loses nothing); a relay delivers them after the instance's lease is
 * released and deletes each row once delivered. Row ids are deterministic, so a delivery repeated after a
 * crash is recognised downstream (a raised trigger's id is its operation id).
 *
 * Kinds: `trigger` (a raised trigger) and `timer` (a timer armed on entering a state, timers.ts); `event`
 * and `startInstance` are reserved for the features built on this (lifecycle events, child workflows):
 * add a row type to `OutboxRow` and a handler to the relay's `OutboxHandlers`.
 */
import type { JsonObject } from './json';
import type { DueTimer } from './timers';
import type { Trigger } from './trigger';

export const OutboxKind = {
  trigger: 'trigger',
  timer: 'timer',
  event: 'event',
  startInstance: 'startInstance',
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

/** A timer armed on entering a state: delivered to the host's scheduler (row id = the timer's trigger id). */
export type TimerOutboxRow = OutboxRowOf<typeof OutboxKind.timer, DueTimer>;

/**
 * Every row kind the engine writes: raised triggers and armed timers; `event` and `startInstance` are
 * reserved and get their row types here when their features land (their payloads must be JSON objects).
 */
export type OutboxRow = TriggerOutboxRow | TimerOutboxRow;

/** A row as stored, with the instance it belongs to (the start-up sweep lists rows of every instance). */
export interface StoredOutboxRow {
  readonly instanceId: string;
  readonly row: OutboxRow;
}

/** Rows of the same instance written by one change: at most this many (a save is one table transaction of at most 100 operations). */
export const MAX_OUTBOX_ROWS_PER_CHANGE = 90;

export type OutboxPayload = JsonObject | Trigger | DueTimer;
