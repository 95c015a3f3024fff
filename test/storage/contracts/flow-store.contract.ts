/** The FlowStore contract (ports/flow-store.ts), run against every implementation: both must answer alike. */
import { auditRows, capacityRows, slotRows, type FlowAuditEntry, type KeySlots, type StateKeyCapacity } from '../../../src/engine/admission';
import { ConflictError, PreconditionFailedError } from '../../../src/engine/model';
import { MalformedFlowRowError, type FlowStore } from '../../../src/engine/ports';

/** A store under test, and a way to plant a stored value the store itself would never write. */
export interface FlowStoreUnderTest {
  readonly store: FlowStore;
  /** Stores `json` as the row's body under the full row key (kind prefix included), over whatever is there. */
  putRaw(workflowId: string, rowKey: string, json: unknown): Promise<void>;
}

const at = '2026-12-03T10:00:00.000Z';
const later = '2026-12-03T10:01:00.000Z';

function slots(holders: number, overrides: Partial<KeySlots> = {}): KeySlots {
  return {
    running: Array.from({ length: holders }, (_, i) => ({ id: `h${i}`, instanceId: `i${i}`, triggerId: `t${i}`, since: at, expiresAt: later })),
    queued: [{ id: 'w1', instanceId: 'i9', triggerId: 't9', priority: 5, arrivedAt: at, expiresAt: later }],
    ...overrides,
  };
}

const capacity: StateKeyCapacity = {
  members: [{ instanceId: 'a', since: at, historyLength: 3 }],
  queued: [
    {
      id: 'trig-1',
      instanceId: 'b',
      incarnation: 'inc-2',
      trigger: { id: 'trig-1', name: 'Pick', subjects: ['order:b'], parameters: { lines: [1, 2, { sku: 'x' }], note: 'é ☃' }, priority: 4 },
      priority: 4,
      arrivedAt: at,
      deadline: later,
    },
  ],
};

const audit: FlowAuditEntry = { key: 'customer:42', by: 'ada', at, old: 3, new: null, tenantId: 'acme' };

let workflowSequence = 0;
/** A workflow id of its own per test: partitions keep tests apart on one store. */
function freshWorkflow(): string {
  workflowSequence += 1;
  return `wf-${workflowSequence}-${Math.random().toString(36).slice(2, 8)}`;
}

