/**
 * @module The instance runtime: every change to an instance goes through one loop, `decideUnderLease`:
 * lease → load (and the outbox rows a crash left behind) → decide (writes nothing, decision.ts) → index rows added
 * → one conditional save of the instance, its history entry and its outbox rows → stale index rows
 * removed → log lines emitted → lease released. A 412 (someone else saved first) reloads and decides
 * again; the rows to relay are returned for delivery after the lease is released (outbox-relay.ts).
 * Creation has no lease (the id is new): `create` runs the same steps with a create instead of a save.
 */
import type { WorkflowDefinition, WorkflowVersion } from '../definition/definition';
import { ActionCallJournal } from './action-call-journal';
import { actorOfCause, causeKey, unchanged, withEntryActor, type Cause, type Change, type Decision, type LogLine } from '../decide/decision';
import { decideCancel } from '../decide/decide-cancel';
import { creationCause, decideCreate, type NewInstance } from '../decide/decide-create';
import { withoutSelfCausedCount } from '../decide/causal-budget';
import { oversizeFaultDecision } from '../decide/decide-fault';
import { decideRecover, type RecoveryRepair } from '../decide/decide-recover';
import { decideDelete } from '../decide/decide-delete';
import { decideMigrate, migrationVerdict } from '../decide/decide-migrate';
import { decideResume, decideSuspend } from '../decide/decide-suspend';
import { decideTrigger } from '../decide/decide-trigger';
import { faultRetryDecision, faultRetryRefusal, faultRetryStart } from '../decide/decide-fault-retry';
import type { WorkflowDefinition as TargetDefinition } from '../definition/definition';
import type { InstanceResult } from '../operations/operation';
import { withRunningCost } from '../operations/operation-cost';
import type { MigrationRequest } from '../decide/operation-work';
import { dryRunTrigger, type DryRunResult } from '../decide/dry-run';
import type { Effects } from '../steps/effects';
import { withLifecycleEvents } from '../decide/lifecycle-events';
import type { ResolvedEngineOptions } from './engine-options';
import { BoundedMap } from '../model/bounded-map';
import { ActionOutcome, InstanceStatus, TriggerOutcome, inactiveStatuses } from '../model/enums';
import { CapacityFullError, ConflictError, PreconditionFailedError, TooLargeError, ValidationError } from '../model/errors';
import { applyMergePatch } from '../model/merge-patch';
import { isChildOf, markParent, runningChildStatuses } from '../decide/child-cascade';
import type { AppliedTrigger, CapacityEntry, HistoryEntry, Instance, StoredInstance } from '../model/instance';
import { duplicateResult } from '../decide/instance-changes';
import { MAX_OUTBOX_ROWS_PER_CHANGE, isStoredOutboxRow, type OutboxRow, type TriggerOutboxRow } from '../model/outbox';
import type { DueTimerIndex, InstanceStore, InterestIndex, LeaseHandle, LeaseProvider, OperationOptions, OutboxStore } from '../ports/ports';
import { newlyArmed, noLongerArmed } from '../decide/timers';
import { offerOf } from '../decide/offers';
import { newIncarnation } from '../model/trigger-ids';
import { reofferedTrigger, type Trigger } from '../model/trigger';
import type { WorkflowVersionCache } from './workflow-version-cache';
import { systemActor, type Actor } from '../model/actor';
import { SearchIndexing } from '../search/search-indexing';
import type { SearchIndexStore, SearchRow } from '../search/search-port';
import type { FlowStore } from '../ports/flow-store';
import { ConcurrencySlots, type HeldSlot } from './concurrency-slots';
import { admitTrigger, withAdmissionTrace } from './flow-admission';
import { StateCapacityRows, type CapacityOffer } from './state-capacity';
import { CapacityForecast, CapacityGate } from './capacity-admission';
import { decideCapacityWaitEnd } from './capacity-waits';
import { leftCapacity, reofferRows, withReoffers } from './capacity-reoffers';

export interface InstanceRuntimePorts {
  readonly instances: InstanceStore;
  readonly outbox: OutboxStore;
  readonly interests: InterestIndex;
  readonly leases: LeaseProvider;
  /** Where a host that schedules timers from storage finds them (the local server); absent elsewhere. */
  readonly dueTimers?: DueTimerIndex;
  /** The search index (search/search-port.ts); absent: instances are not indexed for search. */
  readonly search?: SearchIndexStore;
  /** Flow-control rows (concurrency slots); absent: `flow.concurrency` policies are not enforced. */
  readonly flow?: FlowStore;
}

/** What a decision needs besides the instance: its definition and the effects it may use. */
export interface DecideContext {
  readonly definition: WorkflowDefinition;
  readonly effects: Effects;
}

export type Decide = (stored: StoredInstance, context: DecideContext) => Promise<Decision>;

/** How a trigger is applied: `offeredSince` lets the runtime skip looking up records the instance let go. */
export interface ApplyTriggerOptions extends OperationOptions {
  /**
   * When the trigger's operation was recorded (ISO 8601): the trigger cannot have been applied before.
   * Absent (a trigger delivered in-process, without an operation): any time.
   */
  readonly offeredSince?: string;
  /**
   * The longest to wait in place (holding the caller's worker) for a concurrency slot, when shorter than the
   * policy's `maxWait`; 0 hands the trigger back at once (FlowQueuedError naming its queue) for the caller to
   * park it outside its workers (the local runner). @default the policy's maxWait
   */
  readonly maxSlotWaitInMs?: number;
}

