/**
 * @module Keeping an instance's search rows with every change, like its interest rows: before the save,
 * the rows of its new values are written and the rows an earlier save made stale are removed, in one
 * batch (one request however many indexes the workflow declares); the instance records which rows it
 * holds (`search.entries`) and which its values left behind (`search.stale`), so the next save removes
 * them. A save that ends the instance removes its stale rows right after (no later save will). The
 * index thus holds at least the truth, and queries check every row against the instance as read.
 *
 * An instance is indexed when its version declares `indexes` (an empty list indexes the built-in fields
 * only), or once it has been indexed (a reindex, or an earlier version): it stays indexed from then on.
 */
import type { WorkflowDefinition } from '../definition/definition';
import type { EngineLogger } from '../steps/effects';
import { InstanceStatus } from '../model/enums';
import type { Instance, InstanceSearchState } from '../model/instance';
import type { OperationOptions } from '../ports/ports';
import type { SearchIndexStore, SearchRow, WorkflowVersions } from './search-port';
import { entriesOf, searchValuesOf } from './search-values';

/**
 * A `flow.unique` key's claim goes through the business key claims under this prefix, so the two never
 * meet: a business key may not start with it (search-indexes.ts).
 */
export const UNIQUE_KEY_CLAIM_PREFIX = '\u0000unique\u0000';

/** The claim name of a `flow.unique` key. */
export function uniqueKeyClaim(uniqueKey: string): string {
  return `${UNIQUE_KEY_CLAIM_PREFIX}${uniqueKey}`;
}

/** Complete and cancelled instances hold no unique key: another may take it. */
export function holdsUniqueKey(instance: Pick<Instance, 'status' | 'deleting'>): boolean {
  return !instance.deleting && instance.status !== InstanceStatus.complete && instance.status !== InstanceStatus.cancelled;
}

export interface SearchIndexingOptions {
  readonly hmacKey?: string;
  readonly logger: EngineLogger;
  readonly now: () => Date;
}

/** Statuses after which no save follows (but a deletion's): their stale rows go right after their last save. */
function ended(instance: Instance): boolean {
  return instance.status === InstanceStatus.complete || instance.status === InstanceStatus.cancelled;
}

/**
 * The rows that the instance, as read, does not hold: it is gone, another workflow's, or the row's
 * entry is neither among its entries nor among the stale ones its next save removes (an ended instance
 * has no next save). A crash between a save's rows and the save leaves such rows, and so does a failed
 * removal. An instance being deleted holds none, but its deletion removes them: none are named.
 */
export function rowsNotHeld(rows: readonly SearchRow[], instance: Instance | undefined, workflowId: string): SearchRow[] {
  if (instance?.deleting) return [];
  if (!instance || instance.workflowId !== workflowId) return [...rows];
  const held = new Set([...(instance.search?.entries ?? []), ...(ended(instance) ? [] : (instance.search?.stale ?? []))]);
  return rows.filter((row) => !held.has(row.entry));
}

/** Whether instances of the version are indexed from their creation. */
export function declaresIndexes(definition: WorkflowDefinition): boolean {
  return definition.indexes !== undefined;
}

export class SearchIndexing {
  constructor(
    private readonly store: SearchIndexStore | undefined,
    private readonly versions: WorkflowVersions,
    private readonly options: SearchIndexingOptions,
  ) {}

  /**
   * `next` with its search state, its rows written first (with the removal of what `previous` left
   * stale): call right before saving it. `force` indexes an instance not indexed yet (a reindex).
   */
  async beforeSave(previous: Instance | undefined, next: Instance, options: OperationOptions = {}, force = false): Promise<Instance> {
    if (!this.store) return next;
    const { definition } = await this.versions.get(next.workflowId, next.workflowVersion, options);
    if (!force && !declaresIndexes(definition) && !previous?.search) return next;
    const values = await searchValuesOf(definition, next, { now: this.options.now });
    const { entries, problems } = await entriesOf(definition, values, { ...(this.options.hmacKey !== undefined ? { hmacKey: this.options.hmacKey } : {}) });
    const had = previous?.search?.entries ?? [];
    const holding = new Set(entries);
    const hadSet = new Set(had);
    const add = entries.filter((entry) => !hadSet.has(entry));
    const remove = (previous?.search?.stale ?? []).filter((entry) => !holding.has(entry));
    const stale = had.filter((entry) => !holding.has(entry));
    if (add.length > 0 || remove.length > 0) {
      await this.store.write(next.workflowId, next.id, { add, remove, ...(next.incarnation !== undefined ? { incarnation: next.incarnation } : {}) }, options);
    }
    const search: InstanceSearchState = { entries, ...(stale.length > 0 ? { stale } : {}), ...(Object.keys(problems).length > 0 ? { problems } : {}) };
    return { ...next, search };
  }

