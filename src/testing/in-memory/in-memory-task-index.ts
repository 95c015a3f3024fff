/** @module The inbox index of human tasks in memory (tasks/task-index.ts): rows by principal key, sorted by due date. */
import { matchesInboxQuery, mergeInboxPages, type TaskInboxPage, type TaskInboxQuery, type TaskInboxRow, type TaskIndex } from '../../engine/tasks';

export class InMemoryTaskIndex implements TaskIndex {
  private readonly partitions = new Map<string, Map<string, TaskInboxRow>>();
  /** Rows read by `list` so far: a test can see that an inbox reads only the caller's partitions. */
  rowsRead = 0;

  async put(rows: readonly TaskInboxRow[]): Promise<void> {
    for (const row of rows) {
      const partition = this.partitions.get(row.key) ?? new Map<string, TaskInboxRow>();
      partition.set(row.sortKey, { ...row });
      this.partitions.set(row.key, partition);
    }
  }

  async remove(rows: readonly Pick<TaskInboxRow, 'key' | 'sortKey'>[]): Promise<void> {
    for (const row of rows) this.partitions.get(row.key)?.delete(row.sortKey);
  }

  async list(keys: readonly string[], query: TaskInboxQuery, page: { readonly limit: number; readonly continuationToken?: string }): Promise<TaskInboxPage> {
    const pages = [...new Set(keys)].map((key) => {
      const rows = [...(this.partitions.get(key)?.values() ?? [])].filter((row) => page.continuationToken === undefined || row.sortKey > page.continuationToken);
      this.rowsRead += rows.length;
      return rows
        .filter((row) => matchesInboxQuery(row, query))
        .sort((a, b) => (a.sortKey < b.sortKey ? -1 : 1))
        .slice(0, page.limit + 1);
    });
    return mergeInboxPages(pages, page.limit);
  }

  /** Every row (tests). */
  all(): TaskInboxRow[] {
    return [...this.partitions.values()].flatMap((partition) => [...partition.values()]);
  }
}