/**
 * Clocks of different workers may disagree: a trigger offered less than this long after the instance let
 * an applied record go is still looked up among the rows kept beside it.
 */
export const APPLIED_LOOKUP_CLOCK_MARGIN_MS = 5 * 60_000;

/** The outcome of one run of the loop. */
export interface AppliedDecision {
  /** Undefined when the instance does not exist. */
  readonly decision?: Decision;
  /** The instance as saved, or as loaded when nothing changed; undefined when it does not exist. */
  readonly instance?: StoredInstance;
  /** Rows to relay now that the lease is released: those this change wrote and leftovers found on load. */
  readonly outbox: readonly OutboxRow[];
  /** Triggers waiting for room in a full state (`capacity`) that now fit: offer them again. */
  readonly capacityOffers?: readonly CapacityOffer[];
  /** A deletion's re-offers of the room the instance held (capacity-reoffers.ts): relayed though the instance is gone. */
  readonly released?: readonly OutboxRow[];
}

export class InstanceRuntime {
  private readonly journal = new ActionCallJournal();
  /** Instances whose outbox this process relayed completely, with the ETag they then had (saves no query on the next load). */
  private readonly relayed = new BoundedMap<string, string>(10_000);
  private readonly search: SearchIndexing;
  /** The concurrency slots of workflows with a `flow.concurrency` policy (absent without a flow store). */
  readonly slots?: ConcurrencySlots;
  /** The rows of states with `capacity` (absent without a flow store). */
  readonly capacity?: StateCapacityRows;

  constructor(
    private readonly ports: InstanceRuntimePorts,
    private readonly versions: WorkflowVersionCache,
    private readonly options: ResolvedEngineOptions,
  ) {
    this.search = new SearchIndexing(ports.search, versions, { logger: options.logger, now: () => options.clock.now(), ...(options.searchHmacKey ? { hmacKey: options.searchHmacKey } : {}) });
    if (ports.flow) {
      this.slots = new ConcurrencySlots(ports.flow, {
        now: () => options.clock.now(),
        newId: options.newId,
        ...(options.flowSlotTtlInMs !== undefined ? { slotTtlInMs: options.flowSlotTtlInMs } : {}),
        warn: (message, properties) => options.logger.warn(message, properties),
      });
      this.capacity = new StateCapacityRows(ports.flow, ports.instances, () => options.clock.now(), options.leaseDurationInSeconds * 1000);
    }
  }

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
          const stored = await this.ports.instances.get(instanceId, options);
          // An instance being deleted is gone for every change but its deletion.
          if (!stored || stored.deleting) return { outbox: [] };
          const leftovers = await this.leftoversOf(stored, options);
          const { definition } = await this.versions.get(stored.workflowId, stored.workflowVersion, options);
          const cause = withRequestActor(causeOf(stored), options);
          const deliveryKey = `${instanceId}|${causeKey(cause)}`;
          let decision = withEvents(definition, stored, cause, withActor(withOperationId(await decide(stored, { definition, effects: this.effects(deliveryKey, lease.signal) }), options), cause));
          // Anything but a trigger is a request from outside (recover, resume, migrate, ...): it ends the self-caused count.
          if (cause.kind !== 'trigger' && decision.change) decision = { ...decision, change: { ...decision.change, instance: withoutSelfCausedCount(decision.change.instance) } };
          if (!decision.change) {
            this.finish(deliveryKey, decision.logs);
            return { decision, instance: stored, outbox: leftovers };
          }
          // Out of a state with `capacity`: the waiters that now fit are offered again by rows of this save.
          const left = this.capacity ? leftCapacity(stored, decision.change.instance) : undefined;
          if (left) {
            const change = decision.change;
            decision = { ...decision, change: withReoffers(change, left, await this.reoffersOf(definition, stored, cause, left, change.outbox.length, options)) };
          }
          let saved: StoredInstance | undefined;
          try {
            saved = await this.save(stored, withLeftovers(decision.change!, leftovers), lease, options);
          } catch (error) {
            if (!(error instanceof TooLargeError)) throw error;
            // Fault it for real, as it was, so the record is small and says what happened.
            decision = withEvents(definition, stored, cause, oversizeFaultDecision(stored, cause, decision, error.message, this.options.clock.now()));
            saved = await this.save(stored, withLeftovers(decision.change!, leftovers), lease, options);
          }
          if (!saved) continue; // someone else wrote: reload and decide again
          if (left && leftCapacity(stored, saved)) await this.countOut(definition.id, left, instanceId, options);
          this.finish(deliveryKey, decision.logs, saved, stored);
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

  applyTrigger(instanceId: string, trigger: Trigger, options: ApplyTriggerOptions = {}): Promise<AppliedDecision> {
    return this.applyUnderLease(instanceId, trigger, options);
  }

