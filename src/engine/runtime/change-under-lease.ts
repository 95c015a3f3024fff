/**
 * @module The run loop's one step, the same for every change but creation and deletion: lease → load (and
 * the outbox rows a crash left behind) → decide (writes nothing, decision.ts) → index rows added → one
 * conditional save of the instance, its history entry and its outbox rows → stale index rows removed → log
 * lines emitted → lease released. A 412 (someone else saved first) reloads and decides again; the rows to
 * relay are returned for delivery after the lease is released (outbox-relay.ts).
 */
import { causeKey, type Cause, type Change } from '../decide/decision';
import { withoutSelfCausedCount } from '../decide/causal-budget';
import { oversizeFaultDecision } from '../decide/decide-fault';
import { withRunningCost } from '../operations/operation-cost';
import type { ResolvedEngineOptions } from './engine-options';
import { PreconditionFailedError, TooLargeError, ValidationError } from '../model/errors';
import type { WorkflowDefinition } from '../definition/definition';
import type { CapacityEntry, Instance, StoredInstance } from '../model/instance';
import { isStoredOutboxRow, type OutboxRow, type TriggerOutboxRow } from '../model/outbox';
import type { LeaseHandle, OperationOptions } from '../ports/ports';
import type { WorkflowVersionCache } from './workflow-version-cache';
import type { SearchIndexing } from '../search/search-indexing';
import type { StateCapacityRows } from '../admission/state-capacity';
import { leftCapacity, withReoffers } from '../admission/capacity-reoffers';
import type { AppliedDecision, ChangeOptions, Decide, InstanceRuntimePorts } from './change-types';
import { historyOf, withActor, withAppliedRows, withEvents, withLeftovers, withOperationId, withRequestActor } from './change-decoration';
import type { ChangeFollowUp } from './change-follow-up';
import type { IndexRows } from './index-rows';
import { CallRecorder, withHistoryRecord } from './history-recording';
import { TaskRows, decideTaskTimer, isTaskTimerTrigger, withTask } from '../tasks';

/**
 * The flow-control steps of a save that takes the instance out of a state with `capacity` (they live
 * with flow admission, instance-runtime.ts): the waiters that now fit, offered again by rows of the same
 * save, and the instance counted out once saved. Without `capacity` rows, neither is called.
 */
export interface CapacityLeaving {
  readonly capacity?: StateCapacityRows;
  reoffersOf(definition: WorkflowDefinition, stored: Instance, cause: Cause, left: CapacityEntry, otherPieces: number, options: OperationOptions): Promise<TriggerOutboxRow[]>;
  countOut(workflowId: string, left: CapacityEntry, instanceId: string, options: OperationOptions): Promise<void>;
}

export class ChangeUnderLease {
  constructor(
    private readonly ports: InstanceRuntimePorts,
    private readonly versions: WorkflowVersionCache,
    private readonly options: ResolvedEngineOptions,
    private readonly search: SearchIndexing,
    private readonly followUp: ChangeFollowUp,
    private readonly indexRows: IndexRows,
    private readonly leaving: CapacityLeaving,
  ) {}

