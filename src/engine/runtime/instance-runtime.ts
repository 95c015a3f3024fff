/**
 * @module The instance runtime: every change to an instance goes through one loop, its steps each a module:
 * the lease-load-decide-save step (change-under-lease.ts), what settles a delivery after it (effects, log
 * lines, the memory of relayed outboxes: change-follow-up.ts), the index rows beside the save
 * (index-rows.ts), creation (instance-creation.ts, no lease) and deletion (instance-deletion.ts), the
 * operator's changes (operator-changes.ts), search repair (search-repair.ts). Flow admission (concurrency
 * slots; states with `capacity` through capacity-stage.ts and its one protocol) wraps a trigger's application here. The rows to relay are returned for
 * delivery after the lease is released (outbox-relay.ts, driven by the facade).
 */
import type { WorkflowDefinition, WorkflowVersion } from '../definition/definition';
import type { Cause, Decision } from '../decide/decision';
import type { NewInstance } from '../decide/decide-create';
import type { RecoveryRepair } from '../decide/decide-recover';
import { decideTrigger } from '../decide/decide-trigger';
import { faultRetryDecision, faultRetryRefusal, faultRetryStart } from '../decide/decide-fault-retry';
import type { WorkflowDefinition as TargetDefinition } from '../definition/definition';
import type { MigrationRequest } from '../decide/operation-work';
import type { DryRunResult } from '../decide/dry-run';
import type { Effects } from '../steps/effects';
import type { ResolvedEngineOptions } from './engine-options';
import { TriggerOutcome, inactiveStatuses } from '../model/enums';
import { ConflictError } from '../model/errors';
import type { Instance, StoredInstance } from '../model/instance';
import { duplicateResult } from '../decide/instance-changes';
import type { OperationOptions } from '../ports/ports';
import { offerOf } from '../decide/offers';
import { reofferedTrigger, type Trigger } from '../model/trigger';
import { internalKindOf } from '../model/internal-trigger';
import type { WorkflowVersionCache } from './workflow-version-cache';
import { systemActor, type Actor } from '../model/actor';
import type { SearchRow } from '../search/search-port';
import { ConcurrencySlots, type HeldSlot } from '../admission/concurrency-slots';
import { admitTrigger, withAdmissionTrace } from '../admission/flow-admission';
import { StateCapacityRows } from '../admission/state-capacity';
import type { CapacityForecast } from '../admission/capacity-forecast';
import { decideCapacityWaitEnd } from '../admission/capacity-waits';
import { CapacityStage } from './capacity-stage';
import { APPLIED_LOOKUP_CLOCK_MARGIN_MS, type AppliedDecision, type ApplyTriggerOptions, type ChangeOptions, type Decide, type InstancePrecondition, type InstanceRuntimePorts } from './change-types';
import { guarded } from './change-decoration';
import { runLoopSteps, type RunLoopSteps } from './run-loop-steps';

export { APPLIED_LOOKUP_CLOCK_MARGIN_MS };
export type { AppliedDecision, ApplyTriggerOptions, ChangeOptions, Decide, DecideContext, InstancePrecondition, InstanceRuntimePorts } from './change-types';

export class InstanceRuntime {
  /** The loop's steps, each a module (run-loop-steps.ts). */
  private readonly steps: RunLoopSteps;
  /** The concurrency slots of workflows with a `flow.concurrency` policy (absent without a flow store). */
  readonly slots?: ConcurrencySlots;
  /** The rows of states with `capacity` (absent without a flow store). */
  readonly capacity?: StateCapacityRows;
  /** Where the loop meets a state's capacity: the admission protocol and its settling (capacity-stage.ts). */
  private readonly stage: CapacityStage;