  /**
   * Retries the instance's fault (decide-fault-retry.ts): its faulted trigger applied again, under its own
   * id, to the instance as that trigger found it, through the same steps as any trigger's application
   * (flow control, capacity, the run loop). ConflictError, naming why, when the fault cannot be retried
   * (checked again under the lease); `guard` may answer instead (a bulk retry's filter). Undefined
   * decision: no such instance.
   */
  async retryFault(instanceId: string, options: ChangeOptions = {}, guard?: InstancePrecondition): Promise<AppliedDecision> {
    const stored = await this.ports.instances.get(instanceId, options);
    if (!stored || stored.deleting) return { outbox: [] };
    const refused = guarded(stored, guard);
    if (refused) return { decision: refused, instance: stored, outbox: [] };
    const { definition } = await this.versions.get(stored.workflowId, stored.workflowVersion, options);
    const refusal = faultRetryRefusal(definition, stored);
    if (refusal) throw new ConflictError(refusal);
    const { operationId, actor, ...storeOptions } = options;
    // A notification addressed to this instance (a child's) was taken by it already: applied again as
    // itself, in its place, not queued behind what was held since (its incarnation is the one retried).
    const { recipient: _taken, ...faulted } = stored.faultedTrigger!.trigger;
    return this.applyUnderLease(instanceId, faulted, storeOptions, {
      ...(guard ? { guard } : {}),
      ...(actor ? { retriedBy: actor } : {}),
      ...(operationId !== undefined ? { operationId } : {}),
    });
  }

  /** A trigger's application (`retry`: as the retry of the fault it caused) under the lease, with its concurrency slot and capacity. */
  private async applyUnderLease(instanceId: string, trigger: Trigger, options: ApplyTriggerOptions, retry?: FaultRetryRequest): Promise<AppliedDecision> {
    const now = () => this.options.clock.now();
    const { offeredSince, maxSlotWaitInMs, ...storeOptions } = options;
    // A concurrency slot is taken once per delivery (a 412's second decision keeps it) and given back after the lease.
    let slot: HeldSlot | undefined;
    // Where a state with `capacity` counted this trigger in (kept over a second decision), and waiters to offer again.
    const gate = new CapacityGate(this.capacity, storeOptions, now);
    let workflowId: string | undefined;
    const decideApplication = async (stored: StoredInstance, definition: WorkflowDefinition, effects: Effects): Promise<Decision> => {
      const applied = withTimerActor(trigger, stored);
      workflowId = definition.id;
      // The instance's own record holds its newest applied triggers; older ones are rows beside it (a
      // retried trigger was recorded `faulted` in the list itself).
      const forgotten = !retry && mayHaveForgotten(stored, trigger.id, offeredSince) ? await this.ports.instances.getApplied(instanceId, trigger.id, storeOptions) : undefined;
      if (forgotten) return { result: duplicateResult(instanceId, forgotten), logs: [] };
      // No slot for a trigger that cannot be applied now (a suspended, faulted or ended instance holds or refuses it).
      const admission =
        slot || wasApplied(stored, trigger.id) || inactiveStatuses.has(stored.status) ? undefined : await admitTrigger(this.slots, definition, stored, applied, storeOptions, now, maxSlotWaitInMs);
      slot ??= admission?.slot;
      // A wait for room that reached its deadline (capacity-waits.ts): recorded as the waiting trigger's offer.
      if (applied.capacityWait) {
        const ended = await decideCapacityWaitEnd(this.capacity, definition, stored, { ...applied, capacityWait: applied.capacityWait }, now(), storeOptions);
        if (ended.waiting) await this.recordOffer(instanceId, ended.waiting, ended.decision, storeOptions);
        return ended.decision;
      }
      const gated: Effects = gate.withAutomaticEntry({ ...effects, beforeEntering: (toStateId, entering) => gate.beforeEntering(definition, stored, toStateId, entering) }, definition, stored);
      const decision = gate.decided(withAdmissionTrace(await decideTrigger(definition, stored, applied, gated, this.options.registry), admission), stored, now());
      // Still under the lease: an offer that changed nothing (or only keeps a wait for room) is remembered beside the instance (offers.ts).
      // A re-offer is recorded as its waiting trigger's offer (it replaces the queued one). A retry always changes the instance.
      if (!retry && (!decision.change || decision.result.outcome === TriggerOutcome.capacityQueued)) {
        await this.recordOffer(instanceId, trigger.capacityReoffer ? reofferedTrigger({ ...trigger, capacityReoffer: trigger.capacityReoffer }) : trigger, decision, storeOptions);
      }
      return decision;
    };
    try {
      const decided = await this.decideUnderLease(
        instanceId,
        (stored) => ({ kind: 'trigger', trigger: withTimerActor(trigger, stored) }),
        async (loaded, { definition, effects }) => {
          if (!retry) return decideApplication(loaded, definition, effects);
          // A retry decides the faulted trigger on the instance as the trigger found it; the save is on the loaded ETag.
          const refused = guarded(loaded, retry.guard);
          if (refused) return refused;
          const start = faultRetryStart(definition, loaded, trigger.id);
          const decision = await decideApplication({ ...start.restored, etag: loaded.etag }, definition, effects);
          return faultRetryDecision(decision, {
            faultedInstance: loaded,
            restored: start.restored,
            faulted: start.faulted,
            now: now(),
            ...(retry.retriedBy ? { retriedBy: retry.retriedBy } : {}),
            ...(retry.operationId !== undefined ? { operationId: retry.operationId } : {}),
          });
        },
        storeOptions,
      );
      await this.settleCapacity(gate, workflowId, instanceId, trigger, decided, storeOptions);
      return gate.offers.length > 0 ? { ...decided, capacityOffers: gate.offers } : decided;
    } finally {
      if (slot) await this.slots!.release(slot);
    }
  }

