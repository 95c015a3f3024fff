/**
 * @module Where the run loop meets a state's `capacity` (decision 0023): the admission protocol of one
 * application (admission/admission-protocol.ts) and its settling after the save, the waiters a leaving
 * change offers again in its own save, and the count out once it is saved. Failures here are logged and
 * left to the reconciliation (a full row's members are read, state-capacity.ts), never the change's failure.
 */
import type { WorkflowDefinition } from '../definition/definition';
import type { Cause } from '../decide/decision';
import { InstanceStatus, TriggerOutcome } from '../model/enums';
import type { CapacityEntry, Instance } from '../model/instance';
import { MAX_OUTBOX_ROWS_PER_CHANGE, type TriggerOutboxRow } from '../model/outbox';
import type { Trigger } from '../model/trigger';
import { internalKindOf } from '../model/internal-trigger';
import type { InstanceStore, OperationOptions } from '../ports/ports';
import { AdmissionProtocol } from '../admission/admission-protocol';
import { CapacityGate } from '../admission/capacity-admission';
import { reofferRows } from '../admission/capacity-reoffers';
import type { StateCapacityRows } from '../admission/state-capacity';
import type { AppliedDecision, CapacityPlaces } from './change-types';
import type { CapacityLeaving } from './change-under-lease';
import type { ResolvedEngineOptions } from './engine-options';

export class CapacityStage implements CapacityLeaving, CapacityPlaces {
  constructor(
    readonly capacity: StateCapacityRows | undefined,
    private readonly instances: Pick<InstanceStore, 'get'>,
    private readonly options: ResolvedEngineOptions,
  ) {}

  /** The admission protocol of one application (admission-protocol.ts), over a gate of its own. */
  admissionOf(options: OperationOptions): AdmissionProtocol {
    const now = () => this.options.clock.now();
    const ports = this.capacity
      ? { rows: this.capacity, instances: this.instances, now, warn: (message: string, properties: Record<string, unknown>) => this.options.logger.warn(message, properties) }
      : undefined;
    return new AdmissionProtocol(ports, new CapacityGate(this.capacity, options, now), options);
  }

  /**
   * A place counted in for a change from outside that the saved instance does not use (it failed, or moved
   * on): given back, the decision carrying the offers to the waiters that fit now.
   */
  async giveBackUnusedPlace<Decided extends AppliedDecision>(protocol: AdmissionProtocol, workflowId: string | undefined, instanceId: string, decided: Decided, failed = false): Promise<Decided> {
    const gate = protocol.gate;
    if (gate.reservations().length === 0 || workflowId === undefined) return decided;
    try {
      await protocol.settle(workflowId, instanceId, decided.instance, failed);
    } catch (error) {
      this.options.logger.warn('Could not give back a place in a state with capacity; the next full check reconciles it', { instanceId, error: String(error) });
    }
    return gate.offers.length > 0 ? { ...decided, capacityOffers: gate.offers } : decided;
  }

  /**
   * After a trigger's application: a place taken but not used is given back, and a re-offered waiter that
   * went elsewhere or nowhere leaves its queue (admitted and timed-out ones left it themselves; one still
   * queued, or held by an instance that cannot take it now, stays). Failures are left to the reconciliation.
   */
  async settleCapacity(protocol: AdmissionProtocol, workflowId: string | undefined, instanceId: string, trigger: Trigger, decided: AppliedDecision, options: OperationOptions): Promise<void> {
    const gate = protocol.gate;
    try {
      if (workflowId !== undefined) await protocol.settle(workflowId, instanceId, decided.instance);
      const reoffer = internalKindOf(trigger, 'capacityReoffer');
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
  async reoffersOf(definition: WorkflowDefinition, stored: Instance, cause: Cause, left: CapacityEntry, otherPieces: number, options: OperationOptions): Promise<TriggerOutboxRow[]> {
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
  async countOut(workflowId: string, left: CapacityEntry, instanceId: string, options: OperationOptions): Promise<void> {
    try {
      await this.capacity?.leave(workflowId, left.stateId, left.key, instanceId, options);
    } catch (error) {
      this.options.logger.warn('Could not count an instance out of a state with capacity; the next full check reconciles it', { instanceId, stateId: left.stateId, error: String(error) });
    }
  }
}
