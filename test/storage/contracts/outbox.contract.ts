/**
 * The outbox port's contract (OutboxStore, with the InstanceStore whose saves write the rows) and the
 * relay over it, run against every implementation: rows are written atomically with a save (a failed
 * save writes none), listed per instance and across instances, deleted idempotently; the relay delivers
 * in order, deletes what it delivered, keeps what it did not.
 */
import { onePage } from '../../../src/engine/ports';
import { OutboxKind, OutboxRelay, PreconditionFailedError, type InstanceStore, type OutboxRow, type OutboxStore, type Trigger } from '../../../src/engine';
import { makeHistoryEntry, makeInstance } from '../fixtures';

function row(id: string, name = 'Next'): OutboxRow {
  return { id, kind: OutboxKind.trigger, payload: { id, name, subjects: ['s'], parameters: { text: 'ünï 😀' }, causalDepth: 1, causalBudget: 4999 } };
}

export function outboxContract(label: string, create: () => Promise<{ instances: InstanceStore; outbox: OutboxStore }>): void {
  describe(`OutboxStore and OutboxRelay: ${label}`, () => {
    let instances: InstanceStore;
    let outbox: OutboxStore;
    beforeAll(async () => {
      ({ instances, outbox } = await create());
    });

    it('writes rows with a create or a save, atomically: a save that fails its precondition writes none', async () => {
      const created = await instances.create(makeInstance('o-1', { historyLength: 1, outbox: ['raised:a'] }), { history: [makeHistoryEntry(0)], outbox: [row('raised:a')] });
      expect(await outbox.listOutbox('o-1')).toEqual([row('raised:a')]);
      const saved = await instances.save(makeInstance('o-1', { historyLength: 2 }), { history: [makeHistoryEntry(1)], outbox: [row('raised:c'), row('raised:b')] }, { ifMatch: created.etag });
      await expect(instances.save(makeInstance('o-1', { historyLength: 3 }), { history: [makeHistoryEntry(2)], outbox: [row('raised:stale')] }, { ifMatch: created.etag })).rejects.toBeInstanceOf(
        PreconditionFailedError,
      );
      expect((await outbox.listOutbox('o-1')).map((item) => item.id)).toEqual(['raised:a', 'raised:b', 'raised:c']);
      // Writing a row again (same id) replaces it rather than failing the save.
      await instances.save(makeInstance('o-1', { historyLength: 3 }), { history: [makeHistoryEntry(2)], outbox: [row('raised:a', 'Again')] }, { ifMatch: saved.etag });
      expect((await outbox.listOutbox('o-1'))[0]!.payload).toMatchObject({ name: 'Again' });
      expect(await outbox.listOutbox('nobody')).toEqual([]);
    });

    it('lists rows of every instance (the start-up sweep) and deletes them idempotently', async () => {
      await instances.create(makeInstance('o-2', { historyLength: 1 }), { history: [makeHistoryEntry(0)], outbox: [row('raised:x')] });
      const all = (await onePage(outbox.listAllOutbox({ maxPageSize: 1000 }))).items.filter((item) => item.instanceId === 'o-1' || item.instanceId === 'o-2');
      expect(all.map((item) => [item.instanceId, item.row.id])).toEqual([
        ['o-1', 'raised:a'],
        ['o-1', 'raised:b'],
        ['o-1', 'raised:c'],
        ['o-2', 'raised:x'],
      ]);
      await outbox.deleteOutbox('o-2', ['raised:x', 'raised:never-written']);
      await outbox.deleteOutbox('o-2', ['raised:x']);
      expect(await outbox.listOutbox('o-2')).toEqual([]);
    });

    it('the relay delivers in order, deletes what it delivered, and keeps the rest when a delivery fails', async () => {
      const delivered: Trigger[] = [];
      let failOn: string | undefined;
      const relay = new OutboxRelay(outbox, {
        trigger: async ({ payload }) => {
          if (payload.id === failOn) throw new Error(`cannot deliver ${payload.id}`);
          delivered.push(payload);
        },
      });
      const rows = await outbox.listOutbox('o-1');
      failOn = 'raised:b';
      await expect(relay.relay('o-1', rows)).rejects.toThrow('cannot deliver raised:b');
      expect(delivered.map((item) => item.id)).toEqual(['raised:a']);
      expect((await outbox.listOutbox('o-1')).map((item) => item.id)).toEqual(['raised:b', 'raised:c']);
      failOn = undefined;
      expect(await relay.relay('o-1', await outbox.listOutbox('o-1'))).toBe(true);
      expect(delivered.map((item) => item.id)).toEqual(['raised:a', 'raised:b', 'raised:c']);
      expect(delivered[1]).toEqual(row('raised:b').payload);
      expect(await outbox.listOutbox('o-1')).toEqual([]);
    });

    it('the sweep delivers every leftover row and reports how many', async () => {
      await instances.create(makeInstance('o-3', { historyLength: 1 }), { history: [makeHistoryEntry(0)], outbox: [row('raised:s1'), row('raised:s2')] });
      const delivered: string[] = [];
      const relay = new OutboxRelay(outbox, { trigger: async ({ payload }) => void delivered.push(payload.id) });
      const warnings: string[] = [];
      const count = await relay.sweep({ info() {}, warn: (message) => warnings.push(message), error() {} });
      expect(count).toBeGreaterThanOrEqual(2);
      expect(delivered).toEqual(expect.arrayContaining(['raised:s1', 'raised:s2']));
      expect(warnings).toEqual([]);
      expect(await outbox.listOutbox('o-3')).toEqual([]);
    });
  });
}