  /**
   * After a trigger's application: a place taken but not used is given back, and a re-offered waiter that
   * went elsewhere or nowhere leaves its queue (admitted and timed-out ones left it themselves; one still
   * queued, or held by an instance that cannot take it now, stays). Failures are left to the reconciliation.
   */
  private async settleCapacity(gate: CapacityGate, workflowId: string | undefined, instanceId: string, trigger: Trigger, decided: AppliedDecision, options: OperationOptions): Promise<void> {
    try {
      if (workflowId !== undefined) await gate.giveBackUnused(workflowId, instanceId, decided.instance);
      const reoffer = trigger.capacityReoffer;
      const outcome = decided.decision?.result.outcome;
      // Admitted (counted in where it waited) or timed out, it left the queue itself.
      const leftQueue = outcome === TriggerOutcome.capacityTimeout || (reoffer !== undefined && gate.admittedTo(reoffer.stateId, reoffer.key));
      // Not active: held while suspended or faulted, but an ended instance never takes it.
      const ended = decided.instance?.status === InstanceStatus.complete || decided.instance?.status === InstanceStatus.cancelled;
      if (reoffer && this.capacity && !leftQueue && outcome !== TriggerOutcome.capacityQueued && (outcome !== TriggerOutcome.notActive || ended)) {
        await this.capacity.forget({ workflowId: reoffer.workflowId, stateId: reoffer.stateId, key: reoffer.key, waiter: { id: reoffer.trigger.id } }, options);
      }
    } catch (error) {
      this.options.logger.warn('Could not settle a place in a state with capacity; the next full check reconciles it', { instanceId, error: String(error) });
    }
  }

  /**
   * The rows offering again the waiters that fit once `stored` leaves `left` (capacity-reoffers.ts), within
   * the change's outbox bound. A failed read offers none: the waiters stay queued for the next change.
   */
  private async reoffersOf(definition: WorkflowDefinition, stored: Instance, cause: Cause, left: CapacityEntry, otherPieces: number, options: OperationOptions): Promise<TriggerOutboxRow[]> {
    const limit = definition.states[left.stateId]?.capacity?.limit;
    if (limit === undefined || !this.capacity) return [];
    try {
      const offers = await this.capacity.reoffersOnLeaving(definition.id, left.stateId, left.key, limit, stored.id, options);
      const rows = reofferRows(stored, cause, offers, otherPieces).slice(0, Math.max(0, MAX_OUTBOX_ROWS_PER_CHANGE - otherPieces));
      if (rows.length < offers.length) {
        this.options.logger.warn('Waiters for room in a state were not offered again by this change (causal depth or outbox bound); they stay queued', {
          instanceId: stored.id,
          stateId: left.stateId,
          waiting: offers.length,
          offered: rows.length,
        });
      }
      return rows;
    } catch (error) {
      this.options.logger.warn('Could not read the waiters of a state with capacity; they stay queued for the next change', { instanceId: stored.id, stateId: left.stateId, error: String(error) });
      return [];
    }
  }

  /** The saved instance no longer counts where it was (a failure is left to the next reconciliation, which reads the instance). */
  private async countOut(workflowId: string, left: CapacityEntry, instanceId: string, options: OperationOptions): Promise<void> {
    try {
      await this.capacity!.leave(workflowId, left.stateId, left.key, instanceId, options);
    } catch (error) {
      this.options.logger.warn('Could not count an instance out of a state with capacity; the next full check reconciles it', { instanceId, stateId: left.stateId, error: String(error) });
    }
  }

  /** Bookkeeping only: a failure to record is logged, never the trigger's failure. */
  private async recordOffer(instanceId: string, trigger: Trigger, decision: Decision, options: OperationOptions = {}): Promise<void> {
    const offer = this.ports.instances.recordOffer ? offerOf(trigger, decision.result, this.options.clock.now()) : undefined;
    if (!offer) return;
    try {
      await this.ports.instances.recordOffer!(instanceId, offer, options);
    } catch (error) {
      this.options.logger.warn('Could not record a trigger offered to an instance', { instanceId, triggerId: trigger.id, error: String(error) });
    }
  }

  /**
   * What `trigger` would do to the instance: the same decision as applyTrigger, on the instance as it is
   * now, with no lease and nothing saved or relayed (dry-run.ts). Undefined when the instance does not exist.
   */
  async dryRun(instanceId: string, trigger: Trigger, options: OperationOptions = {}): Promise<DryRunResult | undefined> {
    const stored = await this.ports.instances.get(instanceId, options);
    if (!stored || stored.deleting) return undefined;
    const { definition } = await this.versions.get(stored.workflowId, stored.workflowVersion, options);
    return dryRunTrigger(definition, stored, trigger, this.effects(`${instanceId}|dry-run`, options.abortSignal), this.options.registry);
  }

