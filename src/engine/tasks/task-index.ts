/**
 * @module The inbox index: a row per open task and principal it is for (`user:<id>`, `group:<id>`,
 * `role:<name>`), partitioned by that principal and sorted by due date, so a person's inbox reads only
 * their own partitions (one query per id, group and role), never every task. Kept with every save like
 * interest rows (runtime/index-rows.ts): rows a save needs are written before it, rows it no longer needs
 * removed after it, so the index may briefly hold more than the truth (a row of a task closed by a save
 * whose clean-up failed), never less; the task itself (on the instance) is the truth a command checks.
 */
import type { Instance } from '../model/instance';
import type { OpenTask } from '../model/task';
import { principalKeys } from './task-principals';

interface Options {
  readonly abortSignal?: AbortSignal;
}

/** One inbox row: what the list shows without reading the instance. */
export interface TaskInboxRow {
  /** The principal it is filed under: `user:<id>`, `group:<id>` or `role:<name>`. */
  readonly key: string;
  /** Orders a partition by due date (tasks without one last), then task id: `<dueAt or ~>|<taskId>`. */
  readonly sortKey: string;
  readonly taskId: string;
  readonly instanceId: string;
  readonly workflowId: string;
  readonly stateId: string;
  readonly title: string;
  readonly createdAt: string;
  readonly dueAt?: string;
  readonly escalated: boolean;
  readonly claimedBy?: string;
  /** Filed for a candidate (who may claim it), not an assignee. */
  readonly candidate: boolean;
  readonly decided: boolean;
}

export interface TaskInboxQuery {
  readonly workflowId?: string;
  readonly stateId?: string;
  /** Only tasks due before this instant (ISO 8601); `overdue` is this with now. */
  readonly dueBefore?: string;
  readonly escalated?: boolean;
  /** Include rows filed for candidates (default: assignees only). */
  readonly includeCandidates?: boolean;
}

export interface TaskInboxPage {
  readonly items: readonly TaskInboxRow[];
  /** The sort key to continue after; absent on the last page. */
  readonly continuationToken?: string;
}

/** The port: Table rows on Azure (src/storage), a map in memory (src/testing). */
export interface TaskIndex {
  put(rows: readonly TaskInboxRow[], options?: Options): Promise<void>;
  remove(rows: readonly Pick<TaskInboxRow, 'key' | 'sortKey'>[], options?: Options): Promise<void>;
  /** Rows filed under any of `keys` (each task once), by sort key, after `continuationToken`; at most `limit`. */
  list(keys: readonly string[], query: TaskInboxQuery, page: { readonly limit: number; readonly continuationToken?: string }, options?: Options): Promise<TaskInboxPage>;
}

/** Sorts after every ISO 8601 instant: tasks without a due date come last. */
const NO_DUE = '~';

export function taskSortKey(task: Pick<OpenTask, 'id' | 'dueAt'>): string {
  return `${task.dueAt ?? NO_DUE}|${task.id}`;
}

/** The inbox rows an instance as saved needs: one per principal of its open task. */
export function inboxRowsOf(instance: Instance | undefined): TaskInboxRow[] {
  const task = instance?.task;
  if (!instance || !task) return [];
  const base = {
    sortKey: taskSortKey(task),
    taskId: task.id,
    instanceId: instance.id,
    workflowId: instance.workflowId,
    stateId: task.stateId,
    title: task.title,
    createdAt: task.createdAt,
    ...(task.dueAt !== undefined ? { dueAt: task.dueAt } : {}),
    escalated: task.escalated === true,
    ...(task.claimedBy ? { claimedBy: task.claimedBy.id } : {}),
    decided: task.resolution !== undefined,
  };
  const assigned = new Set(principalKeys(task.assignees));
  const candidates = task.candidates ? principalKeys(task.candidates).filter((key) => !assigned.has(key)) : [];
  return [...[...assigned].map((key) => ({ ...base, key, candidate: false })), ...candidates.map((key) => ({ ...base, key, candidate: true }))];
}

const rowId = (row: Pick<TaskInboxRow, 'key' | 'sortKey'>) => `${row.key}\n${row.sortKey}`;

/** What a save changes in the index: rows to write before it (new or changed) and rows to remove after it. */
export function inboxRowChanges(before: Instance | undefined, after: Instance): { put: TaskInboxRow[]; remove: TaskInboxRow[] } {
  const previous = new Map(inboxRowsOf(before).map((row) => [rowId(row), row]));
  const next = inboxRowsOf(after);
  const kept = new Set(next.map(rowId));
  const put = next.filter((row) => JSON.stringify(previous.get(rowId(row))) !== JSON.stringify(row));
  return { put, remove: [...previous.values()].filter((row) => !kept.has(rowId(row))) };
}

/** Whether a row passes the query's filters (the in-memory index and tests; the Table index filters in its query). */
export function matchesInboxQuery(row: TaskInboxRow, query: TaskInboxQuery): boolean {
  if (query.workflowId !== undefined && row.workflowId !== query.workflowId) return false;
  if (query.stateId !== undefined && row.stateId !== query.stateId) return false;
  if (query.escalated !== undefined && row.escalated !== query.escalated) return false;
  if (query.dueBefore !== undefined && !(row.dueAt !== undefined && row.dueAt < query.dueBefore)) return false;
  if (!query.includeCandidates && row.candidate) return false;
  return true;
}

/** Merges per-key pages sorted by sort key into one, each task once. */
export function mergeInboxPages(pages: readonly (readonly TaskInboxRow[])[], limit: number): TaskInboxPage {
  const seen = new Set<string>();
  const merged = pages
    .flat()
    .sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0))
    .filter((row) => !seen.has(row.taskId) && seen.add(row.taskId) !== undefined);
  const items = merged.slice(0, limit);
  return merged.length > limit ? { items, continuationToken: items[items.length - 1]!.sortKey } : { items };
}

/** Keeps the index with the saves of the run loop (before: rows it needs; after: rows it no longer does). */
export class TaskRows {
  constructor(
    private readonly index: TaskIndex | undefined,
    private readonly warn: (message: string, properties: Record<string, unknown>) => void,
  ) {}

  async beforeSave(before: Instance | undefined, after: Instance, options: Options): Promise<void> {
    if (!this.index || (!before?.task && !after.task)) return;
    const { put } = inboxRowChanges(before, after);
    if (put.length) await this.index.put(put, options);
  }

  async afterSave(before: Instance | undefined, after: Instance, options: Options): Promise<void> {
    if (!this.index || !before?.task) return;
    const { remove } = inboxRowChanges(before, after);
    if (remove.length === 0) return;
    try {
      await this.index.remove(remove, options);
    } catch (error) {
      // Harmless: the list shows a row whose task is closed; a command on it answers 409 naming why.
      this.warn('Could not remove stale task inbox rows', { instanceId: after.id, error: String(error) });
    }
  }
}
