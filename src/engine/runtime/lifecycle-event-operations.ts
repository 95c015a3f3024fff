/**
 * @module What the engine does with lifecycle events after their change is saved: list them, hand their
 * deliveries to whoever delivers them (in process, or the host's durable launcher), one attempt, a
 * redelivery of dead letters, and the start-up hand-off of every pending delivery. Event records are the
 * durable hand-off of the `event` outbox rows, so all of this may repeat safely.
 */
import type { LifecycleEventRecord } from '../decide/lifecycle-events';
import type { EventOutboxRow } from '../model/outbox';
import type { EventStore, OperationOptions, Page, PageOptions } from '../ports/ports';
import { onePage } from '../ports/paging';
import type { AttemptResult, EventDeliveryService, EventDeliveryTarget } from './event-delivery';
import type { EventDispatcher } from './event-dispatcher';
import type { InstanceReads } from './instance-reads';

const NO_EVENT_STORE = 'Lifecycle events need an event store (EnginePorts.events)';

export class LifecycleEventOperations {
  constructor(
    private readonly reads: InstanceReads,
    /** Hands an `event` row to delivery: the engine's handler (in process, or the host's). */
    private readonly handOver: (row: EventOutboxRow, options?: OperationOptions) => Promise<void>,
    private readonly store?: EventStore,
    private readonly deliveryService?: EventDeliveryService,
    private readonly dispatcher?: EventDispatcher,
  ) {}

  /** The instance's lifecycle events with their deliveries, oldest first. NotFoundError if the instance does not exist. */
  async list(instanceId: string, pageOptions?: PageOptions): Promise<Page<LifecycleEventRecord>> {
    await this.reads.get(instanceId, pageOptions);
    return onePage(this.eventStore().listEvents(instanceId, pageOptions));
  }

  /** Retries an event's dead-lettered deliveries (attempts from zero). NotFoundError for an unknown instance or event; ConflictError when none is dead-lettered. */
  async redeliver(instanceId: string, eventId: string, options: OperationOptions = {}): Promise<void> {
    await this.reads.get(instanceId, options);
    const targets = await this.delivery().redeliver(instanceId, eventId, options);
    await this.handOver({ id: `redeliver.${eventId}`, kind: 'event', payload: { instanceId, eventId, subscriptionIds: targets.map((target) => target.subscriptionId) } }, options);
  }

  /**
   * One delivery attempt. Behind an earlier event never attempted, whose delivery may never have been
   * handed over (a crash after its save), that one is handed over too (the launcher skips a running one).
   */
  async attempt(target: EventDeliveryTarget, options?: OperationOptions): Promise<AttemptResult> {
    const result = await this.delivery().attempt(target, options);
    if (result.next === 'wait' && result.earlierUnattempted) {
      const payload = { instanceId: target.instanceId, eventId: result.earlierEventId, subscriptionIds: [target.subscriptionId] };
      await this.handOver({ id: `turn.${result.earlierEventId}`, kind: 'event', payload }, options);
    }
    return result;
  }

  /** Hands every pending event delivery over (start-up); returns how many. */
  async resume(options: PageOptions = {}): Promise<number> {
    if (!this.store) return 0;
    let count = 0;
    for await (const { instanceId, event } of this.store.listPendingEvents({ ...options, maxPageSize: 1000 })) {
      const subscriptionIds = event.deliveries.filter((delivery) => delivery.status === 'pending').map((delivery) => delivery.subscriptionId);
      count += subscriptionIds.length;
      await this.handOver({ id: `resume.${event.id}`, kind: 'event', payload: { instanceId, eventId: event.id, subscriptionIds } }, options);
    }
    return count;
  }

  /** The in-process handler of `event` rows: the dispatcher's queue. */
  dispatchInProcess(row: EventOutboxRow): void {
    if (!this.dispatcher) throw new Error(NO_EVENT_STORE);
    this.dispatcher.enqueue(row.payload.subscriptionIds.map((subscriptionId) => ({ instanceId: row.payload.instanceId, eventId: row.payload.eventId, subscriptionId })));
  }

  /** Resolves when the in-process dispatcher has nothing queued (tests). */
  idle(): Promise<void> {
    return this.dispatcher?.idle() ?? Promise.resolve();
  }

  /** Stops in-process delivery (pending deliveries stay recorded for the next start). */
  stop(): void {
    this.dispatcher?.stop();
  }

  private eventStore(): EventStore {
    if (!this.store) throw new Error(NO_EVENT_STORE);
    return this.store;
  }

  private delivery(): EventDeliveryService {
    if (!this.deliveryService) throw new Error(NO_EVENT_STORE);
    return this.deliveryService;
  }
}
