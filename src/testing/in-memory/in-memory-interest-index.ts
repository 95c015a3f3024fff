/** @module InterestIndex in memory: subject → instance ids. */
import type { InterestIndex, OperationOptions, Page, PageOptions } from '../../engine/ports';
import { pageOf } from './paging';
import { pagedList, type PagedAsyncIterable } from '../../engine/ports';

export class InMemoryInterestIndex implements InterestIndex {
  private readonly bySubject = new Map<string, Set<string>>();
  /** Calls of add and remove with at least one subject. */
  writes = 0;

  async add(instanceId: string, subjects: readonly string[], _options?: OperationOptions): Promise<void> {
    if (subjects.length) this.writes++;
    for (const subject of subjects) {
      let ids = this.bySubject.get(subject);
      if (!ids) this.bySubject.set(subject, (ids = new Set()));
      ids.add(instanceId);
    }
  }

  async remove(instanceId: string, subjects: readonly string[], _options?: OperationOptions): Promise<void> {
    if (subjects.length) this.writes++;
    for (const subject of subjects) {
      const ids = this.bySubject.get(subject);
      ids?.delete(instanceId);
      if (ids?.size === 0) this.bySubject.delete(subject);
    }
  }

  findCandidates(subjects: readonly string[], options?: PageOptions): PagedAsyncIterable<string> {
    return pagedList((page) => this.findCandidatesPage(subjects, page), options);
  }

  private async findCandidatesPage(subjects: readonly string[], options?: PageOptions): Promise<Page<string>> {
    const ids = new Set<string>();
    for (const subject of subjects) for (const id of this.bySubject.get(subject) ?? []) ids.add(id);
    return pageOf([...ids].sort(), options);
  }

  /** Subjects indexed for an instance (tests). */
  subjectsOf(instanceId: string): string[] {
    return [...this.bySubject.entries()]
      .filter(([, ids]) => ids.has(instanceId))
      .map(([subject]) => subject)
      .sort();
  }
}
