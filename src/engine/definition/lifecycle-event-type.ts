/**
 * @module The lifecycle events an instance's changes emit. Extensible: a feature adding a kind of
 * change (suspend, resume, migrate) adds its name here (and to HistoryEvent); `EVENT_RANK` orders the
 * events one save emits (the move first, then the status it ended in).
 */
import { z } from 'zod';

export const LifecycleEventType = {
  created: 'created',
  transitioned: 'transitioned',
  recovered: 'recovered',
  migrated: 'migrated',
  suspended: 'suspended',
  resumed: 'resumed',
  completed: 'completed',
  faulted: 'faulted',
  cancelled: 'cancelled',
  /** A step failed and an `onError` moved the instance (last, so the ranks of the others stay as stored). */
  errorHandled: 'errorHandled',
  /** Human tasks (src/engine/tasks): CloudEvent types `io.signalbox.task.created`, ... (cloud-event.ts). */
  taskCreated: 'taskCreated',
  taskAssigned: 'taskAssigned',
  taskClaimed: 'taskClaimed',
  taskReminded: 'taskReminded',
  taskEscalated: 'taskEscalated',
  taskCompleted: 'taskCompleted',
  taskClosed: 'taskClosed',
} as const;
export type LifecycleEventType = (typeof LifecycleEventType)[keyof typeof LifecycleEventType];
export const lifecycleEventTypeSchema = z.enum(Object.values(LifecycleEventType) as [LifecycleEventType, ...LifecycleEventType[]]);

/** Order within one save (and the last part of an event's row key): the declaration order above. */
export const EVENT_RANK: Readonly<Record<LifecycleEventType, number>> = Object.fromEntries(Object.values(LifecycleEventType).map((type, index) => [type, index])) as Record<LifecycleEventType, number>;

export function isLifecycleEventType(value: string): value is LifecycleEventType {
  return Object.hasOwn(EVENT_RANK, value);
}
