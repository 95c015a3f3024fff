/**
 * The event store's contract (EventStore, with the InstanceStore whose saves write the records), run
 * against every implementation: records are written atomically with a save, listed oldest first (by
 * sequence, then emission order), read by id (and only by their own instance's, incarnation's id), each
 * delivery updated on its own (with a compare-and-set on its status), pending deliveries listed per
 * instance and across instances, and everything gone with a purge.
 */
import { onePage } from '../../../src/engine/ports';
import {
  ConflictError,
  DeliveryStatus,
  eventId,
  NotFoundError,
  PreconditionFailedError,
  type EventDelivery,
  type EventStore,
  type InstanceStore,
  type LifecycleEventRecord,
  type LifecycleEventType,
} from '../../../src/engine';
import { makeHistoryEntry, makeInstance } from '../fixtures';

function delivery(subscriptionId: string, status: DeliveryStatus = DeliveryStatus.pending, attempts = 0): EventDelivery {
  return { subscriptionId, status, attempts };
}

function record(instanceId: string, sequence: number, type: LifecycleEventType, deliveries: readonly EventDelivery[], incarnation?: string): LifecycleEventRecord {
  return {
    id: eventId(instanceId, sequence, type, incarnation),
    type,
    sequence,
    time: `2026-01-01T00:00:${String(sequence % 60).padStart(2, '0')}.000Z`,
    data: {
      workflowId: 'wf',
      workflowVersion: 1,
      instanceId,
      previousStateId: sequence === 0 ? null : 'open',
      stateId: 'open',
      previousStatus: sequence === 0 ? null : 'waiting',
      status: 'waiting',
      transitionId: null,
      triggerId: null,
      context: { text: 'ünï 😀' },
    },
    deliveries,
  };
}

