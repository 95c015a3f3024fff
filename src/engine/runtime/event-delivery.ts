/**
 * @module One delivery attempt of one lifecycle event to one subscription, shared by both hosts (the
 * local dispatcher and the Azure delivery orchestration's activity). It reads the event record, keeps
 * the order per instance and subscription (an earlier event still pending for the subscription makes
 * this one wait), POSTs the CloudEvent through the outbound client (allow-list, timeout, managed
 * identity), records the attempt on the delivery and says what to do next: done, retry after a delay
 * (network errors, 5xx, 429, within the policy's attempts) or nothing more (delivered, dead-lettered).
 */
import type { Clock } from './engine-options';
import { ConflictError, NotFoundError } from '../model/errors';
import type { ExternalServiceClient } from '../steps/outbound-port';
import { ExternalServiceError, OutboundRefusedError } from '../steps/outbound-port';
import type { EventStore, OperationOptions } from '../ports/ports';
import type { WorkflowVersionCache } from './workflow-version-cache';
import { structuredMessage, toCloudEvent } from '../events/cloud-event';
import { isRetryableDeliveryFailure, retryDelayInMs, type EventDeliveryPolicy } from '../events/delivery-policy';
import { EVENT_RANK } from '../definition/lifecycle-event-type';
import { DeliveryStatus, type EventDelivery, type LifecycleEventRecord } from '../decide/lifecycle-events';

/** One delivery to hand to a host's delivery mechanism. */
export interface EventDeliveryTarget {
  readonly instanceId: string;
  readonly eventId: string;
  readonly subscriptionId: string;
}

/** Why an attempt failed, for the log: the event's workflow and the failure (on `retry` and dead-lettering). */
export interface AttemptFailure {
  readonly workflowId?: string;
  readonly reason?: string;
}

export type AttemptResult =
  | ({ readonly next: 'done'; readonly status: DeliveryStatus | 'gone' } & AttemptFailure)
  /** Try again after `delayInMs`: a retryable failure. */
  | ({ readonly next: 'retry'; readonly delayInMs: number } & AttemptFailure)
  /**
   * Not this event's turn: `earlierEventId`, an earlier event of the instance, is still pending for the
   * subscription. Look again after `delayInMs` (no sooner than that one's next attempt can end it);
   * `earlierUnattempted` says it was never attempted, so its delivery may never have been handed over.
   */
  | { readonly next: 'wait'; readonly delayInMs: number; readonly earlierEventId: string; readonly earlierUnattempted: boolean };

/** How long an event waits before looking again whether the earlier ones for its subscription are settled. */
const TURN_POLL_IN_MS = 1_000;
const MAX_ERROR_LENGTH = 500;

export interface EventDeliveryServiceOptions {
  readonly store: EventStore;
  readonly versions: WorkflowVersionCache;
  readonly http: ExternalServiceClient;
  readonly policy: EventDeliveryPolicy;
  readonly clock: Clock;
  readonly sourcePrefix?: string;
  /** @default Math.random (the jitter) */
  readonly random?: () => number;
}

function before(a: LifecycleEventRecord, b: LifecycleEventRecord): boolean {
  return a.sequence < b.sequence || (a.sequence === b.sequence && EVENT_RANK[a.type] < EVENT_RANK[b.type]);
}

export class EventDeliveryService {
  constructor(private readonly options: EventDeliveryServiceOptions) {}

  get policy(): EventDeliveryPolicy {
    return this.options.policy;
  }

