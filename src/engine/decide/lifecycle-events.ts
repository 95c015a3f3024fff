/**
 * @module Lifecycle events of a change (shared/design/workflow-model.md, "Lifecycle events" and "Child
 * workflows"). Every save emits the events its change means (`transitioned` and `completed` for a move into
 * a final state, ...); this module turns them into what the save writes in the same transaction:
 * - an event record per event with at least one subscriber (`GET /api/instances/{id}/events`), holding one
 *   delivery per subscription (`pending` at first), and an `event` outbox row that hands it to delivery;
 * - for a child instance that ends (`completed`, `faulted`, `cancelled`), a `trigger` outbox row raising
 *   `ChildCompleted`/`ChildFaulted`/`ChildCancelled` on its parent, with a deterministic id.
 * A failed save therefore emits nothing, and a saved one loses nothing. Events nobody subscribes to are
 * not written (a workflow without subscriptions pays nothing for them).
 */
import type { WorkflowDefinition } from '../definition/definition';
import type { Cause, Change } from './decision';
import { followUpActor, followUpDepth } from './decision';
import { budgetShare, followUpPieces } from './causal-budget';
import { InstanceStatus } from '../model/enums';
import type { Instance, InstanceFault } from '../model/instance';
import type { JsonObject } from '../model/json';
import { OutboxKind, isStoredOutboxRow, type EventOutboxRow, type OutboxRow, type TriggerOutboxRow } from '../model/outbox';
import { raisedTriggerId } from '../model/trigger-ids';
import { EVENT_RANK, LifecycleEventType, isLifecycleEventType } from '../definition/lifecycle-event-type';
import { wants } from '../definition/subscriptions';
import type { Actor } from '../model/actor';
import type { OpenTask } from '../model/task';
import { taskEventsOf } from './task-events';

export const DeliveryStatus = { pending: 'pending', delivered: 'delivered', deadLettered: 'deadLettered' } as const;
export type DeliveryStatus = (typeof DeliveryStatus)[keyof typeof DeliveryStatus];

export interface EventDelivery {
  readonly subscriptionId: string;
  readonly status: DeliveryStatus;
  /** Attempts made so far (since the last redelivery request). */
  readonly attempts: number;
  readonly lastError?: string;
  readonly lastAttemptAt?: string;
  /** Only while a failed delivery waits for its retry: when the next attempt is due (ISO 8601, UTC). */
  readonly nextAttemptAt?: string;
}

/** `data` of the CloudEvent; `context` holds the keys some subscription includes (each gets only its own). */
export interface LifecycleEventData {
  readonly workflowId: string;
  readonly workflowVersion: number;
  readonly instanceId: string;
  readonly previousStateId: string | null;
  readonly stateId: string;
  readonly previousStatus: InstanceStatus | null;
  readonly status: InstanceStatus;
  readonly transitionId: string | null;
  readonly triggerId: string | null;
  /** Who made the change (actor.ts); absent when unknown (library callers, entries written before actors). */
  readonly actor?: Actor;
  readonly fault?: InstanceFault;
  /** Only for `task*` events: the task as the change left it (as it was, for `taskClosed`). */
  readonly task?: OpenTask;
  readonly context: JsonObject;
}

/** An emitted event as stored beside its instance, with its delivery to each subscription. */
export interface LifecycleEventRecord {
  /** `<instanceId>:<history sequence>:<type>`: stable across redeliveries (the CloudEvent `id`). */
  readonly id: string;
  readonly type: LifecycleEventType;
  /** The history entry of the change that emitted it. */
  readonly sequence: number;
  readonly time: string;
  readonly data: LifecycleEventData;
  /** In the order of the workflow's subscriptions. */
  readonly deliveries: readonly EventDelivery[];
}

export const CHILD_TRIGGER_NAMES: Partial<Record<LifecycleEventType, string>> = {
  completed: 'ChildCompleted',
  faulted: 'ChildFaulted',
  cancelled: 'ChildCancelled',
};

/**
 * `<instanceId>:<incarnation>:<sequence>:<type>`, or `<instanceId>:<sequence>:<type>` for an instance
 * without an incarnation (as before incarnations existed): an instance id used again never repeats an id.
 */
export function eventId(instanceId: string, sequence: number, type: LifecycleEventType, incarnation?: string): string {
  return incarnation === undefined ? `${instanceId}:${sequence}:${type}` : `${instanceId}:${incarnation}:${sequence}:${type}`;
}

