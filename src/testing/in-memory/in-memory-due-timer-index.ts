/** @module The due-timer index in memory (tests): rows sorted by due time, then timer id. */
import type { DueTimerIndex, OperationOptions, Page, PageOptions } from '../../engine/ports';
import type { DueTimer } from '../../engine/decide';
import { pageOf } from './paging';
import { pagedList, type PagedAsyncIterable } from '../../engine/ports';

function keyOf(timer: DueTimer): string {
  return `${String(Math.max(0, Date.parse(timer.dueAt))).padStart(16, '0')}_${timer.timerId}`;
}

export class InMemoryDueTimerIndex implements DueTimerIndex {
  private readonly rows = new Map<string, DueTimer>();

  async add(timers: readonly DueTimer[], _options?: OperationOptions): Promise<void> {
    for (const timer of timers) this.rows.set(keyOf(timer), { ...timer });
  }

  listDue(until: Date, options: PageOptions = {}): PagedAsyncIterable<DueTimer> {
    return pagedList((page) => this.listDuePage(until, page), options);
  }

  private async listDuePage(until: Date, options: PageOptions = {}): Promise<Page<DueTimer>> {
    const due = this.sorted().filter((timer) => Date.parse(timer.dueAt) <= until.getTime());
    return pageOf(due, options);
  }

  async remove(timers: readonly DueTimer[], _options?: OperationOptions): Promise<void> {
    for (const timer of timers) this.rows.delete(keyOf(timer));
  }

  private sorted(): DueTimer[] {
    return [...this.rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, timer]) => ({ ...timer }));
  }
}