  /**
   * One attempt, only in its turn: while an earlier event of the instance is pending for the same
   * subscription, nothing is sent and the answer is `wait`, naming that event. This check is the order
   * guarantee on both hosts; no caller may skip it, whatever order deliveries were handed over in (a
   * relay that applies a raised trigger before handing over its own change's events, the start-up
   * re-queuing racing new changes, several relays at once). Storage failures are thrown.
   */
  async attempt(target: EventDeliveryTarget, options: OperationOptions = {}): Promise<AttemptResult> {
    const { store, versions, clock } = this.options;
    const record = await store.getEvent(target.instanceId, target.eventId, options);
    const index = record?.deliveries.findIndex((delivery) => delivery.subscriptionId === target.subscriptionId) ?? -1;
    if (!record || index < 0) return { next: 'done', status: 'gone' };
    const delivery = record.deliveries[index]!;
    if (delivery.status !== DeliveryStatus.pending) return { next: 'done', status: delivery.status };
    const earlier = await this.earlierPending(target, record, options);
    if (earlier) return this.waitFor(earlier);

    const { definition } = await versions.get(record.data.workflowId, record.data.workflowVersion, options);
    const subscription = definition.subscriptions?.find((item) => item.id === target.subscriptionId);
    const attempts = delivery.attempts + 1;
    const at = clock.now().toISOString();
    if (!subscription) {
      const reason = 'the subscription is not in the workflow version';
      await this.record(target, index, { ...delivery, status: DeliveryStatus.deadLettered, attempts, lastError: reason, lastAttemptAt: at }, options);
      return { next: 'done', status: DeliveryStatus.deadLettered, workflowId: record.data.workflowId, reason };
    }
    const message = structuredMessage(toCloudEvent(record, subscription, this.options.sourcePrefix));
    let failure: { status: number | undefined; message: string; refused?: boolean } | undefined;
    try {
      const response = await this.options.http.send({
        url: subscription.url,
        method: 'POST',
        headers: message.headers,
        body: message.body,
        timeoutInMs: this.options.policy.timeoutInMs,
        // A 2xx is a delivery whatever the subscriber says after it: its body is not read (no size limit to fail).
        statusOnly: true,
        ...(subscription.authentication ? { managedIdentityResource: subscription.authentication.managedIdentity } : {}),
        ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
      });
      if (response.status < 200 || response.status > 299) failure = { status: response.status, message: `the subscriber answered ${response.status}` };
    } catch (error) {
      const status = error instanceof ExternalServiceError ? error.status : undefined;
      // Refused by the host's configuration (allow-list, address): the same answer for hours, so no retries.
      failure = { status, message: error instanceof Error ? error.message : String(error), refused: error instanceof OutboundRefusedError };
    }
    if (!failure) {
      await this.record(target, index, { subscriptionId: delivery.subscriptionId, status: DeliveryStatus.delivered, attempts, lastAttemptAt: at }, options);
      return { next: 'done', status: DeliveryStatus.delivered };
    }
    const lastError = failure.message.slice(0, MAX_ERROR_LENGTH);
    const retry = !failure.refused && isRetryableDeliveryFailure(failure.status) && attempts < this.options.policy.maxAttempts;
    const status = retry ? DeliveryStatus.pending : DeliveryStatus.deadLettered;
    // The wait is drawn once and recorded, so a reader sees when the next attempt is due.
    const delayInMs = retry ? retryDelayInMs(this.options.policy, attempts, (this.options.random ?? Math.random)()) : undefined;
    const nextAttemptAt = delayInMs !== undefined ? new Date(Date.parse(at) + delayInMs).toISOString() : undefined;
    await this.record(target, index, { subscriptionId: delivery.subscriptionId, status, attempts, lastError, lastAttemptAt: at, ...(nextAttemptAt ? { nextAttemptAt } : {}) }, options);
    const failed = { workflowId: record.data.workflowId, reason: lastError };
    if (delayInMs === undefined) return { next: 'done', status, ...failed };
    return { next: 'retry', delayInMs, ...failed };
  }

  /**
   * Sets the event's dead-lettered deliveries back to pending (attempts from zero) and returns them, to be
   * handed to delivery again. NotFoundError for an unknown event; ConflictError when none is dead-lettered.
   */
  async redeliver(instanceId: string, eventId: string, options: OperationOptions = {}): Promise<EventDeliveryTarget[]> {
    const record = await this.options.store.getEvent(instanceId, eventId, options);
    if (!record) throw new NotFoundError(`Event "${eventId}" of instance "${instanceId}" does not exist`);
    const targets: EventDeliveryTarget[] = [];
    for (const [index, delivery] of record.deliveries.entries()) {
      if (delivery.status !== DeliveryStatus.deadLettered) continue;
      try {
        // Only while still dead-lettered: of concurrent requests one wins, so the event is sent once.
        await this.options.store.updateDelivery(instanceId, eventId, index, { ...delivery, status: DeliveryStatus.pending, attempts: 0 }, { ...options, ifStatus: DeliveryStatus.deadLettered });
      } catch (error) {
        if (error instanceof ConflictError) continue;
        throw error;
      }
      targets.push({ instanceId, eventId, subscriptionId: delivery.subscriptionId });
    }
    if (targets.length === 0) throw new ConflictError(`Event "${eventId}" has no dead-lettered delivery to retry`);
    return targets;
  }

  private record(target: EventDeliveryTarget, index: number, delivery: EventDelivery, options: OperationOptions): Promise<void> {
    return this.options.store.updateDelivery(target.instanceId, target.eventId, index, delivery, options);
  }

  /** The oldest event of the instance before `record` whose delivery to the subscription is pending, with that delivery. */
  private async earlierPending(target: EventDeliveryTarget, record: LifecycleEventRecord, options: OperationOptions): Promise<{ eventId: string; delivery: EventDelivery } | undefined> {
    // Only the instance's pending events are read (a filtered query), not its whole event history.
    for await (const { event } of this.options.store.listPendingEvents({ ...options, instanceId: target.instanceId, maxPageSize: 100 })) {
      if (!before(event, record)) return undefined;
      const delivery = event.deliveries.find((item) => item.subscriptionId === target.subscriptionId && item.status === DeliveryStatus.pending);
      if (delivery) return { eventId: event.id, delivery };
    }
    return undefined;
  }

  /**
   * Waits for `earlier`: until the soonest its next attempt may run (the shortest jittered delay after its
   * last failure), at least TURN_POLL_IN_MS. So an orchestration behind a subscriber that is down for hours
   * looks again about as often as the earlier one is retried, not every second.
   */
  private waitFor(earlier: { eventId: string; delivery: EventDelivery }): AttemptResult {
    const { attempts, lastAttemptAt } = earlier.delivery;
    let delayInMs = TURN_POLL_IN_MS;
    if (attempts > 0 && lastAttemptAt) {
      const soonest = Date.parse(lastAttemptAt) + retryDelayInMs(this.options.policy, attempts, 0);
      delayInMs = Math.max(TURN_POLL_IN_MS, soonest - this.options.clock.now().getTime());
    }
    return { next: 'wait', delayInMs, earlierEventId: earlier.eventId, earlierUnattempted: attempts === 0 };
  }
}