/** The sequence, type and incarnation of an event id (undefined when it is not one of `instanceId`'s). */
export function parseEventId(instanceId: string, id: string): { sequence: number; type: LifecycleEventType; incarnation?: string } | undefined {
  if (!id.startsWith(`${instanceId}:`)) return undefined;
  const match = /^(?:([0-9a-z]{1,32}):)?(\d{1,10}):([A-Za-z]+)$/.exec(id.slice(instanceId.length + 1));
  if (!match || !isLifecycleEventType(match[3]!)) return undefined;
  return { sequence: Number(match[2]), type: match[3], ...(match[1] !== undefined ? { incarnation: match[1] } : {}) };
}

/** A change that writes a history entry: only those emit events (a spent timer's save writes none, and emits none). */
/** `outbox`: the change's own rows (its follow-up work shares the causal budget with a parent's notification). */
/** `precedingEntries`: the entries before `historyEntry` (automatic transitions), each emitting its own events. */
export type RecordedChange = Pick<Change, 'instance' | 'precedingEntries'> & { readonly historyEntry: NonNullable<Change['historyEntry']>; readonly outbox?: Change['outbox'] };

/** Which events a change means, in emission order: its history event, then the status it ended in. */
export function lifecycleEventsOf(before: Instance | undefined, change: RecordedChange): LifecycleEventType[] {
  const events = new Set<LifecycleEventType>();
  if (isLifecycleEventType(change.historyEntry.event)) events.add(change.historyEntry.event);
  const status = change.instance.status;
  const statusChanged = before?.status !== status;
  if (status === InstanceStatus.complete && statusChanged) events.add(LifecycleEventType.completed);
  if (status === InstanceStatus.faulted && (statusChanged || change.historyEntry.event === 'faulted')) events.add(LifecycleEventType.faulted);
  if (status === InstanceStatus.cancelled && statusChanged) events.add(LifecycleEventType.cancelled);
  for (const type of taskEventsOf(before?.task, change.instance.task, change.historyEntry)) events.add(type);
  return [...events].sort((a, b) => EVENT_RANK[a] - EVENT_RANK[b]);
}

function pick(context: JsonObject, keys: Iterable<string>): JsonObject {
  const picked: JsonObject = {};
  for (const key of keys) if (Object.hasOwn(context, key)) picked[key] = context[key]!;
  return picked;
}

/** What a change's events add to its save. */
export interface LifecycleEventWrite {
  readonly records: readonly LifecycleEventRecord[];
  readonly outbox: readonly OutboxRow[];
}

/**
 * The event records and outbox rows of `change` (made from `before`; undefined for a creation). Pure:
 * the same change always gives the same rows and ids. `cause` sets the causal depth of a parent's trigger.
 */
export function lifecycleEventWrite(definition: WorkflowDefinition, before: Instance | undefined, change: RecordedChange, cause: Cause): LifecycleEventWrite {
  if (!change.precedingEntries?.length) return entryEventWrite(definition, before, change, cause);
  // A chain of automatic transitions: each entry emits the events of its own step, from the state the
  // previous one reached (the context is the one the change saves: the steps between were never stored).
  const records: LifecycleEventRecord[] = [];
  const outbox: OutboxRow[] = [];
  let previous = before;
  for (const entry of change.precedingEntries) {
    // The task is the change's, made for the state the chain ends in: its events go with the last entry.
    const { task: _task, ...untasked } = change.instance;
    const reached: Instance = { ...untasked, stateId: entry.toStateId, status: entry.status, ...(previous?.task ? { task: previous.task } : {}) };
    const write = entryEventWrite(definition, previous, { instance: reached, historyEntry: entry }, cause);
    records.push(...write.records);
    outbox.push(...write.outbox);
    previous = reached;
  }
  const last = entryEventWrite(definition, previous, { instance: change.instance, historyEntry: change.historyEntry, ...(change.outbox ? { outbox: change.outbox } : {}) }, cause);
  return { records: [...records, ...last.records], outbox: [...outbox, ...last.outbox] };
}