export function eventStoreContract(label: string, create: () => Promise<{ instances: InstanceStore; events: EventStore }>): void {
  describe(`EventStore: ${label}`, () => {
    let instances: InstanceStore;
    let events: EventStore;
    beforeAll(async () => {
      ({ instances, events } = await create());
    });

    it('writes records with a create or a save, atomically (a save that fails its precondition writes none), and lists them oldest first', async () => {
      const created = await instances.create(makeInstance('e-1', { historyLength: 1 }), { history: [makeHistoryEntry(0)], events: [record('e-1', 0, 'created', [delivery('hook')])] });
      // One save emitting two events: the move, then the status it ended in (emission order, not id order).
      await instances.save(
        makeInstance('e-1', { historyLength: 2 }),
        { history: [makeHistoryEntry(1)], events: [record('e-1', 1, 'transitioned', [delivery('hook')]), record('e-1', 1, 'completed', [delivery('hook')])] },
        { ifMatch: created.etag },
      );
      await expect(
        instances.save(makeInstance('e-1', { historyLength: 3 }), { history: [makeHistoryEntry(2)], events: [record('e-1', 2, 'transitioned', [delivery('hook')])] }, { ifMatch: created.etag }),
      ).rejects.toBeInstanceOf(PreconditionFailedError);
      const listed = (await onePage(events.listEvents('e-1'))).items;
      expect(listed.map((item) => item.id)).toEqual(['e-1:0:created', 'e-1:1:transitioned', 'e-1:1:completed']);
      expect(listed[0]).toEqual(record('e-1', 0, 'created', [delivery('hook')]));
      expect((await onePage(events.listEvents('nobody'))).items).toEqual([]);
    });

    it('pages the events of an instance without losing or repeating one', async () => {
      let stored = await instances.create(makeInstance('e-page', { historyLength: 1 }), { history: [makeHistoryEntry(0)], events: [record('e-page', 0, 'created', [delivery('hook')])] });
      for (let sequence = 1; sequence <= 4; sequence++) {
        stored = await instances.save(
          makeInstance('e-page', { historyLength: sequence + 1 }),
          { history: [makeHistoryEntry(sequence)], events: [record('e-page', sequence, 'transitioned', [delivery('hook')])] },
          { ifMatch: stored.etag },
        );
      }
      const seen: string[] = [];
      let continuationToken: string | undefined;
      do {
        const page = await onePage(events.listEvents('e-page', { maxPageSize: 2, ...(continuationToken ? { continuationToken } : {}) }));
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items.map((item) => item.id));
        continuationToken = page.continuationToken;
      } while (continuationToken);
      expect(seen).toEqual(['e-page:0:created', 'e-page:1:transitioned', 'e-page:2:transitioned', 'e-page:3:transitioned', 'e-page:4:transitioned']);
    });

    it("gets an event by its id, and nothing for an unknown id, another instance's id or another incarnation's id", async () => {
      await instances.create(makeInstance('e-get', { historyLength: 1, incarnation: 'inc1' }), { history: [makeHistoryEntry(0)], events: [record('e-get', 0, 'created', [delivery('hook')], 'inc1')] });
      expect(await events.getEvent('e-get', 'e-get:inc1:0:created')).toEqual(record('e-get', 0, 'created', [delivery('hook')], 'inc1'));
      expect(await events.getEvent('e-get', 'e-get:inc2:0:created')).toBeUndefined();
      expect(await events.getEvent('e-get', 'e-get:inc1:5:created')).toBeUndefined();
      expect(await events.getEvent('e-get', 'e-1:0:created')).toBeUndefined();
      expect(await events.getEvent('e-get', 'not an event id')).toBeUndefined();
      expect(await events.getEvent('nobody', 'nobody:0:created')).toBeUndefined();
    });

    it('updates one delivery without touching the others, and with ifStatus only while the delivery has that status', async () => {
      await instances.create(makeInstance('e-upd', { historyLength: 1 }), { history: [makeHistoryEntry(0)], events: [record('e-upd', 0, 'created', [delivery('a'), delivery('b'), delivery('c')])] });
      const id = 'e-upd:0:created';
      await events.updateDelivery('e-upd', id, 1, { ...delivery('b', DeliveryStatus.delivered, 1), lastAttemptAt: '2026-01-01T00:01:00.000Z' });
      await events.updateDelivery('e-upd', id, 2, { ...delivery('c', DeliveryStatus.deadLettered, 5), lastError: 'HTTP 500' }, { ifStatus: DeliveryStatus.pending });
      expect((await events.getEvent('e-upd', id))!.deliveries).toEqual([
        delivery('a'),
        { ...delivery('b', DeliveryStatus.delivered, 1), lastAttemptAt: '2026-01-01T00:01:00.000Z' },
        { ...delivery('c', DeliveryStatus.deadLettered, 5), lastError: 'HTTP 500' },
      ]);
      // The compare-and-set: `c` is no longer pending, so a second claim on it fails and changes nothing.
      await expect(events.updateDelivery('e-upd', id, 2, delivery('c', DeliveryStatus.delivered, 6), { ifStatus: DeliveryStatus.pending })).rejects.toBeInstanceOf(ConflictError);
      await events.updateDelivery('e-upd', id, 2, delivery('c'), { ifStatus: DeliveryStatus.deadLettered });
      expect((await events.getEvent('e-upd', id))!.deliveries.map((item) => item.status)).toEqual(['pending', 'delivered', 'pending']);
    });

    it('refuses to update the delivery of an event that does not exist (NotFoundError, with or without ifStatus)', async () => {
      await expect(events.updateDelivery('e-upd', 'e-upd:9:created', 0, delivery('a', DeliveryStatus.delivered, 1))).rejects.toBeInstanceOf(NotFoundError);
      await expect(events.updateDelivery('e-upd', 'e-upd:9:created', 0, delivery('a', DeliveryStatus.delivered, 1), { ifStatus: DeliveryStatus.pending })).rejects.toBeInstanceOf(NotFoundError);
      expect((await onePage(events.listEvents('e-upd'))).items.map((item) => item.id)).toEqual(['e-upd:0:created']);
    });

    it('lists events with a pending delivery, oldest first per instance, of one instance or of every instance', async () => {
      let stored = await instances.create(makeInstance('e-pend', { historyLength: 1 }), {
        history: [makeHistoryEntry(0)],
        events: [record('e-pend', 0, 'created', [delivery('a', DeliveryStatus.delivered, 1), delivery('b')])],
      });
      stored = await instances.save(
        makeInstance('e-pend', { historyLength: 2 }),
        { history: [makeHistoryEntry(1)], events: [record('e-pend', 1, 'transitioned', [delivery('a', DeliveryStatus.delivered, 1)])] },
        { ifMatch: stored.etag },
      );
      await instances.save(makeInstance('e-pend', { historyLength: 3 }), { history: [makeHistoryEntry(2)], events: [record('e-pend', 2, 'transitioned', [delivery('a')])] }, { ifMatch: stored.etag });
      const ofOne = (await onePage(events.listPendingEvents({ instanceId: 'e-pend' }))).items;
      expect(ofOne.map((item) => [item.instanceId, item.event.id])).toEqual([
        ['e-pend', 'e-pend:0:created'],
        ['e-pend', 'e-pend:2:transitioned'],
      ]);
      await events.updateDelivery('e-pend', 'e-pend:0:created', 1, delivery('b', DeliveryStatus.deadLettered, 3));
      const ofAll = (await onePage(events.listPendingEvents({ maxPageSize: 1000 }))).items;
      const ids = ofAll.map((item) => item.event.id);
      expect(ids).toContain('e-pend:2:transitioned');
      expect(ids).not.toContain('e-pend:0:created');
      expect(ids).not.toContain('e-pend:1:transitioned');
      // Other tests' instances are in the same store: of those, only events with a pending delivery.
      expect(ofAll.every((item) => item.event.deliveries.some((entry) => entry.status === DeliveryStatus.pending))).toBe(true);
      const ofFirst = ofAll.filter((item) => item.instanceId === 'e-1').map((item) => item.event.id);
      expect(ofFirst).toEqual(['e-1:0:created', 'e-1:1:transitioned', 'e-1:1:completed']);
      expect((await onePage(events.listPendingEvents({ instanceId: 'nobody' }))).items).toEqual([]);
    });

    it("a purge removes the instance's events", async () => {
      await instances.create(makeInstance('e-purge', { historyLength: 1 }), { history: [makeHistoryEntry(0)], events: [record('e-purge', 0, 'created', [delivery('hook')])] });
      await instances.purge('e-purge');
      expect((await onePage(events.listEvents('e-purge'))).items).toEqual([]);
      expect(await events.getEvent('e-purge', 'e-purge:0:created')).toBeUndefined();
      expect((await onePage(events.listPendingEvents({ instanceId: 'e-purge' }))).items).toEqual([]);
    });
  });
}