export function flowStoreContract(label: string, create: () => Promise<FlowStoreUnderTest>): void {
  describe(`FlowStore contract: ${label}`, () => {
    let subject: FlowStoreUnderTest;
    let store: FlowStore;
    beforeAll(async () => {
      subject = await create();
      store = subject.store;
    });

    it('answers undefined for an absent row of every kind, and an empty list', async () => {
      const workflowId = freshWorkflow();
      expect(await store.getRow(workflowId, slotRows, 'customer:42')).toBeUndefined();
      expect(await store.getRow(workflowId, capacityRows, 'picking|customer:42')).toBeUndefined();
      expect(await store.getRow(workflowId, auditRows, '11:customer:42|1')).toBeUndefined();
      expect(await store.listRows(workflowId, slotRows, '')).toEqual([]);
    });

    it('round-trips a row of each kind: read back equal to what was written, with the key within its kind', async () => {
      const workflowId = freshWorkflow();
      const withOverride = slots(2, { limitOverride: { limit: 4, by: 'ada', at } });
      const etags = [
        await store.putRow(workflowId, slotRows, 'customer:42', withOverride),
        await store.putRow(workflowId, capacityRows, 'picking|customer:42', capacity),
        await store.putRow(workflowId, auditRows, '11:customer:42|0001', audit),
      ];
      expect(await store.getRow(workflowId, slotRows, 'customer:42')).toEqual({ key: 'customer:42', value: withOverride, etag: etags[0] });
      expect(await store.getRow(workflowId, capacityRows, 'picking|customer:42')).toEqual({ key: 'picking|customer:42', value: capacity, etag: etags[1] });
      expect(await store.getRow(workflowId, auditRows, '11:customer:42|0001')).toEqual({ key: '11:customer:42|0001', value: audit, etag: etags[2] });
      expect(await store.listRows(workflowId, capacityRows, 'picking|')).toEqual([{ key: 'picking|customer:42', value: capacity, etag: etags[1] }]);
    });

    it('refuses a create-only write over a present row (ConflictError), leaving it unchanged', async () => {
      const workflowId = freshWorkflow();
      const etag = await store.putRow(workflowId, slotRows, 'k', slots(1));
      await expect(store.putRow(workflowId, slotRows, 'k', slots(3))).rejects.toBeInstanceOf(ConflictError);
      expect(await store.getRow(workflowId, slotRows, 'k')).toEqual({ key: 'k', value: slots(1), etag });
    });

    it('writes over the version read, refuses a stale or a vanished one (PreconditionFailedError), and changes the ETag on each write', async () => {
      const workflowId = freshWorkflow();
      const first = await store.putRow(workflowId, slotRows, 'k', slots(1));
      const second = await store.putRow(workflowId, slotRows, 'k', slots(2), { ifMatch: first });
      const third = await store.putRow(workflowId, slotRows, 'k', slots(2), { ifMatch: second });
      expect(new Set([first, second, third]).size).toBe(3);
      await expect(store.putRow(workflowId, slotRows, 'k', slots(0), { ifMatch: first })).rejects.toBeInstanceOf(PreconditionFailedError);
      expect((await store.getRow(workflowId, slotRows, 'k'))?.value.running).toHaveLength(2);
      expect((await store.getRow(workflowId, slotRows, 'k'))?.etag).toBe(third);
      await expect(store.putRow(workflowId, slotRows, 'never-written', slots(0), { ifMatch: third })).rejects.toBeInstanceOf(PreconditionFailedError);
      expect(await store.getRow(workflowId, slotRows, 'never-written')).toBeUndefined();
    });

    it('lets exactly one of concurrent creators, and one of concurrent writers over the same version, win', async () => {
      const workflowId = freshWorkflow();
      const created = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.putRow(workflowId, slotRows, 'race', slots(i + 1))));
      const won = created.flatMap((result, i) => (result.status === 'fulfilled' ? [{ i, etag: result.value }] : []));
      expect(won).toHaveLength(1);
      expect(created.filter((result) => result.status === 'rejected').map((result) => (result as PromiseRejectedResult).reason)).toEqual(Array.from({ length: 7 }, () => expect.any(ConflictError)));
      expect(await store.getRow(workflowId, slotRows, 'race')).toEqual({ key: 'race', value: slots(won[0]!.i + 1), etag: won[0]!.etag });

      const updated = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.putRow(workflowId, slotRows, 'race', slots(i), { ifMatch: won[0]!.etag })));
      expect(updated.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      for (const result of updated) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(PreconditionFailedError);
    });

    it("lists a kind's rows by prefix, in the table's key order, at most maxRows, never another kind's", async () => {
      const workflowId = freshWorkflow();
      // Written out of order; keys outside the id alphabet (a space, `|`, `é`) sort as the table escapes them (`~XX`), after `z`.
      for (const key of ['picking|b', 'picking|a b', 'picking|az', 'picking|a', 'picking|é', 'packing|a', 'picking|A']) await store.putRow(workflowId, capacityRows, key, capacity);
      await store.putRow(workflowId, slotRows, 'picking|zz', slots(1));
      await store.putRow(workflowId, auditRows, 'picking|a', audit);
      const listed = await store.listRows(workflowId, capacityRows, 'picking|');
      expect(listed.map((row) => row.key)).toEqual(['picking|A', 'picking|a', 'picking|az', 'picking|a b', 'picking|b', 'picking|é']);
      expect((await store.listRows(workflowId, capacityRows, 'picking|', { maxRows: 2 })).map((row) => row.key)).toEqual(['picking|A', 'picking|a']);
      expect((await store.listRows(workflowId, capacityRows, '')).map((row) => row.key)).toEqual(['packing|a', ...listed.map((row) => row.key)]);
      expect((await store.listRows(workflowId, slotRows, '')).map((row) => row.key)).toEqual(['picking|zz']);
      expect((await store.listRows(workflowId, auditRows, 'picking|')).map((row) => row.value)).toEqual([audit]);
      expect(await store.listRows(workflowId, capacityRows, 'picking|q')).toEqual([]);
    });

    it('keeps each workflow to its own rows', async () => {
      const mine = freshWorkflow();
      const theirs = freshWorkflow();
      await store.putRow(mine, slotRows, 'k', slots(1));
      expect(await store.getRow(theirs, slotRows, 'k')).toBeUndefined();
      expect(await store.listRows(theirs, slotRows, '')).toEqual([]);
      // A create-only write of the same key in another workflow is a row of its own, not a conflict.
      await store.putRow(theirs, slotRows, 'k', slots(2));
      expect((await store.getRow(mine, slotRows, 'k'))?.value.running).toHaveLength(1);
      expect((await store.getRow(theirs, slotRows, 'k'))?.value.running).toHaveLength(2);
    });

    it('reads a row missing its lists as empty lists, and keeps fields it does not know when the row is written back', async () => {
      const workflowId = freshWorkflow();
      await subject.putRaw(workflowId, 'slots|old', { limitOverride: { limit: 2, by: 'ada', at }, addedLater: { x: 1 } });
      const row = await store.getRow(workflowId, slotRows, 'old');
      expect(row?.value).toEqual({ running: [], queued: [], limitOverride: { limit: 2, by: 'ada', at }, addedLater: { x: 1 } });
      await store.putRow(workflowId, slotRows, 'old', { ...row!.value, running: slots(1).running }, { ifMatch: row!.etag });
      expect(await store.getRow(workflowId, slotRows, 'old')).toMatchObject({ value: { running: slots(1).running, addedLater: { x: 1 } } });
    });

    it('answers a malformed stored row with MalformedFlowRowError naming the row and the field, on a read and on a listing', async () => {
      const workflowId = freshWorkflow();
      await subject.putRaw(workflowId, 'slots|bad', { running: [{ id: 'h1', instanceId: 'i1', triggerId: 't1', since: at, expiresAt: 'tomorrow' }], queued: [] });
      await subject.putRaw(workflowId, 'capacity|picking|bad', { members: [], queued: [{ id: 'x', instanceId: 'b', trigger: { id: 'x' }, priority: 3, arrivedAt: at, deadline: later }] });
      await subject.putRaw(workflowId, 'audit|bad', ['not', 'an', 'entry']);
      const read = store.getRow(workflowId, slotRows, 'bad');
      await expect(read).rejects.toBeInstanceOf(MalformedFlowRowError);
      await expect(read).rejects.toThrow(/Flow row "slots\|bad" of workflow "wf-[^"]+" is malformed: not concurrency slots; running\.0\.expiresAt: /);
      await expect(store.getRow(workflowId, capacityRows, 'picking|bad')).rejects.toThrow(/"capacity\|picking\|bad".*queued\.0\.trigger: not a trigger/);
      await expect(store.listRows(workflowId, auditRows, '')).rejects.toBeInstanceOf(MalformedFlowRowError);
      await expect(store.listRows(workflowId, capacityRows, 'picking|')).rejects.toMatchObject({ rowKey: 'capacity|picking|bad', workflowId, retryable: false });
    });
  });
}