  constructor(
    private readonly ports: InstanceRuntimePorts,
    private readonly versions: WorkflowVersionCache,
    private readonly options: ResolvedEngineOptions,
  ) {
    if (ports.flow) {
      this.slots = new ConcurrencySlots(ports.flow, {
        now: () => options.clock.now(),
        newId: options.newId,
        ...(options.flowSlotTtlInMs !== undefined ? { slotTtlInMs: options.flowSlotTtlInMs } : {}),
        warn: (message, properties) => options.logger.warn(message, properties),
      });
      this.capacity = new StateCapacityRows(ports.flow, ports.instances, () => options.clock.now(), options.leaseDurationInSeconds * 1000, ports.leases);
    }
    // The steps of the loop, each its own module; where they meet a state's capacity is one more (capacity-stage.ts).
    this.stage = new CapacityStage(this.capacity, ports.instances, options);
    this.steps = runLoopSteps(ports, versions, options, this.stage);
  }

  /**
   * The one run loop of every change (change-under-lease.ts). `causeOf` names what is being delivered
   * (it keys raised-trigger ids and the action-call journal). Lease and storage failures are thrown (a
   * retry is safe); a request the instance cannot take is thrown by `decide` (ConflictError, ...).
   */
  decideUnderLease(instanceId: string, causeOf: (stored: Instance) => Cause, decide: Decide, options: ChangeOptions = {}): Promise<AppliedDecision> {
    return this.steps.loop.decideUnderLease(instanceId, causeOf, decide, options);
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
    // Where a state with `capacity` counts this trigger in (reserved after each decision, kept over a second one), and waiters to offer again.
    const protocol = this.stage.admissionOf(storeOptions);
    const gate = protocol.gate;
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
      const waitEnded = internalKindOf(applied, 'capacityWait');
      if (waitEnded) {
        const ended = await decideCapacityWaitEnd(this.capacity, definition, stored, applied, waitEnded, now(), storeOptions);
        if (ended.waiting) await this.recordOffer(instanceId, ended.waiting, ended.decision, storeOptions);
        return ended.decision;
      }
      const gated: Effects = gate.withAutomaticEntry({ ...effects, beforeEntering: (toStateId, entering) => gate.beforeEntering(definition, stored, toStateId, entering) }, definition, stored);
      // Decided on the rows as read (nothing written), then its places reserved; a reservation that lost its race decides again (admission-protocol.ts).
      const decision = await protocol.decide(async () => gate.decided(withAdmissionTrace(await decideTrigger(definition, stored, applied, gated, this.options.registry), admission), stored, now()));
      // Still under the lease: an offer that changed nothing (or only keeps a wait for room) is remembered beside the instance (offers.ts).
      // A re-offer is recorded as its waiting trigger's offer (it replaces the queued one). A retry always changes the instance.
      if (!retry && (!decision.change || decision.result.outcome === TriggerOutcome.capacityQueued)) {
        const reoffer = internalKindOf(trigger, 'capacityReoffer');
        await this.recordOffer(instanceId, reoffer ? reofferedTrigger(trigger, reoffer) : trigger, decision, storeOptions);
      }
      return decision;
    };
    let decided: AppliedDecision;
    try {
      decided = await this.decideUnderLease(
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
    } catch (error) {
      // Any failure, the save's outcome possibly unknown: the instance as stored decides what is confirmed, what released.
      if (workflowId !== undefined) await this.stage.giveBackUnusedPlace(protocol, workflowId, instanceId, { outbox: [] }, true);
      if (slot) await this.slots!.release(slot);
      throw error;
    }
    try {
      await this.stage.settleCapacity(protocol, workflowId, instanceId, trigger, decided, storeOptions);
      return gate.offers.length > 0 ? { ...decided, capacityOffers: gate.offers } : decided;
    } finally {
      if (slot) await this.slots!.release(slot);
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

  /** What `trigger` would do to the instance, nothing saved (operator-changes.ts). Undefined when the instance does not exist. */
  dryRun(instanceId: string, trigger: Trigger, options: OperationOptions = {}): Promise<DryRunResult | undefined> {
    return this.steps.operatorChanges.dryRun(instanceId, trigger, options);
  }

  recover(instanceId: string, stateId: string, options: ChangeOptions = {}, guard?: InstancePrecondition, repair?: RecoveryRepair): Promise<AppliedDecision> {
    return this.steps.operatorChanges.recover(instanceId, stateId, options, guard, repair);
  }

  cancel(instanceId: string, options?: ChangeOptions, guard?: InstancePrecondition): Promise<AppliedDecision> {
    return this.steps.operatorChanges.cancel(instanceId, options, guard);
  }

  /** A forecast of the refusals of full states (`capacity`) for a migration's dry run; undefined without a flow store. */
  capacityForecast(options: OperationOptions = {}): CapacityForecast | undefined {
    return this.steps.operatorChanges.capacityForecast(options);
  }

  /** Moves the instance to `request.toVersion` (`target` is that version's definition): a relabel, no actions run. */
  migrate(instanceId: string, request: MigrationRequest, target: TargetDefinition, options: ChangeOptions = {}): Promise<AppliedDecision> {
    return this.steps.operatorChanges.migrate(instanceId, request, target, options);
  }

  /** `guard` (optional) may answer instead of deciding, e.g. `skipped` for an instance a bulk filter no longer matches. */
  suspend(instanceId: string, options?: ChangeOptions, guard?: InstancePrecondition): Promise<AppliedDecision> {
    return this.steps.operatorChanges.suspend(instanceId, options, guard);
  }

  resume(instanceId: string, options?: ChangeOptions, guard?: InstancePrecondition): Promise<AppliedDecision> {
    return this.steps.operatorChanges.resume(instanceId, options, guard);
  }

  /** Deletes the instance under its lease, finishing a deletion a crash stopped (instance-deletion.ts). Undefined decision: no such instance. */
  delete(instanceId: string, force: boolean, options: OperationOptions = {}, guard?: InstancePrecondition): Promise<AppliedDecision> {
    return this.steps.deletion.delete(instanceId, force, options, guard);
  }

  /** Creates an instance of `workflow` (instance-creation.ts): ConflictError for an id that exists. */
  create(workflow: WorkflowVersion, input: NewInstance, options: OperationOptions = {}): Promise<AppliedDecision & { instance: StoredInstance; decision: Decision }> {
    return this.steps.creation.create(workflow, input, options);
  }

  /** Writes the instance's search rows and records them on it, under its lease (search-repair.ts). False when it does not exist. */
  reindex(instanceId: string, options: OperationOptions = {}): Promise<boolean> {
    return this.steps.searchRepair.reindex(instanceId, options);
  }

  /** Removes search rows a search found not held by their instances (search-repair.ts); never thrown. */
  repairSearchRows(workflowId: string, rows: readonly SearchRow[], options: OperationOptions = {}): Promise<void> {
    return this.steps.searchRepair.repairSearchRows(workflowId, rows, options);
  }

  /** The children of this incarnation of `parent` (none looked up for an instance that never started one). */
  childrenOf(parent: Pick<Instance, 'id' | 'incarnation' | 'startedChildren'>, options: OperationOptions = {}): Promise<StoredInstance[]> {
    return this.steps.deletion.childrenOf(parent, options);
  }

  /** Called after the relay delivered every row of `decided`: the next load need not look for leftovers. */
  relayedAll(decided: AppliedDecision): void {
    this.steps.followUp.relayedAll(decided);
  }
}

/** A timer's trigger acts as `system`, caused by the actor of the change that armed the timer (ArmedTimer.armedBy). */
function withTimerActor(trigger: Trigger, stored: Instance): Trigger {
  const fired = internalKindOf(trigger, 'timer');
  if (!fired || trigger.actor) return trigger;
  const armedBy = stored.timers?.find((timer) => timer.transitionId === fired.transitionId)?.armedBy;
  return armedBy ? { ...trigger, actor: systemActor(armedBy) } : trigger;
}

/** What a retry of a fault carries besides its trigger: the bulk filter's guard, who asked, and its operation. */
interface FaultRetryRequest {
  readonly guard?: InstancePrecondition;
  readonly retriedBy?: Actor;
  readonly operationId?: string;
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