  async recover(instanceId: string, stateId: string, options: ChangeOptions = {}, guard?: InstancePrecondition, repair?: RecoveryRepair): Promise<AppliedDecision> {
    // Into a full state with `capacity`: refused (CapacityFullError), nothing saved; admitted, counted there.
    const gate = new CapacityGate(this.capacity, options, () => this.options.clock.now());
    const decided = await this.decideUnderLease(
      instanceId,
      (stored) => ({ kind: 'recover', sequence: stored.historyLength }),
      async (stored, { definition, effects }) => {
        const refused = guarded(stored, guard);
        if (refused) return refused;
        // Only once decideRecover would take it (faulted, a known state): its own refusals come first.
        if (stored.status === InstanceStatus.faulted && Object.hasOwn(definition.states, stateId)) {
          const context = repair?.contextPatch ? applyMergePatch(stored.context, repair.contextPatch) : stored.context;
          const full = await gate.admitNow(definition, { ...stored, context }, stateId);
          if (full) throw new CapacityFullError(full.refused, full.stateId, full.key);
        }
        return withCapacityCounted(gate, await decideRecover(definition, stored, stateId, gate.withAutomaticEntry(effects, definition, stored), this.options.registry, repair));
      },
      options,
    );
    return this.giveBackUnusedPlace(gate, decided.instance?.workflowId, instanceId, decided);
  }

  cancel(instanceId: string, options?: ChangeOptions, guard?: InstancePrecondition): Promise<AppliedDecision> {
    return this.decideUnderLease(
      instanceId,
      (stored) => ({ kind: 'cancel', sequence: stored.historyLength }),
      async (stored) => guarded(stored, guard) ?? decideCancel(stored, this.options.clock.now()),
      options,
    );
  }

  /** A forecast of the refusals of full states (`capacity`) for a migration's dry run; undefined without a flow store. */
  capacityForecast(options: OperationOptions = {}): CapacityForecast | undefined {
    return this.capacity ? new CapacityForecast(this.capacity, () => this.options.clock.now(), options) : undefined;
  }

  /** Moves the instance to `request.toVersion` (`target` is that version's definition): a relabel, no actions run. */
  async migrate(instanceId: string, request: MigrationRequest, target: TargetDefinition, options: ChangeOptions = {}): Promise<AppliedDecision> {
    // Into a full state with `capacity`: this instance stays where it is (`notMigratable`, saying why); the operation goes on.
    const gate = new CapacityGate(this.capacity, options, () => this.options.clock.now());
    const decided = await this.decideUnderLease(
      instanceId,
      (stored) => ({ kind: 'migrate', sequence: stored.historyLength }),
      async (stored, { effects }) => {
        const verdict = migrationVerdict(request, target, stored);
        const full = verdict.move ? await gate.admitNow(target, stored, verdict.toStateId) : undefined;
        if (full) return unchanged({ instanceId: stored.id, outcome: ActionOutcome.notMigratable, fromStateId: stored.stateId, error: full.refused });
        return withCapacityCounted(gate, await decideMigrate(request, target, stored, gate.withAutomaticEntry(effects, target, stored), this.options.registry));
      },
      options,
    );
    return this.giveBackUnusedPlace(gate, target.id, instanceId, decided);
  }

  /**
   * A place counted in for a change from outside that the saved instance does not use (it failed, or moved
   * on): given back, the decision carrying the offers to the waiters that fit now.
   */
  private async giveBackUnusedPlace<Decided extends AppliedDecision>(gate: CapacityGate, workflowId: string | undefined, instanceId: string, decided: Decided): Promise<Decided> {
    if (gate.places().length === 0 || workflowId === undefined) return decided;
    try {
      await gate.giveBackUnused(workflowId, instanceId, decided.instance);
    } catch (error) {
      this.options.logger.warn('Could not give back a place in a state with capacity; the next full check reconciles it', { instanceId, error: String(error) });
    }
    return gate.offers.length > 0 ? { ...decided, capacityOffers: gate.offers } : decided;
  }

  /** `guard` (optional) may answer instead of deciding, e.g. `skipped` for an instance a bulk filter no longer matches. */
  suspend(instanceId: string, options?: ChangeOptions, guard?: InstancePrecondition): Promise<AppliedDecision> {
    return this.decideUnderLease(
      instanceId,
      (stored) => ({ kind: 'suspend', sequence: stored.historyLength }),
      async (stored) => guarded(stored, guard) ?? decideSuspend(stored, this.options.clock.now()),
      options,
    );
  }

