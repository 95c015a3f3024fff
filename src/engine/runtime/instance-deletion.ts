/**
 * @module Deleting an instance, under its lease: the mark, then everything beside it (children, index rows,
 * search rows, due-timer rows, the lease blob, its rows), the instance row last; and finding an instance's
 * children (child-cascade.ts), which a deletion checks and takes with it.
 */
import { decideDelete } from '../decide/decide-delete';
import type { Decision } from '../decide/decision';
import { ConflictError, PreconditionFailedError } from '../model/errors';
import { isChildOf, runningChildStatuses } from '../decide/child-cascade';
import type { Instance, StoredInstance } from '../model/instance';
import type { InstanceStore, OperationOptions } from '../ports/ports';
import type { ResolvedEngineOptions } from './engine-options';
import type { WorkflowVersionCache } from './workflow-version-cache';
import type { SearchIndexing } from '../search/search-indexing';
import type { AppliedDecision, InstancePrecondition, InstanceRuntimePorts } from './change-types';
import { guarded, historyOf } from './change-decoration';
import type { ChangeFollowUp } from './change-follow-up';
import type { IndexRows } from './index-rows';
import type { CapacityLeaving, ChangeUnderLease } from './change-under-lease';

export class InstanceDeletion {
  constructor(
    private readonly ports: InstanceRuntimePorts,
    private readonly versions: WorkflowVersionCache,
    private readonly options: ResolvedEngineOptions,
    private readonly search: SearchIndexing,
    private readonly followUp: ChangeFollowUp,
    private readonly indexRows: IndexRows,
    private readonly loop: Pick<ChangeUnderLease, 'leftoversOf'>,
    private readonly leaving: CapacityLeaving,
  ) {}

  /**
   * Deletes the instance, under its lease: (1) the decision marks it `deleting` in one conditional save
   * (from then on it is gone for every reader), (2) its interest index rows are removed, (3) its lease
   * blob, (4) its rows, the instance row last. A crash anywhere leaves either the instance as it was or
   * one marked `deleting`, which nobody can reach, and a deletion run again (which finds the mark and
   * skips the decision) finishes. Rows a crash left undelivered are returned for the relay, as after
   * any change. Undefined decision: no such instance.
   *
   * Not through `decideUnderLease`: that loop treats an instance marked `deleting` as gone (so no other
   * change reaches it), while a deletion must find that mark and finish; and a deletion's work goes on
   * under the lease after its save (children, index rows, the lease blob, the rows), where the loop
   * releases the lease at the save. Its save is the same conditional save on the stored ETag.
   */
  async delete(instanceId: string, force: boolean, options: OperationOptions = {}, guard?: InstancePrecondition): Promise<AppliedDecision> {
    // Looked up first: taking the lease of an id that does not exist would create its lease blob.
    if (!(await this.ports.instances.get(instanceId, options))) return { outbox: [] };
    return this.ports.leases.withLease(
      instanceId,
      async (lease) => {
        for (let attempt = 1; attempt <= this.options.maxSaveAttempts; attempt++) {
          const stored = await this.ports.instances.get(instanceId, options);
          if (!stored) return { outbox: [] };
          const leftovers = await this.loop.leftoversOf(stored, options);
          let decision: Decision = { result: { instanceId, outcome: 'deleted', fromStateId: stored.stateId }, logs: [] };
          if (!stored.deleting) {
            const refused = guarded(stored, guard);
            if (refused) return { decision: refused, instance: stored, outbox: leftovers };
            decision = decideDelete(stored, force, this.options.clock.now());
            // A parent with running children is running too (child-cascade.ts).
            if (!force && (await this.childrenOf(stored, options)).some((child) => runningChildStatuses.has(child.status))) {
              throw new ConflictError(`Instance "${instanceId}" has running children: delete it with force=true (its children are deleted with it), or cancel it first`);
            }
            lease.assertHeld();
            try {
              await this.ports.instances.save(decision.change!.instance, { history: historyOf(decision.change!) }, { ...options, ifMatch: stored.etag });
            } catch (error) {
              if (error instanceof PreconditionFailedError) continue;
              throw error;
            }
          }
          // A failure from here on is thrown: the mark stays, and running the deletion again finishes it.
          // Room it held in a state with `capacity` is offered to the waiters by rows relayed with the leftovers
          // (its own rows are about to go, so they are not stored: a crash before the relay leaves them to the reconciliation).
          const left = stored.capacityEntry && this.leaving.capacity ? stored.capacityEntry : undefined;
          const definition = left ? (await this.versions.get(stored.workflowId, stored.workflowVersion, options)).definition : undefined;
          const reoffers = left && definition ? await this.leaving.reoffersOf(definition, stored, { kind: 'delete', sequence: stored.historyLength }, left, 0, options) : [];
          for (const child of await this.childrenOf(stored, options)) await this.delete(child.id, true, options);
          await this.ports.interests.remove(instanceId, stored.interests, options);
          await this.search.removeAll(stored, options);
          await this.indexRows.unindexTimers(stored, { ...stored, timers: [], debounces: [] }, options);
          await lease.discard();
          await this.ports.instances.purge(instanceId, options);
          this.followUp.forget(instanceId);
          if (left) await this.leaving.countOut(stored.workflowId, left, instanceId, options);
          return { decision, outbox: leftovers, ...(reoffers.length > 0 ? { released: reoffers } : {}) };
        }
        throw new PreconditionFailedError(`Instance "${instanceId}" kept changing; gave up after ${this.options.maxSaveAttempts} attempts`);
      },
      {
        leaseDurationInSeconds: this.options.leaseDurationInSeconds,
        maxWaitInMs: this.options.maxLeaseWaitInMs,
        ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
      },
    );
  }

  childrenOf(parent: Pick<Instance, 'id' | 'incarnation' | 'startedChildren'>, options: OperationOptions = {}): Promise<StoredInstance[]> {
    return childrenOf(this.ports.instances, parent, options);
  }
}

/** The children of this incarnation of `parent` (none looked up for an instance that never started one). */
export async function childrenOf(instances: Pick<InstanceStore, 'query'>, parent: Pick<Instance, 'id' | 'incarnation' | 'startedChildren'>, options: OperationOptions = {}): Promise<StoredInstance[]> {
  if (!parent.startedChildren) return [];
  const children: StoredInstance[] = [];
  for await (const child of instances.query({ parentId: parent.id }, { ...options, maxPageSize: 1000 })) {
    if (!child.deleting && isChildOf(child, parent)) children.push(child);
  }
  return children;
}
