/**
 * @module What settles one delivery after its decision (saved, or nothing to save): the effects its decision
 * was given (the action-call journal keyed by the delivery), its log lines emitted once, and the memory of
 * the instances whose outbox this process relayed completely (so their next load need not look for
 * leftover rows). The relay itself runs after the lease (outbox-relay.ts, driven by the facade).
 */
import { ActionCallJournal } from './action-call-journal';
import type { LogLine } from '../decide/decision';
import type { Effects } from '../steps/effects';
import type { ResolvedEngineOptions } from './engine-options';
import { BoundedMap } from '../model/bounded-map';
import { InstanceStatus } from '../model/enums';
import type { Instance, StoredInstance } from '../model/instance';
import type { AppliedDecision } from './change-types';

export class ChangeFollowUp {
  private readonly journal = new ActionCallJournal();
  /** Instances whose outbox this process relayed completely, with the ETag they then had (saves no query on the next load). */
  private readonly relayed = new BoundedMap<string, string>(10_000);

  constructor(private readonly options: Pick<ResolvedEngineOptions, 'clock' | 'http' | 'logger'>) {}

  /** Called after the relay delivered every row of `decided`: the next load need not look for leftovers. */
  relayedAll(decided: AppliedDecision): void {
    if (!decided.instance) return;
    this.relayed.set(decided.instance.id, decided.instance.etag);
  }

  effects(deliveryKey: string, signal?: AbortSignal): Effects {
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
  finish(deliveryKey: string, logs: readonly LogLine[], saved?: Instance, before?: Instance): void {
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

  /** Whether this process relayed every row `stored` lists, as it is now (same ETag): no leftovers to look for. */
  relayedAt(stored: StoredInstance): boolean {
    return this.relayed.get(stored.id) === stored.etag;
  }

  /** A deleted instance is forgotten (an instance created again with its id starts afresh). */
  forget(instanceId: string): void {
    this.relayed.delete(instanceId);
  }
}