  /** After a save that ended the instance (complete, cancelled): its stale rows, at once. Failing is harmless (queries check). */
  async afterSave(saved: Instance, options: OperationOptions = {}): Promise<void> {
    await this.releaseEndedUniqueKey(saved, options);
    const stale = saved.search?.stale ?? [];
    if (!this.store || stale.length === 0) return;
    if (!ended(saved)) return;
    await this.removeQuietly(saved, stale, options);
  }

  /**
   * Rows of a save refused outright (too large, invalid), that `stored` does not hold: the save did not
   * happen, so they would only be left for a repair to find.
   */
  async undoSave(stored: Instance, refused: Instance, options: OperationOptions = {}): Promise<void> {
    if (!this.store || !refused.search || refused === stored) return;
    const orphans = rowsNotHeld(
      refused.search.entries.map((entry) => ({ entry, instanceId: refused.id })),
      stored,
      stored.workflowId,
    );
    if (orphans.length > 0)
      await this.removeQuietly(
        refused,
        orphans.map((row) => row.entry),
        options,
      );
  }

  /**
   * Removes the rows of `instance` that `rows` names and it does not hold: call under its lease, on
   * the instance as read there (no save of it can be under way).
   */
  async removeNotHeld(workflowId: string, instanceId: string, instance: Instance | undefined, rows: readonly SearchRow[], options: OperationOptions = {}): Promise<number> {
    if (!this.store) return 0;
    const orphans = rowsNotHeld(rows, instance, workflowId);
    if (orphans.length > 0) await this.store.write(workflowId, instanceId, { add: [], remove: [...new Set(orphans.map((row) => row.entry))] }, options);
    return orphans.length;
  }

  /**
   * As removeNotHeld, without the instance's lease (an id with no instance has none to take): a creation
   * with the id, or a save, may rewrite the same rows at any moment, so each row goes only if unchanged
   * since the search read it. Rows read without a version are left.
   */
  async removeNotHeldUnchanged(workflowId: string, instanceId: string, instance: Instance | undefined, rows: readonly SearchRow[], options: OperationOptions = {}): Promise<number> {
    if (!this.store) return 0;
    const orphans = rowsNotHeld(rows, instance, workflowId).flatMap(({ entry, etag }) => (etag !== undefined ? [{ entry, etag }] : []));
    if (orphans.length > 0) await this.store.removeUnchanged(workflowId, instanceId, orphans, options);
    return orphans.length;
  }

  /** Rows written for an instance whose creation was refused outright (too large, invalid). */
  async undoCreate(instance: Instance, options: OperationOptions = {}): Promise<void> {
    if (this.store && instance.search) await this.removeQuietly(instance, instance.search.entries, options);
  }

  /** Every row of an instance being deleted, and its business key claim. Thrown on failure: the deletion is repeated. */
  async removeAll(instance: Instance, options: OperationOptions = {}): Promise<void> {
    if (!this.store) return;
    const rows = [...(instance.search?.entries ?? []), ...(instance.search?.stale ?? [])];
    if (rows.length > 0) await this.store.write(instance.workflowId, instance.id, { add: [], remove: rows }, options);
    if (instance.businessKey !== undefined) await this.store.releaseBusinessKey(instance.workflowId, instance.businessKey, instance.id, options);
    if (instance.uniqueKey !== undefined) await this.store.releaseBusinessKey(instance.workflowId, uniqueKeyClaim(instance.uniqueKey), instance.id, options);
  }

  /**
   * An instance that ended frees its `flow.unique` key at once. Failing is harmless: a later claim finds
   * the holder ended (holdsUniqueKey) and takes the claim over.
   */
  private async releaseEndedUniqueKey(saved: Instance, options: OperationOptions): Promise<void> {
    if (!this.store || saved.uniqueKey === undefined || holdsUniqueKey(saved)) return;
    try {
      await this.store.releaseBusinessKey(saved.workflowId, uniqueKeyClaim(saved.uniqueKey), saved.id, options);
    } catch (error) {
      this.options.logger.warn('Could not release the unique key of an ended instance', { instanceId: saved.id, error: String(error) });
    }
  }

  private async removeQuietly(instance: Instance, rows: readonly string[], options: OperationOptions): Promise<void> {
    try {
      await this.store!.write(instance.workflowId, instance.id, { add: [], remove: rows }, options);
    } catch (error) {
      this.options.logger.warn('Could not remove stale search rows', { instanceId: instance.id, error: String(error) });
    }
  }
}
