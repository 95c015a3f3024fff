/**
 * @module In-process delivery of lifecycle events (the local host, the library): one queue per instance
 * and subscription, worked one delivery at a time, so a failing subscriber holds up only its own queue.
 * The order is not the queue's: deliveries are handed over in whatever order relays and the start-up
 * re-queuing run, and every attempt checks its turn (EventDeliveryService.attempt). When an attempt
 * answers that an earlier event is still pending, that event goes to the head of the queue and is worked
 * at once, queued or not, so each subscription hears an instance's events in the order of its history. Retries sleep the policy's delays (timers that do
 * not keep the process alive); Engine.resumeEventDeliveries re-queues every pending delivery at start-up, so a crash or
 * restart loses none (they are recorded with the save). Delivery never runs under an instance's lease
 * and never touches the instance: a subscriber cannot fault, block or slow it. A queue sleeping on a
 * deleted incarnation's retry is woken when an event of a new incarnation of the id arrives (the old
 * event is gone, so the attempt ends it at once).
 */
import type { EngineLogger } from '../steps/effects';
import { DeliveryStatus, parseEventId } from '../decide/lifecycle-events';
import type { EventDeliveryService, EventDeliveryTarget } from './event-delivery';

/** After a storage failure, the queue tries again after this long. */
const STORAGE_RETRY_IN_MS = 5_000;
/** Earlier events put ahead one after the other without any being settled before the queue sleeps a turn. */
const MAX_TURNS_IN_A_ROW = 1_000;

interface Queue {
  readonly eventIds: string[];
  running: boolean;
  /** Ends the queue's sleep before a retry (set while it sleeps). */
  wake?: () => void;
}

export class EventDispatcher {
  private readonly queues = new Map<string, Queue>();
  private readonly timers = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();
  private readonly idleWaiters: Array<() => void> = [];
  private stopped = false;

  constructor(
    private readonly delivery: EventDeliveryService,
    private readonly logger: EngineLogger,
  ) {}

  /** Queues deliveries (a repeated one is ignored while queued) and starts their queues. */
  enqueue(targets: readonly EventDeliveryTarget[]): void {
    if (this.stopped) return;
    for (const target of targets) {
      const key = `${target.instanceId}\u0000${target.subscriptionId}`;
      let queue = this.queues.get(key);
      if (!queue) this.queues.set(key, (queue = { eventIds: [], running: false }));
      if (!queue.eventIds.includes(target.eventId)) queue.eventIds.push(target.eventId);
      if (!queue.running) void this.work(key, queue, target.instanceId, target.subscriptionId);
      // An event of another incarnation of the id: the one the queue sleeps on was deleted with its
      // instance, so its retry (hours, for a subscriber that is down) must not hold up the new one's.
      else if (queue.wake && incarnationOf(target.instanceId, queue.eventIds[0]!) !== incarnationOf(target.instanceId, target.eventId)) queue.wake();
    }
  }

  /** Resolves when no delivery is queued or waiting (tests). */
  idle(): Promise<void> {
    if (this.queues.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking deliveries and ends the waits; pending ones stay recorded for the next start. */
  stop(): void {
    this.stopped = true;
    for (const entry of this.timers) {
      clearTimeout(entry.timer);
      entry.wake();
    }
    this.timers.clear();
  }

  private async work(key: string, queue: Queue, instanceId: string, subscriptionId: string): Promise<void> {
    queue.running = true;
    let turnsInARow = 0;
    try {
      while (!this.stopped && queue.eventIds.length > 0) {
        const target = { instanceId, eventId: queue.eventIds[0]!, subscriptionId };
        let delayInMs: number;
        try {
          const result = await this.delivery.attempt(target);
          if (result.next === 'done') {
            queue.eventIds.shift();
            turnsInARow = 0;
            if (result.status === DeliveryStatus.deadLettered) this.logger.warn('A lifecycle event was dead-lettered', { ...target, workflowId: result.workflowId, reason: result.reason });
            continue;
          }
          if (result.next === 'wait') {
            // The earlier event first: each such step goes strictly earlier, and working it settles it or
            // sleeps its retry, so this ends; the bound only keeps a store that disagrees with itself from spinning.
            const at = queue.eventIds.indexOf(result.earlierEventId);
            if (at >= 0) queue.eventIds.splice(at, 1);
            queue.eventIds.unshift(result.earlierEventId);
            if (++turnsInARow <= MAX_TURNS_IN_A_ROW) continue;
          }
          // A subscriber that failed the delivery (a 5xx, a 429, no answer): said, since it may fail for hours.
          if (result.next === 'retry')
            this.logger.warn('A lifecycle event delivery failed; trying again', { ...target, workflowId: result.workflowId, reason: result.reason, retryInMs: result.delayInMs });
          turnsInARow = 0;
          delayInMs = result.delayInMs;
        } catch (error) {
          this.logger.warn('Could not deliver a lifecycle event now; trying again', { ...target, error: String(error) });
          delayInMs = STORAGE_RETRY_IN_MS;
        }
        await this.sleep(delayInMs, queue);
      }
    } finally {
      queue.running = false;
      if (queue.eventIds.length === 0 || this.stopped) this.queues.delete(key);
      if (this.queues.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
    }
  }

  private sleep(delayInMs: number, queue: Queue): Promise<void> {
    return new Promise<void>((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.timers.delete(entry);
          resolve();
        }, delayInMs),
        wake: () => {
          clearTimeout(entry.timer);
          this.timers.delete(entry);
          resolve();
        },
      };
      entry.timer.unref();
      this.timers.add(entry);
      queue.wake = entry.wake;
    }).finally(() => {
      delete queue.wake;
    });
  }
}

/** The incarnation an event id names ('' for an id without one, or one that is not the instance's). */
function incarnationOf(instanceId: string, eventId: string): string {
  return parseEventId(instanceId, eventId)?.incarnation ?? '';
}
