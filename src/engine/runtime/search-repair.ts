/**
 * @module Keeping an instance's search rows (search/search-indexing.ts) true outside of a change: a
 * reindex writes them and records them on the instance, and a repair removes rows a search found that
 * their instance does not hold. Both work under the instance's lease, where no save of it is under way.
 */
import { PreconditionFailedError } from '../model/errors';
import type { OperationOptions } from '../ports/ports';
import type { ResolvedEngineOptions } from './engine-options';
import type { SearchIndexing } from '../search/search-indexing';
import type { SearchRow } from '../search/search-port';
import { APPLIED_LOOKUP_CLOCK_MARGIN_MS, type InstanceRuntimePorts } from './change-types';

export class SearchRepair {
  constructor(
    private readonly ports: Pick<InstanceRuntimePorts, 'instances' | 'leases'>,
    private readonly options: ResolvedEngineOptions,
    private readonly search: SearchIndexing,
  ) {}

  /**
   * Writes the instance's search rows and records them on it (a reindex), under its lease: no decision,
   * no history entry, and its ETag changes. False when the instance does not exist.
   */
  async reindex(instanceId: string, options: OperationOptions = {}): Promise<boolean> {
    if (!(await this.ports.instances.get(instanceId, options))) return false;
    return this.ports.leases.withLease(
      instanceId,
      async (lease) => {
        for (let attempt = 1; attempt <= this.options.maxSaveAttempts; attempt++) {
          const stored = await this.ports.instances.get(instanceId, options);
          if (!stored || stored.deleting) return false;
          const indexed = await this.search.beforeSave(stored, stored, options, true);
          lease.assertHeld();
          try {
            await this.ports.instances.save(indexed, {}, { ...options, ifMatch: stored.etag });
            return true;
          } catch (error) {
            if (!(error instanceof PreconditionFailedError)) throw error;
          }
        }
        throw new PreconditionFailedError(`Instance "${instanceId}" kept changing; gave up after ${this.options.maxSaveAttempts} attempts`);
      },
      { leaseDurationInSeconds: this.options.leaseDurationInSeconds, maxWaitInMs: this.options.maxLeaseWaitInMs, ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}) },
    );
  }

  /**
   * Removes search rows a search found not held by their instances (instance-search.ts): each instance is
   * read again under its lease, where no save of it can be under way, and only the rows it still does
   * not hold go. Rows of an id that does not exist are removed only once older than
   * APPLIED_LOOKUP_CLOCK_MARGIN_MS: a creation writes its rows before the instance, without a lease, and
   * each goes only if no one wrote it since it was read (a creation reusing the id rewrites it). A
   * busy lease or a failure leaves the rows for a later search (they are never an answer): never thrown.
   */
  async repairSearchRows(workflowId: string, rows: readonly SearchRow[], options: OperationOptions = {}): Promise<void> {
    const byInstance = new Map<string, SearchRow[]>();
    for (const row of rows) byInstance.set(row.instanceId, [...(byInstance.get(row.instanceId) ?? []), row]);
    for (const [instanceId, named] of byInstance) {
      try {
        const stored = await this.ports.instances.get(instanceId, options);
        if (stored?.deleting) continue;
        if (!stored) {
          const settledBefore = this.options.clock.now().getTime() - APPLIED_LOOKUP_CLOCK_MARGIN_MS;
          const settled = named.filter((row) => row.writtenAt !== undefined && Date.parse(row.writtenAt) < settledBefore);
          // Looked up again: a creation may have finished since.
          if (settled.length > 0) await this.search.removeNotHeldUnchanged(workflowId, instanceId, await this.ports.instances.get(instanceId, options), settled, options);
          continue;
        }
        await this.ports.leases.withLease(
          instanceId,
          async (lease) => {
            const current = await this.ports.instances.get(instanceId, options);
            lease.assertHeld();
            await this.search.removeNotHeld(workflowId, instanceId, current, named, options);
          },
          { leaseDurationInSeconds: this.options.leaseDurationInSeconds, maxWaitInMs: 0, ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}) },
        );
      } catch (error) {
        this.options.logger.warn('Could not repair search rows', { workflowId, instanceId, error: String(error) });
      }
    }
  }
}