  resume(instanceId: string, options?: ChangeOptions, guard?: InstancePrecondition): Promise<AppliedDecision> {
    return this.decideUnderLease(
      instanceId,
      (stored) => ({ kind: 'resume', sequence: stored.historyLength }),
      async (stored) => guarded(stored, guard) ?? decideResume(stored, this.options.clock.now()),
      options,
    );
  }

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
          const leftovers = await this.leftoversOf(stored, options);
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
          const left = stored.capacityEntry && this.capacity ? stored.capacityEntry : undefined;
          const definition = left ? (await this.versions.get(stored.workflowId, stored.workflowVersion, options)).definition : undefined;
          const reoffers = left && definition ? await this.reoffersOf(definition, stored, { kind: 'delete', sequence: stored.historyLength }, left, 0, options) : [];
          for (const child of await this.childrenOf(stored, options)) await this.delete(child.id, true, options);
          await this.ports.interests.remove(instanceId, stored.interests, options);
          await this.search.removeAll(stored, options);
          await this.unindexTimers(stored, { ...stored, timers: [], debounces: [] }, options);
          await lease.discard();
          await this.ports.instances.purge(instanceId, options);
          this.relayed.delete(instanceId);
          if (left) await this.countOut(stored.workflowId, left, instanceId, options);
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

  /**
   * Creates an instance of `workflow`: ConflictError for an id that exists. No lease: nothing else can
   * save an instance that does not exist yet, and the create itself refuses a second one. So not through
   * `decideUnderLease`, which leases, loads a stored instance and saves on its ETag: here there is none to
   * load, and the store's create (insert, 409 on an existing id) is the condition.
   */
  async create(workflow: WorkflowVersion, input: NewInstance, options: OperationOptions = {}): Promise<AppliedDecision & { instance: StoredInstance; decision: Decision }> {
    const existing = await this.ports.instances.get(input.instanceId, options);
    // One marked `deleting` is gone for every reader (a deletion stopped by a crash after its mark): the
    // deletion is finished first, its leftover rows relayed with the creation's, so the id is free as it reads.
    const leftovers = existing?.deleting ? (await this.delete(input.instanceId, true, options)).outbox : [];
    if (existing && !existing.deleting) throw new ConflictError(`Instance "${input.instanceId}" exists`);
    // Into a full state with `capacity`: refused before anything is written; admitted, counted there.
    const gate = new CapacityGate(this.capacity, options, () => this.options.clock.now());
    const initialStateId = workflow.definition.initialStateId;
    const full = await gate.admitNow(
      workflow.definition,
      { id: input.instanceId, workflowId: workflow.definition.id, status: InstanceStatus.initializing, context: input.context, historyLength: 0 },
      initialStateId,
    );
    if (full) throw new CapacityFullError(full.refused, full.stateId, full.key);
    const cause = creationCause(input);
    const deliveryKey = `${input.instanceId}|${causeKey(cause)}`;
    // A new incarnation: every id derived from this instance differs from those of any earlier one with its id.
    const incarnated: NewInstance = input.incarnation !== undefined ? input : { ...input, incarnation: newIncarnation() };
    const decision = withCapacityCounted(
      gate,
      withEvents(
        workflow.definition,
        undefined,
        cause,
        withActor(
          await decideCreate(
            workflow,
            incarnated,
            gate.withAutomaticEntry(this.effects(deliveryKey, options.abortSignal), workflow.definition, {
              id: input.instanceId,
              workflowId: workflow.definition.id,
              ...(incarnated.incarnation !== undefined ? { incarnation: incarnated.incarnation } : {}),
              historyLength: 0,
            }),
            this.options.registry,
          ),
          cause,
        ),
      ),
    );
    const change = decision.change!;
    // The lease blob now, beside the index rows, rather than on the first trigger's path (a failed
    // acquire, a create, a second acquire). Only an optimisation: withLease creates a missing one itself.
    const preparing = this.prepareLease(input.instanceId, options);
    // Index rows first: the indexes may hold more than the truth, never less.
    let stored: StoredInstance;
    let creating = change.instance;
    try {
      await this.ports.interests.add(input.instanceId, change.instance.interests, options);
      await this.indexTimers(undefined, change.instance, options);
      creating = await this.search.beforeSave(undefined, change.instance, options);
      stored = await this.ports.instances.create(
        creating,
        {
          history: historyOf(change),
          outbox: change.outbox.filter(isStoredOutboxRow),
          ...(change.events ? { events: change.events } : {}),
          ...(input.claimTokens?.length ? { fences: input.claimTokens } : {}),
        },
        options,
      );
    } catch (error) {
      // Refused outright (too large, invalid): nothing was created, so its index rows must not stay. After a
      // conflict or a storage fault they stay: another writer's instance may own them, or the create may
      // have happened after all (the index is a superset of the truth).
      if (error instanceof TooLargeError || error instanceof ValidationError) {
        await this.removeInterests(input.instanceId, change.instance.interests, options);
        await this.search.undoCreate(creating, options);
        // No waiter is offered here: the creation failed, and the next change of the key offers them.
        await this.giveBackUnusedPlace(gate, workflow.definition.id, input.instanceId, { outbox: [] });
      }
      throw error;
    } finally {
      await preparing;
    }
    this.finish(deliveryKey, decision.logs, stored);
    return this.giveBackUnusedPlace(gate, workflow.definition.id, input.instanceId, { decision, instance: stored, outbox: [...leftovers, ...change.outbox] });
  }

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

