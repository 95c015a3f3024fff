/** @module Workflow instances and their history. */
import type { InstanceStatus } from './enums';
import type { JsonObject } from './json';
import type { Trigger } from './trigger';

/** Maximum number of recently applied trigger ids an instance remembers for idempotency. */
export const APPLIED_TRIGGER_MEMORY = 128;

export interface InstanceFault {
  readonly message: string;
  /** null when the fault happened during creation or recovery. */
  readonly triggerId: string | null;
  readonly at: string;
}

/** A trigger raised by an action, saved with the instance (outbox) and dispatched after the save. */
export type RaisedTrigger = Trigger;

export interface Instance {
  readonly id: string;
  readonly workflowId: string;
  readonly workflowVersion: number;
  readonly stateId: string;
  readonly status: InstanceStatus;
  readonly context: JsonObject;
  /** Subjects the instance is offered triggers for; always includes its own id. */
  readonly interests: readonly string[];
  readonly fault?: InstanceFault;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Ids of the last triggers that changed this instance, newest last (bounded by APPLIED_TRIGGER_MEMORY). */
  readonly appliedTriggerIds: readonly string[];
  /** Outbox: raised triggers saved atomically with the instance, not yet known to be dispatched. */
  readonly pendingTriggers: readonly RaisedTrigger[];
  /** Number of history entries written so far; the next entry gets this sequence number. */
  readonly historyLength: number;
}

/** An instance as read from a store, with the ETag its next save must match. */
export interface StoredInstance extends Instance {
  readonly etag: string;
}

export const HistoryEvent = {
  created: 'created',
  transitioned: 'transitioned',
  faulted: 'faulted',
  recovered: 'recovered',
  cancelled: 'cancelled',
} as const;
export type HistoryEvent = (typeof HistoryEvent)[keyof typeof HistoryEvent];

export interface HistoryEntry {
  /** 0, 1, 2, ... per instance; orders the history. */
  readonly sequence: number;
  readonly at: string;
  readonly event: HistoryEvent;
  readonly triggerId: string | null;
  readonly transitionId: string | null;
  readonly fromStateId: string | null;
  readonly toStateId: string;
  /** The instance's status after this entry. */
  readonly status: InstanceStatus;
}
