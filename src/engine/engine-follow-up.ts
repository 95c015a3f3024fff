/**
 * @module The follow-up of a change, after its lease is released: the outbox rows it wrote (and those a crash
 * left) relayed through the engine's handlers (outbox-relay.ts), the run loop told when all went (so the next
 * load skips the lookup), and the triggers that waited for room the change freed offered again.
 */
import { TriggerOutcome } from './model/enums';
import { NotFoundError, isRetryable } from './model/errors';
import type { StoredInstance } from './model/instance';
import type { InstanceResult } from './operations/operation';
import type { InstanceStore, OperationOptions } from './ports/ports';
import type { Trigger } from './model/trigger';
import type { EngineLogger } from './steps/effects';
import type { AppliedDecision, InstanceRuntime } from './runtime/instance-runtime';
import type { OutboxRelay } from './runtime/outbox-relay';
import type { CapacityOffer } from './admission/state-capacity';

export class FollowUpRelay {
  constructor(
    private readonly relay: Pick<OutboxRelay, 'relay'>,
    private readonly runtime: Pick<InstanceRuntime, 'relayedAll' | 'capacity'>,
    private readonly instances: Pick<InstanceStore, 'get'>,
    private readonly logger: EngineLogger,
    /** A trigger's application with its own follow-up (Engine.applyTrigger): how a waiter is offered again. */
    private readonly applyTrigger: (instanceId: string, trigger: Trigger) => Promise<InstanceResult>,
  ) {}

  /** The instance a change saved, once its rows are relayed; NotFoundError when there was none. */
  async changed(instanceId: string, decided: AppliedDecision, options: OperationOptions): Promise<StoredInstance> {
    if (!decided.instance) throw new NotFoundError(`Instance "${instanceId}" does not exist`);
    await this.relayAfter(decided, options);
    return decided.instance;
  }

  /** After the lease: the change's outbox rows relayed, and the triggers waiting for room it made offered (any change: a trigger, a creation, a migration, a recovery). */
  async relayAfter(decided: AppliedDecision, options: OperationOptions): Promise<void> {
    await this.relayOutbox(decided, options);
    await this.offerWaiting(decided.capacityOffers ?? []);
  }

  /**
   * The lease is released: deliver the rows, and remember the instance is clear when all went. A
   * retryable failure is thrown, so the caller's retry (answered `duplicate`) relays the rows again from
   * the load; any other is logged, not thrown, since the change itself is saved: the rows wait for the
   * next load of the instance or the start-up sweep.
   */
  private async relayOutbox(decided: AppliedDecision, options: OperationOptions): Promise<void> {
    // A deleted instance has no rows left: only the re-offers of the room it freed are relayed (capacity-reoffers.ts).
    const deleted = !decided.instance && decided.released?.length ? decided.decision?.result.instanceId : undefined;
    if (deleted !== undefined) decided = { ...decided, instance: { id: deleted } as StoredInstance, outbox: decided.released! };
    if (decided.outbox.length === 0 || !decided.instance) return;
    try {
      if ((await this.relay.relay(decided.instance.id, decided.outbox, options)) && deleted === undefined) this.runtime.relayedAll(decided);
    } catch (error) {
      if (isRetryable(error)) throw error;
      this.logger.error('Could not deliver outbox rows; they stay for the next load or start', { instanceId: decided.instance.id, error: String(error) });
    }
  }

  /** Relays a change's rows without holding the caller (CreateOptions.followUp); a failure is logged, and the rows stay for the next load or the sweep. */
  afterAnswer(decided: AppliedDecision): void {
    void this.relayAfter(decided, {}).catch((error: unknown) =>
      this.logger.error('Follow-up work after an answer failed; its rows stay for the next load or start', { instanceId: decided.instance?.id, error: String(error) }),
    );
  }

  /**
   * Triggers that waited for room in a full state (`capacity`), offered again now that room is free. A
   * failure leaves the trigger on its queue, offered again by the next change that touches it.
   */
  private async offerWaiting(offers: readonly CapacityOffer[]): Promise<void> {
    for (const offer of offers) {
      const { instanceId, trigger } = offer.waiter;
      try {
        // Sent to an instance since deleted (and perhaps created again with its id): it waits no longer, and is not applied.
        const current = await this.instances.get(instanceId);
        if (!current || current.incarnation !== offer.waiter.incarnation) {
          await this.runtime.capacity?.forget(offer);
          continue;
        }
        const result = await this.applyTrigger(instanceId, trigger);
        // Admitted and timed-out triggers left the queue themselves; one that went elsewhere or nowhere leaves it
        // here. One its instance cannot take now (suspended, faulted) stays queued: offered again by the next
        // change that frees room, as the instance keeps its other held work while it cannot take it.
        if (result.outcome !== TriggerOutcome.capacityQueued && result.outcome !== TriggerOutcome.notActive) await this.runtime.capacity?.forget(offer);
      } catch (error) {
        this.logger.warn('Could not offer a trigger that waited for room in a state; it stays queued', { instanceId, triggerId: trigger.id, error: String(error) });
      }
    }
  }
}