  /** The children of this incarnation of `parent` (none looked up for an instance that never started one). */
  async childrenOf(parent: Pick<Instance, 'id' | 'incarnation' | 'startedChildren'>, options: OperationOptions = {}): Promise<StoredInstance[]> {
    if (!parent.startedChildren) return [];
    const children: StoredInstance[] = [];
    for await (const child of this.ports.instances.query({ parentId: parent.id }, { ...options, maxPageSize: 1000 })) {
      if (!child.deleting && isChildOf(child, parent)) children.push(child);
    }
    return children;
  }

  private async prepareLease(instanceId: string, options: OperationOptions): Promise<void> {
    try {
      await this.ports.leases.prepare?.(instanceId, options);
    } catch (error) {
      this.options.logger.warn('Could not create the lease of a new instance; its first trigger will', { instanceId, error: String(error) });
    }
  }

  /** Called after the relay delivered every row of `decided`: the next load need not look for leftovers. */
  relayedAll(decided: AppliedDecision): void {
    if (!decided.instance) return;
    this.relayed.set(decided.instance.id, decided.instance.etag);
  }

  private effects(deliveryKey: string, signal?: AbortSignal): Effects {
    const { clock, http } = this.options;
    return {
      now: () => clock.now(),
      http,
      actionHttp: (location) => this.journal.client(deliveryKey, location, http),
      ...(signal ? { signal } : {}),
    };
  }

  /**
   * The delivery is settled (saved, or nothing to save): emit its log lines once and drop its journal.
   * A fault this save recorded is logged at error, with the instance, workflow and reason, since an
   * operation's outcome is read by whoever sent it, and the operator reads the log.
   */
  private finish(deliveryKey: string, logs: readonly LogLine[], saved?: Instance, before?: Instance): void {
    this.journal.forget(deliveryKey);
    for (const line of logs) this.options.logger[line.level](line.message, { ...line.properties });
    const fault = saved?.status === InstanceStatus.faulted ? saved.fault : undefined;
    if (fault && (before?.fault?.at !== fault.at || before.fault.message !== fault.message)) {
      this.options.logger.error('An instance faulted', {
        instanceId: saved!.id,
        workflowId: saved!.workflowId,
        workflowVersion: saved!.workflowVersion,
        stateId: saved!.stateId,
        triggerId: fault.triggerId,
        reason: fault.message,
      });
    }
  }

  /** Rows a crash (or a failed relay) left behind: looked for only when the instance lists some. */
  private async leftoversOf(stored: StoredInstance, options: OperationOptions): Promise<OutboxRow[]> {
    if (!stored.outbox?.length) return [];
    if (this.relayed.get(stored.id) === stored.etag) return [];
    return this.ports.outbox.listOutbox(stored.id, options);
  }

  /**
   * New subjects into the index, the conditional save with its history entry and outbox rows, then
   * stale subjects out. Returns undefined when the ETag no longer matched (the caller reloads).
   */
  private async save(stored: StoredInstance, change: Change, lease: LeaseHandle, options: OperationOptions): Promise<StoredInstance | undefined> {
    const next = change.instance;
    const before = new Set(stored.interests);
    const after = new Set(next.interests);
    const added = next.interests.filter((subject) => !before.has(subject));
    const removed = stored.interests.filter((subject) => !after.has(subject));
    if (added.length) await this.ports.interests.add(stored.id, added, options);
    await this.indexTimers(stored, next, options);
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
    if (removed.length) await this.removeInterests(stored.id, removed, options);
    await this.unindexTimers(stored, next, options);
    await this.search.afterSave(saved, options);
    return saved;
  }

  /** Due-time rows for the timers `next` arms (before the save, like interest rows; never removed here). */
  private async indexTimers(previous: Instance | undefined, next: Instance, options: OperationOptions): Promise<void> {
    if (!this.ports.dueTimers) return;
    const armed = newlyArmed(previous, next);
    if (armed.length) await this.ports.dueTimers.add(armed, options);
  }

  /**
   * Right after the save, the due-time rows of timers it disarmed (the entry was left, the instance ended,
   * the timer was spent), so they do not fire later as useless operations. Failing is harmless: a stale
   * row fires a timer the instance answers `notInterested`.
   */
  private async unindexTimers(previous: Instance, next: Instance, options: OperationOptions): Promise<void> {
    if (!this.ports.dueTimers) return;
    const disarmed = noLongerArmed(previous, next);
    if (disarmed.length === 0) return;
    try {
      await this.ports.dueTimers.remove(disarmed, options);
    } catch (error) {
      this.options.logger.warn('Could not remove stale due-timer rows', { instanceId: next.id, error: String(error) });
    }
  }

  private async removeInterests(instanceId: string, subjects: readonly string[], options: OperationOptions): Promise<void> {
    try {
      await this.ports.interests.remove(instanceId, subjects, options);
    } catch (error) {
      // Harmless: a stale row only offers a trigger the instance will answer `notInterested`.
      this.options.logger.warn('Could not remove stale interest rows', { instanceId, error: String(error) });
    }
  }
}

/** The decision with its change's lifecycle events (records and outbox rows), written with it. */
function withEvents(definition: WorkflowDefinition, before: Instance | undefined, cause: Cause, decision: Decision): Decision {
  return decision.change ? { ...decision, change: withLifecycleEvents(definition, before, markParent(decision.change), cause) } : decision;
}

