/**
 * @module The engine's reads of instances: one, a page, its history, its offers, candidates by subject.
 * None takes a lease. An instance being deleted is gone already (delete-instance: the mark is the
 * deletion's first step), so every read leaves it out.
 */
import type { TriggerOffer } from '../decide/offers';
import { NotFoundError } from '../model/errors';
import type { HistoryEntry, StoredInstance } from '../model/instance';
import { instanceAtEntry, type InstanceAtEntry } from '../model/history-rebuild';
import { onePage } from '../ports/paging';
import type { HistoryStore, InstanceQuery, InstanceStore, InterestIndex, OperationOptions, Page, PageOptions } from '../ports/ports';

export interface InstanceReadPorts {
  readonly instances: InstanceStore;
  readonly history: HistoryStore;
  readonly interests: InterestIndex;
}

export class InstanceReads {
  constructor(private readonly ports: InstanceReadPorts) {}

  async get(instanceId: string, options?: OperationOptions): Promise<StoredInstance> {
    const instance = await this.ports.instances.get(instanceId, options);
    if (!instance || instance.deleting) throw new NotFoundError(`Instance "${instanceId}" does not exist`);
    return instance;
  }

  /** Instances being deleted are left out, so a page may hold fewer than `maxPageSize`. */
  async list(query: InstanceQuery = {}, pageOptions?: PageOptions): Promise<Page<StoredInstance>> {
    const page = await onePage(this.ports.instances.query(query, pageOptions));
    return page.items.some((instance) => instance.deleting) ? { ...page, items: page.items.filter((instance) => !instance.deleting) } : page;
  }

  /** Oldest first. NotFoundError if the instance does not exist. */
  async history(instanceId: string, pageOptions?: PageOptions): Promise<Page<HistoryEntry>> {
    await this.get(instanceId, pageOptions);
    return onePage(this.ports.history.list(instanceId, pageOptions));
  }

  /**
   * The instance as it was after history entry `sequence` (time travel, model/history-rebuild.ts). The whole
   * history is read: the version it ran under is the one a later migration moved it from, if any.
   * NotFoundError for no such instance or entry; ValidationError when an entry on the way cannot be rebuilt.
   */
  async atEntry(instanceId: string, sequence: number, options?: OperationOptions): Promise<InstanceAtEntry & { readonly workflowVersion: number }> {
    const stored = await this.get(instanceId, options);
    const entries: HistoryEntry[] = [];
    for await (const entry of this.ports.history.list(instanceId, options)) entries.push(entry);
    const at = instanceAtEntry(instanceId, entries, sequence);
    const laterMigration = entries.find((entry) => entry.sequence > sequence && entry.fromVersion !== undefined);
    return { ...at, workflowVersion: at.workflowVersion ?? laterMigration?.fromVersion ?? stored.workflowVersion };
  }

  /** The triggers recently offered to the instance that changed nothing, newest first (offers.ts). NotFoundError if it does not exist. */
  async offers(instanceId: string, options: OperationOptions = {}): Promise<TriggerOffer[]> {
    await this.get(instanceId, options);
    return (await this.ports.instances.listOffers?.(instanceId, options)) ?? [];
  }

  /** Instance ids interested in any of the subjects (a superset: each is re-checked under its lease). */
  candidates(subjects: readonly string[], pageOptions?: PageOptions): Promise<Page<string>> {
    return onePage(this.ports.interests.findCandidates(subjects, pageOptions));
  }

  /**
   * Instances interested in `subject` (an instance id, an interest, a trigger name a transition answers)
   * that match `query` too. The interest index answers the page (its continuation token is the page's);
   * each candidate is then read, concurrently, and kept only if it still holds the interest: the index
   * is a superset of the truth (stale rows, instances being deleted). A page may hold fewer than
   * `maxPageSize` instances and still have a next one.
   */
  async bySubject(subject: string, query: InstanceQuery = {}, pageOptions?: PageOptions): Promise<Page<StoredInstance>> {
    const candidates = await this.candidates([subject], pageOptions);
    const loaded = await Promise.all(candidates.items.map((instanceId) => this.ports.instances.get(instanceId, pageOptions)));
    const items = loaded.filter(
      (instance): instance is StoredInstance =>
        instance !== undefined &&
        !instance.deleting &&
        instance.interests.includes(subject) &&
        (query.workflowId === undefined || instance.workflowId === query.workflowId) &&
        (query.stateId === undefined || instance.stateId === query.stateId) &&
        (query.status === undefined || instance.status === query.status) &&
        (query.parentId === undefined || instance.parent?.instanceId === query.parentId),
    );
    return { ...candidates, items };
  }
}