  /**
   * The one run loop of every change: see the module comment. `causeOf` names what is being delivered
   * (it keys raised-trigger ids and the action-call journal). Lease and storage failures are thrown (a
   * retry is safe); a request the instance cannot take is thrown by `decide` (ConflictError, ...).
   */
  decideUnderLease(instanceId: string, causeOf: (stored: Instance) => Cause, decide: Decide, options: ChangeOptions = {}): Promise<AppliedDecision> {
    return this.ports.leases.withLease(
      instanceId,
      async (lease) => {
        for (let attempt = 1; attempt <= this.options.maxSaveAttempts; attempt++) {
          const stored = (attempt === 1 ? lease.carried : undefined) ?? (await this.ports.instances.get(instanceId, options)); // carried: the lease was never let go since it was saved
          // An instance being deleted is gone for every change but its deletion.
          if (!stored || stored.deleting) return { outbox: [] };
          const leftovers = await this.leftoversOf(stored, options);
          const { definition } = await this.versions.get(stored.workflowId, stored.workflowVersion, options);
          const cause = withRequestActor(causeOf(stored), options);
          const deliveryKey = `${instanceId}|${causeKey(cause)}`;
          const calls = new CallRecorder();
          // A task's escalation step is a timer no transition has: the task decides it (tasks/task-escalation.ts).
          const decided =
            cause.kind === 'trigger' && isTaskTimerTrigger(cause.trigger)
              ? await decideTaskTimer(definition, stored, cause.trigger, () => this.options.clock.now())
              : await decide(stored, { definition, effects: calls.effects(this.followUp.effects(deliveryKey, lease.signal)) });
          // Human tasks open and close with the state, whatever the change (tasks/open-task.ts), before its events are made.
          let decision = withEvents(
            definition,
            stored,
            cause,
            await withTask(definition, withActor(withOperationId(withHistoryRecord(decided, definition, cause, stored.context, calls.calls), options), cause), () => this.options.clock.now()),
          );
          // Anything but a trigger is a request from outside (recover, resume, migrate, ...): it ends the self-caused count.
          if (cause.kind !== 'trigger' && decision.change) decision = { ...decision, change: { ...decision.change, instance: withoutSelfCausedCount(decision.change.instance) } };
          if (!decision.change) {
            this.followUp.finish(deliveryKey, decision.logs);
            lease.carry?.(stored);
            return { decision, instance: stored, outbox: leftovers };
          }
          // Out of a state with `capacity`: the waiters that now fit are offered again by rows of this save.
          const left = this.leaving.capacity ? leftCapacity(stored, decision.change.instance) : undefined;
          if (left) {
            const change = decision.change;
            decision = { ...decision, change: withReoffers(change, left, await this.leaving.reoffersOf(definition, stored, cause, left, change.outbox.length, options)) };
          }
          let saved: StoredInstance | undefined;
          try {
            saved = await this.save(stored, withLeftovers(decision.change!, leftovers), lease, options);
          } catch (error) {
            if (!(error instanceof TooLargeError)) throw error;
            // Fault it for real, as it was, so the record is small and says what happened.
            decision = withEvents(
              definition,
              stored,
              cause,
              withHistoryRecord(oversizeFaultDecision(stored, cause, decision, error.message, this.options.clock.now()), definition, cause, stored.context, []),
            );
            saved = await this.save(stored, withLeftovers(decision.change!, leftovers), lease, options);
          }
          if (!saved) continue; // someone else wrote: reload and decide again
          if (left && leftCapacity(stored, saved)) await this.leaving.countOut(definition.id, left, instanceId, options);
          this.followUp.finish(deliveryKey, decision.logs, saved, stored);
          lease.carry?.(saved);
          return { decision, instance: saved, outbox: [...leftovers, ...decision.change!.outbox] };
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

  async prepareLease(instanceId: string, options: OperationOptions): Promise<void> {
    try {
      await this.ports.leases.prepare?.(instanceId, options);
    } catch (error) {
      this.options.logger.warn('Could not create the lease of a new instance; its first trigger will', { instanceId, error: String(error) });
    }
  }

  /** The inbox rows of human tasks, kept with every save (tasks/task-index.ts). */
  get taskRows(): TaskRows {
    return (this.taskRowsInstance ??= new TaskRows(this.ports.tasks, (message, properties) => this.options.logger.warn(message, properties)));
  }
  private taskRowsInstance?: TaskRows;

  /** Rows a crash (or a failed relay) left behind: looked for only when the instance lists some. */
  async leftoversOf(stored: StoredInstance, options: OperationOptions): Promise<OutboxRow[]> {
    if (!stored.outbox?.length) return [];
    if (this.followUp.relayedAt(stored)) return [];
    return this.ports.outbox.listOutbox(stored.id, options);
  }

  /**
   * New subjects into the index, the conditional save with its history entry and outbox rows, then
   * stale subjects out. Returns undefined when the ETag no longer matched (the caller reloads).
   */
  async save(stored: StoredInstance, change: Change, lease: LeaseHandle, options: OperationOptions): Promise<StoredInstance | undefined> {
    const next = change.instance;
    const before = new Set(stored.interests);
    const after = new Set(next.interests);
    const added = next.interests.filter((subject) => !before.has(subject));
    const removed = stored.interests.filter((subject) => !after.has(subject));
    if (added.length) await this.ports.interests.add(stored.id, added, options);
    await this.indexRows.indexTimers(stored, next, options);
    await this.taskRows.beforeSave(stored, next, options);
    const searched = await this.search.beforeSave(stored, next, options);
    lease.assertHeld();
    const { instance: rows, applied } = withAppliedRows(stored, searched, this.options.clock.now());
    const remembering = withRunningCost(stored, rows, this.options.costSoFar?.());
    let saved: StoredInstance;
    try {
      const write = { history: historyOf(change), outbox: change.outbox.filter(isStoredOutboxRow), ...(change.events ? { events: change.events } : {}), ...(applied.length ? { applied } : {}) };
      saved = await this.ports.instances.save(remembering, write, { ...options, ifMatch: stored.etag });
    } catch (error) {
      if (error instanceof PreconditionFailedError) return undefined;
      // Refused outright: the save did not happen, so the rows it alone would hold go (a fault is saved next).
      if (error instanceof TooLargeError || error instanceof ValidationError) await this.search.undoSave(stored, searched, options);
      throw error;
    }
    if (removed.length) await this.indexRows.removeInterests(stored.id, removed, options);
    await this.indexRows.unindexTimers(stored, next, options);
    await this.taskRows.afterSave(stored, saved, options);
    await this.search.afterSave(saved, options);
    return saved;
  }
}