/** The decision with its instance counted where a change from outside was admitted into a state with `capacity`. */
function withCapacityCounted(gate: CapacityGate, decision: Decision): Decision {
  if (gate.places().length === 0 || !decision.change) return decision;
  return { ...decision, change: { ...decision.change, instance: gate.counted(decision.change.instance) } };
}

/** How a change is made: `operationId` names the migration or bulk action making it, recorded on its history entry; `actor` who asked. */
export interface ChangeOptions extends OperationOptions {
  readonly operationId?: string;
  /** Who asked for a change that is not a trigger's (a recovery, a cancellation, a migration, ...). */
  readonly actor?: Actor;
}

/** The cause with the requesting actor, for changes that are not a trigger's (a trigger carries its own). */
function withRequestActor(cause: Cause, options: ChangeOptions): Cause {
  return options.actor && cause.kind !== 'trigger' && !cause.actor ? { ...cause, actor: options.actor } : cause;
}

/** The decision, its history entries naming who made the change (when known). */
function withActor(decision: Decision, cause: Cause): Decision {
  return withEntryActor(decision, actorOfCause(cause));
}

/** A timer's trigger acts as `system`, caused by the actor of the change that armed the timer (ArmedTimer.armedBy). */
function withTimerActor(trigger: Trigger, stored: Instance): Trigger {
  if (!trigger.timer || trigger.actor) return trigger;
  const armedBy = stored.timers?.find((timer) => timer.transitionId === trigger.timer!.transitionId)?.armedBy;
  return armedBy ? { ...trigger, actor: systemActor(armedBy) } : trigger;
}

/** The decision, its history entry naming the operation when one makes it (a trigger's entry names it as `triggerId`). */
function withOperationId(decision: Decision, options: ChangeOptions): Decision {
  const entry = decision.change?.historyEntry;
  if (!options.operationId || !entry || entry.triggerId !== null) return decision;
  const preceding = decision.change!.precedingEntries?.map((earlier) => ({ ...earlier, operationId: options.operationId! }));
  return { ...decision, change: { ...decision.change!, historyEntry: { ...entry, operationId: options.operationId }, ...(preceding ? { precedingEntries: preceding } : {}) } };
}

/** What a retry of a fault carries besides its trigger: the bulk filter's guard, who asked, and its operation. */
interface FaultRetryRequest {
  readonly guard?: InstancePrecondition;
  readonly retriedBy?: Actor;
  readonly operationId?: string;
}

/** Answers for an instance instead of the decision (a bulk action's filter re-checked under the lease). */
export type InstancePrecondition = (stored: StoredInstance) => InstanceResult | undefined;

function guarded(stored: StoredInstance, guard: InstancePrecondition | undefined): Decision | undefined {
  const result = guard?.(stored);
  return result ? { result, logs: [] } : undefined;
}

/** The change, its instance still listing the leftover rows it will relay (so a second crash forgets none). */
function withLeftovers(change: Change, leftovers: readonly OutboxRow[]): Change {
  if (leftovers.length === 0) return change;
  const ids = [...new Set([...leftovers.map((row) => row.id), ...change.instance.outbox])];
  return { ...change, instance: { ...change.instance, outbox: ids } };
}

/**
 * The records this save's instance lets go of (its bounded `appliedTriggers` is full), each to be kept as a
 * row beside it for its whole life, and the instance stamped `appliedForgottenAt` when it let one go. A
 * record still in the list needs no row: the list is saved in the same entity, so every applied trigger is
 * in the list or in a row, never neither (the row is written in the same transaction that drops it from
 * the list). An instance with fewer than APPLIED_TRIGGER_MEMORY triggers in its life writes no rows at all.
 */
function withAppliedRows(before: Instance, next: Instance, now: Date): { instance: Instance; applied: AppliedTrigger[] } {
  const previous = before.appliedTriggers ?? [];
  const current = next.appliedTriggers ?? [];
  if (previous === current) return { instance: next, applied: [] };
  const kept = new Set(current.map((record) => record.triggerId));
  const letGo = previous.filter((record) => !kept.has(record.triggerId));
  return { instance: letGo.length ? { ...next, appliedForgottenAt: now.toISOString() } : next, applied: letGo };
}

/**
 * Whether `triggerId` may have been applied and then let go of by the instance's bounded list: only when
 * the list let something go, after (give or take clock differences) the trigger's operation was recorded.
 */
function mayHaveForgotten(stored: Instance, triggerId: string, offeredSince: string | undefined): boolean {
  if (!stored.appliedForgottenAt) return false;
  if ((stored.appliedTriggers ?? []).some((record) => record.triggerId === triggerId)) return false;
  if (offeredSince === undefined) return true;
  return Date.parse(offeredSince) <= Date.parse(stored.appliedForgottenAt) + APPLIED_LOOKUP_CLOCK_MARGIN_MS;
}

/** Whether the instance's own record says the trigger was applied (a repeat takes no concurrency slot). */
function wasApplied(stored: Instance, triggerId: string): boolean {
  return (stored.appliedTriggers ?? []).some((record) => record.triggerId === triggerId);
}

function historyOf(change: Change): HistoryEntry[] {
  return change.historyEntry ? [...(change.precedingEntries ?? []), change.historyEntry] : [];
}