/** The events of one history entry of a change. */
function entryEventWrite(definition: WorkflowDefinition, before: Instance | undefined, change: RecordedChange, cause: Cause): LifecycleEventWrite {
  const after = change.instance;
  const { sequence, at } = change.historyEntry;
  const subscriptions = definition.subscriptions ?? [];
  const records: LifecycleEventRecord[] = [];
  const outbox: OutboxRow[] = [];
  for (const type of lifecycleEventsOf(before, change)) {
    const subscribed = subscriptions.filter((subscription) => wants(subscription, type));
    if (subscribed.length > 0) {
      const id = eventId(after.id, sequence, type, after.incarnation);
      const keys = new Set(subscribed.flatMap((subscription) => subscription.contextItemsToInclude ?? []));
      records.push({
        id,
        type,
        sequence,
        time: at,
        data: {
          workflowId: after.workflowId,
          workflowVersion: after.workflowVersion,
          instanceId: after.id,
          previousStateId: before ? before.stateId : null,
          stateId: after.stateId,
          previousStatus: before ? before.status : null,
          status: after.status,
          transitionId: change.historyEntry.transitionId,
          triggerId: change.historyEntry.triggerId,
          ...(change.historyEntry.actor ? { actor: change.historyEntry.actor } : {}),
          ...(after.status === InstanceStatus.faulted && after.fault ? { fault: after.fault } : {}),
          ...taskDataOf(type, before, after),
          context: pick(after.context, keys),
        },
        deliveries: subscribed.map((subscription) => ({ subscriptionId: subscription.id, status: DeliveryStatus.pending, attempts: 0 })),
      });
      const row: EventOutboxRow = {
        id: `e.${sequence}.${type}`,
        kind: OutboxKind.event,
        payload: { instanceId: after.id, eventId: id, subscriptionIds: subscribed.map((subscription) => subscription.id) },
      };
      outbox.push(row);
    }
    const childTrigger = CHILD_TRIGGER_NAMES[type];
    if (childTrigger && after.parent) outbox.push(parentTriggerRow(after, childTrigger, sequence, cause, followUpPieces(after.id, change.outbox ?? [])));
  }
  return { records, outbox };
}

function taskDataOf(type: LifecycleEventType, before: Instance | undefined, after: Instance): { task?: OpenTask } {
  if (!type.startsWith('task')) return {};
  const task = type === LifecycleEventType.taskClosed ? before?.task : after.task;
  return task ? { task } : {};
}

/** `ChildCompleted` (or Faulted, Cancelled) for the parent: subject the parent's id, a deterministic id. */
function parentTriggerRow(child: Instance, name: string, sequence: number, cause: Cause, otherPieces: number): TriggerOutboxRow {
  const parent = child.parent!;
  // `p<sequence>` is a cause tag of its own (trigger-ids.ts): no trigger the child raises can share the id.
  const id = raisedTriggerId(child.id, `p${sequence}`, 0, child.incarnation);
  return {
    id,
    kind: OutboxKind.trigger,
    payload: {
      id,
      name,
      subjects: [parent.instanceId],
      // For this parent's incarnation only, and kept by it while it cannot take it (held-triggers.ts).
      recipient: { instanceId: parent.instanceId, ...(parent.incarnation !== undefined ? { incarnation: parent.incarnation } : {}) },
      parameters: {
        childInstanceId: child.id,
        workflowId: child.workflowId,
        stateId: child.stateId,
        status: child.status,
        context: pick(child.context, parent.returnContextItems ?? []),
      },
      // One step deeper than the child's change; never refused for depth (causal-budget.ts): the end is a fact.
      causalDepth: followUpDepth(cause),
      // Its share of the change's budget, counted with the change's other follow-up work as enterState
      // counts it; sent even below 1, and its parent can then make nothing further from it.
      causalBudget: budgetShare(cause, otherPieces + 1),
      ...followUpActor(cause),
    },
  };
}

/** `change` with its events: the records to write, the rows appended to its outbox and listed on the instance. */
export function withLifecycleEvents(definition: WorkflowDefinition, before: Instance | undefined, change: Change, cause: Cause): Change {
  if (!change.historyEntry) return change;
  const events = lifecycleEventWrite(
    definition,
    before,
    { instance: change.instance, historyEntry: change.historyEntry, outbox: change.outbox, ...(change.precedingEntries ? { precedingEntries: change.precedingEntries } : {}) },
    cause,
  );
  if (events.records.length === 0 && events.outbox.length === 0) return change;
  return {
    ...change,
    // Event rows are record-backed (outbox.ts): only the parent's trigger row is stored and listed.
    instance: { ...change.instance, outbox: [...change.instance.outbox, ...events.outbox.filter(isStoredOutboxRow).map((row) => row.id)] },
    outbox: [...change.outbox, ...events.outbox],
    events: [...(change.events ?? []), ...events.records],
  };
}
