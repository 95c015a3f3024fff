/**
 * @module Which task lifecycle events a change means (issue 39), read from the task before and after it
 * and the history entry's `task` record: a task opened (`taskCreated`, `taskAssigned`), claimed (by a
 * claim or a delegation), reassigned or widened (`taskAssigned`), reminded, escalated, resolved
 * (`taskCompleted`: its outcome trigger is sent) and closed (the instance left the state, whatever moved it).
 */
import { LifecycleEventType } from '../definition/lifecycle-event-type';
import type { HistoryEntry } from '../model/instance';
import type { OpenTask } from '../model/task';

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((value, index) => value === b[index]);

export function taskEventsOf(before: OpenTask | undefined, after: OpenTask | undefined, entry: Pick<HistoryEntry, 'task'>): LifecycleEventType[] {
  const events: LifecycleEventType[] = [];
  const same = before !== undefined && after !== undefined && before.id === after.id;
  if (before && !same) events.push(LifecycleEventType.taskClosed);
  if (!after) return events;
  if (!same) return [...events, LifecycleEventType.taskCreated, LifecycleEventType.taskAssigned];
  const assigneesChanged = (['users', 'groups', 'roles'] as const).some((kind) => !sameList(before.assignees[kind], after.assignees[kind]));
  if (assigneesChanged) events.push(LifecycleEventType.taskAssigned);
  if (after.claimedBy && (after.claimedBy.id !== before.claimedBy?.id || after.claimedBy.at !== before.claimedBy?.at)) events.push(LifecycleEventType.taskClaimed);
  if (entry.task?.action === 'reminded') events.push(LifecycleEventType.taskReminded);
  if (after.escalated && !before.escalated) events.push(LifecycleEventType.taskEscalated);
  if (after.resolution && !before.resolution) events.push(LifecycleEventType.taskCompleted);
  return events;
}
