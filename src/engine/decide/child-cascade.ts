/**
 * @module A parent's children follow it (README, "Child workflows"): cancelling a parent cancels its
 * children that are still running, and deleting a parent deletes its children (a parent with running
 * children is running: deleting it needs `force`, like deleting a waiting instance). Only the children of
 * the parent's own incarnation are its children: an instance started by an earlier parent with the same
 * id is left alone. Only an instance that has started a child (`startedChildren`, set by the runtime on
 * the save that writes its first `startInstance` row) looks its children up, so others pay nothing.
 */
import type { Change } from './decision';
import { InstanceStatus } from '../model/enums';
import type { Instance } from '../model/instance';
import { OutboxKind, type CancelChildrenOutboxRow } from '../model/outbox';

/** Statuses in which a child is still running: deleting its parent then needs `force`. */
export const runningChildStatuses: ReadonlySet<InstanceStatus> = new Set([InstanceStatus.waiting, InstanceStatus.initializing]);

/** The change, its instance marked `startedChildren` when it writes its first `startInstance` row. */
export function markParent(change: Change): Change {
  if (change.instance.startedChildren || !change.outbox.some((row) => row.kind === OutboxKind.startInstance)) return change;
  return { ...change, instance: { ...change.instance, startedChildren: true } };
}

/** Whether `child` is a child of this incarnation of `parent`. */
export function isChildOf(child: Pick<Instance, 'parent'>, parent: Pick<Instance, 'id' | 'incarnation'>): boolean {
  return child.parent?.instanceId === parent.id && child.parent.incarnation === parent.incarnation;
}

/** The row that cancels a cancelled parent's running children (none for an instance that never started one). */
export function cancelChildrenRows(parent: Instance): CancelChildrenOutboxRow[] {
  if (!parent.startedChildren) return [];
  return [
    { id: `x${parent.historyLength}.children`, kind: OutboxKind.cancelChildren, payload: { parentId: parent.id, ...(parent.incarnation !== undefined ? { incarnation: parent.incarnation } : {}) } },
  ];
}
