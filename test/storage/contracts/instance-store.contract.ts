/** The InstanceStore + HistoryStore contract, run against every implementation. */
import { onePage } from '../../../src/engine/ports';
import { ConflictError, CreationFencedError, PreconditionFailedError, TooLargeError } from '../../../src/engine/model';
import type { HistoryStore, InstanceStore, OutboxStore } from '../../../src/engine/ports';
import { collect, makeHistoryEntry, makeInstance, withoutEtag } from '../fixtures';

export interface InstanceStores {
  readonly instances: InstanceStore;
  readonly history: HistoryStore;
}

/**
 * The instance limit the contract's stores are made with (their `maxInstanceBytes`): small, so the test
 * of the limit stays quick, and above an entity's 1 MiB, so a record between the two must be kept whole
 * (on Table Storage, in a blob).
 */
export const CONTRACT_MAX_INSTANCE_BYTES = 2 * 1024 * 1024;

/** `create` returns fresh, empty stores each time, made with CONTRACT_MAX_INSTANCE_BYTES. */
export function instanceStoreContract(label: string, create: () => Promise<InstanceStores>): void {
  describe(`InstanceStore and HistoryStore contract: ${label}`, () => {
    let instances: InstanceStore;
    let history: HistoryStore;
    beforeAll(async () => {
      ({ instances, history } = await create());
    });

    it('creates an instance with its first history entry and reads both back', async () => {
      const instance = makeInstance('i-create', {
        context: { nested: { list: [1, 'two', null, true] }, text: 'ünïcødé 😀' },
        outbox: ['raised-1'],
        appliedTriggers: [{ triggerId: 't0', outcome: 'faulted', transitionId: 'x', error: 'e' }],
        fault: { message: 'boom', triggerId: null, at: '2026-01-01T00:00:00.000Z' },
        historyLength: 1,
      });
      const stored = await instances.create(instance, { history: [makeHistoryEntry(0)] });
      expect(stored.etag).toEqual(expect.any(String));
      expect(withoutEtag(stored)).toEqual(instance);
      expect(await instances.get('i-create')).toEqual(stored);
      expect((await onePage(history.list('i-create'))).items).toEqual([makeHistoryEntry(0)]);
    });

    it('purges an instance: every history entry (over several transactions), outbox row, applied-trigger row and its offers, then the instance; absent is fine', async () => {
      const entries = Array.from({ length: 150 }, (_, sequence) => makeHistoryEntry(sequence));
      let stored = await instances.create(makeInstance('i-purge', { historyLength: 1 }), { history: entries.slice(0, 1) });
      stored = await instances.save(makeInstance('i-purge', { historyLength: 90 }), { history: entries.slice(1, 90) }, { ifMatch: stored.etag });
      const outboxRow = { id: 'row-1', kind: 'trigger' as const, payload: { id: 'row-1', name: 'Raised', subjects: ['x'] } };
      const applied = { triggerId: 'applied-1', outcome: 'transitioned' as const, transitionId: 'go' };
      await instances.save(makeInstance('i-purge', { historyLength: 150, outbox: ['row-1'] }), { history: entries.slice(90), outbox: [outboxRow], applied: [applied] }, { ifMatch: stored.etag });
      await instances.recordOffer?.('i-purge', { operationId: 'offered-1', triggerName: 'Nothing', at: '2026-01-01T00:00:00.000Z', outcome: 'noTransition' });
      const outbox = instances as unknown as OutboxStore;
      expect(await outbox.listOutbox('i-purge')).toHaveLength(1);
      expect(await instances.getApplied('i-purge', 'applied-1')).toEqual(applied);
      if (instances.listOffers) expect(await instances.listOffers('i-purge')).toHaveLength(1);
      await instances.create(makeInstance('i-neighbour', { historyLength: 1 }), { history: [makeHistoryEntry(0)] });

      await instances.purge('i-purge');

      expect(await instances.get('i-purge')).toBeUndefined();
      expect((await onePage(history.list('i-purge'))).items).toEqual([]);
      expect(await outbox.listOutbox('i-purge')).toEqual([]);
      // Nothing a new incarnation with the id could find: its applied-trigger rows (`a-`) and recent offers go too.
      expect(await instances.getApplied('i-purge', 'applied-1')).toBeUndefined();
      if (instances.listOffers) expect(await instances.listOffers('i-purge')).toEqual([]);
      expect(await instances.get('i-neighbour')).toBeDefined();
      await instances.purge('i-purge');
      await instances.purge('i-never');
    });

    it('never overwrites on create: a duplicate id is a ConflictError and the original stays', async () => {
      const original = await instances.create(makeInstance('i-dup', { context: { v: 'original' }, historyLength: 1 }), { history: [makeHistoryEntry(0)] });
      await expect(instances.create(makeInstance('i-dup', { context: { v: 'second' } }), { history: [makeHistoryEntry(0, { toStateId: 'x' })] })).rejects.toBeInstanceOf(ConflictError);
      expect(await instances.get('i-dup')).toEqual(original);
      expect((await onePage(history.list('i-dup'))).items).toEqual([makeHistoryEntry(0)]);
    });

    it('fences a creation by its claim token: fenced first, the creation fails and writes nothing; created first, the fence says so', async () => {
      expect(await instances.fenceCreation('i-fenced', 'token-a')).toBe(true);
      const fenced = instances.create(makeInstance('i-fenced', { historyLength: 1 }), { history: [makeHistoryEntry(0)], fences: ['token-b', 'token-a'] });
      await expect(fenced).rejects.toBeInstanceOf(CreationFencedError);
      expect(await instances.get('i-fenced')).toBeUndefined();
      expect((await onePage(history.list('i-fenced'))).items).toEqual([]);
      // Another creation with the id, under a token nobody fenced, is not held back by the old fence.
      await instances.create(makeInstance('i-fenced', { historyLength: 1 }), { history: [makeHistoryEntry(0)], fences: ['token-c'] });
      expect(await instances.fenceCreation('i-fenced', 'token-c')).toBe(false);
      expect(await instances.fenceCreation('i-fenced', 'token-c')).toBe(false);
      // A duplicate id stays a plain ConflictError, fences or not.
      const duplicate = instances.create(makeInstance('i-fenced'), { fences: ['token-d'] });
      await expect(duplicate).rejects.toBeInstanceOf(ConflictError);
      await expect(duplicate).rejects.not.toBeInstanceOf(CreationFencedError);
      // Purged with the instance: a later incarnation starts with no fences.
      await instances.purge('i-fenced');
      expect(await instances.fenceCreation('i-fenced', 'token-c')).toBe(true);
    });

    it('saves conditionally on the ETag, appending history with the instance', async () => {
      const created = await instances.create(makeInstance('i-save', { historyLength: 1 }), { history: [makeHistoryEntry(0)] });
      const next = makeInstance('i-save', { context: { count: 1 }, stateId: 'closed', status: 'complete', historyLength: 3 });
      const saved = await instances.save(next, { history: [makeHistoryEntry(1), makeHistoryEntry(2)] }, { ifMatch: created.etag });
      expect(saved.etag).not.toBe(created.etag);
      expect(withoutEtag(saved)).toEqual(next);
      expect(await instances.get('i-save')).toEqual(saved);
      expect((await onePage(history.list('i-save'))).items.map((entry) => entry.sequence)).toEqual([0, 1, 2]);
    });

    it('does not store the ETag of a StoredInstance passed back to save', async () => {
      const created = await instances.create(makeInstance('i-roundtrip'));
      const saved = await instances.save({ ...created, context: { count: 5 } }, {}, { ifMatch: created.etag });
      const read = await instances.get('i-roundtrip');
      expect(read?.etag).toBe(saved.etag);
      expect(read?.context).toEqual({ count: 5 });
    });

    it('refuses a stale ETag and writes nothing: neither the instance nor its history', async () => {
      const created = await instances.create(makeInstance('i-stale', { historyLength: 1 }), { history: [makeHistoryEntry(0)] });
      const winner = await instances.save(makeInstance('i-stale', { context: { count: 1 }, historyLength: 2 }), { history: [makeHistoryEntry(1)] }, { ifMatch: created.etag });
      await expect(
        instances.save(
          makeInstance('i-stale', { context: { count: 99 }, historyLength: 3 }),
          { history: [makeHistoryEntry(1, { triggerId: 'loser' }), makeHistoryEntry(2)] },
          { ifMatch: created.etag },
        ),
      ).rejects.toBeInstanceOf(PreconditionFailedError);
      expect(await instances.get('i-stale')).toEqual(winner);
      expect((await onePage(history.list('i-stale'))).items).toEqual([makeHistoryEntry(0), makeHistoryEntry(1)]);
    });

    it('lets exactly one of two racing saves on the same ETag win', async () => {
      const created = await instances.create(makeInstance('i-race'));
      const results = await Promise.allSettled(
        [1, 2].map((count) =>
          instances.save(makeInstance('i-race', { context: { count }, historyLength: 1 }), { history: [makeHistoryEntry(0, { triggerId: `w${count}` })] }, { ifMatch: created.etag }),
        ),
      );
      const won = results.filter((result): result is PromiseFulfilledResult<Awaited<ReturnType<InstanceStore['save']>>> => result.status === 'fulfilled');
      expect(won).toHaveLength(1);
      expect((results.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(PreconditionFailedError);
      const entries = (await onePage(history.list('i-race'))).items;
      expect(entries).toHaveLength(1);
      expect(entries[0]?.triggerId).toBe(`w${(await instances.get('i-race'))?.context.count}`);
    });

    it('refuses to save an instance that does not exist: its precondition fails', async () => {
      // A real ETag, of another instance: well-formed, but not this (absent) one's.
      const other = await instances.create(makeInstance('i-other'));
      await expect(instances.save(makeInstance('i-never'), {}, { ifMatch: other.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
      await expect(instances.save(makeInstance('i-never'), { history: [makeHistoryEntry(0)] }, { ifMatch: '*' })).rejects.toBeInstanceOf(PreconditionFailedError);
      expect(await instances.get('i-never')).toBeUndefined();
    });

    it('returns undefined for a missing instance and an empty history for it', async () => {
      expect(await instances.get('i-missing')).toBeUndefined();
      expect(await onePage(history.list('i-missing'))).toEqual({ items: [] });
    });

    it('pages history oldest first', async () => {
      const entries = Array.from({ length: 25 }, (_, sequence) => makeHistoryEntry(sequence));
      const created = await instances.create(makeInstance('i-history', { historyLength: 10 }), { history: entries.slice(0, 10) });
      await instances.save(makeInstance('i-history', { historyLength: 25 }), { history: entries.slice(10) }, { ifMatch: created.etag });
      const { items, pages } = await collect((options) => onePage(history.list('i-history', options)), 7);
      expect(pages).toBe(4);
      expect(items).toEqual(entries);
      const recent = await collect((options) => onePage(history.list('i-history', { ...options, fromSequence: 12 })), 5);
      expect(recent.items).toEqual(entries.slice(12));
      expect(recent.pages).toBe(3);
    });

    it('keeps a large instance (300,000 characters of context) whole', async () => {
      const big = makeInstance('i-big', { context: { blob: 'x'.repeat(150_000), unicode: '😀é'.repeat(50_000) } });
      const stored = await instances.create(big);
      expect(withoutEtag((await instances.get('i-big'))!)).toEqual(big);
      const bigger = makeInstance('i-big', { context: { blob: 'y'.repeat(200_000) } });
      await instances.save(bigger, {}, { ifMatch: stored.etag });
      expect((await instances.get('i-big'))?.context).toEqual(bigger.context);
      // And back to small: no stale parts of the large body may survive.
      const small = await instances.get('i-big');
      await instances.save(makeInstance('i-big', { context: { small: true } }), {}, { ifMatch: small!.etag });
      expect((await instances.get('i-big'))?.context).toEqual({ small: true });
    });

    it('keeps an instance larger than an entity (1 MiB) whole, up to its limit', async () => {
      const large = makeInstance('i-over-entity', { context: { blob: 'w'.repeat(1_100_000), unicode: '😀é'.repeat(20_000) } });
      const stored = await instances.create(large);
      expect(withoutEtag((await instances.get('i-over-entity'))!)).toEqual(large);
      const larger = makeInstance('i-over-entity', { context: { blob: 'v'.repeat(1_500_000) } });
      const saved = await instances.save(larger, {}, { ifMatch: stored.etag });
      expect(await instances.get('i-over-entity')).toEqual(saved);
      await expect(instances.save(makeInstance('i-over-entity'), {}, { ifMatch: stored.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
    });

    it('refuses an instance over its limit with TooLargeError naming the size and the setting, keeping the stored one', async () => {
      const stored = await instances.create(makeInstance('i-huge'));
      const over = 'z'.repeat(CONTRACT_MAX_INSTANCE_BYTES);
      await expect(instances.create(makeInstance('i-huge-new', { context: { blob: over } }))).rejects.toThrow(/is \d+ bytes as JSON, larger than 2 MiB.*SIGNALBOX_MAX_INSTANCE_MB/);
      await expect(instances.create(makeInstance('i-huge-new', { context: { blob: over } }))).rejects.toBeInstanceOf(TooLargeError);
      await expect(instances.save(makeInstance('i-huge', { context: { blob: over } }), {}, { ifMatch: stored.etag })).rejects.toBeInstanceOf(TooLargeError);
      expect(await instances.get('i-huge')).toEqual(stored);
      expect(await instances.get('i-huge-new')).toBeUndefined();
    });

    it('queries by workflow, state and status, paged', async () => {
      const fresh = await create();
      const specs = [
        ['q1', 'wf-a', 'open', 'waiting'],
        ['q2', 'wf-a', 'open', 'waiting'],
        ['q3', 'wf-a', 'closed', 'complete'],
        ['q4', 'wf-b', 'open', 'waiting'],
        ['q5', 'wf-a', 'open', 'faulted'],
      ] as const;
      for (const [id, workflowId, stateId, status] of specs) {
        await fresh.instances.create(makeInstance(id, { workflowId, stateId, status }), { history: [makeHistoryEntry(0)] });
      }
      const ids = async (query: Parameters<InstanceStore['query']>[0]): Promise<string[]> =>
        (await collect((options) => onePage(fresh.instances.query(query, options)), 2)).items.map((item) => item.id).sort();
      expect(await ids({})).toEqual(['q1', 'q2', 'q3', 'q4', 'q5']);
      expect(await ids({ workflowId: 'wf-a' })).toEqual(['q1', 'q2', 'q3', 'q5']);
      expect(await ids({ workflowId: 'wf-a', stateId: 'open' })).toEqual(['q1', 'q2', 'q5']);
      expect(await ids({ workflowId: 'wf-a', stateId: 'open', status: 'waiting' })).toEqual(['q1', 'q2']);
      expect(await ids({ status: 'complete' })).toEqual(['q3']);
      expect(await ids({ workflowId: "it's-not-there" })).toEqual([]);
      const page = await onePage(fresh.instances.query({ workflowId: 'wf-a' }, { maxPageSize: 10 }));
      expect(page.items.every((item) => typeof item.etag === 'string')).toBe(true);
    });

    it('answers the ids of what a query matches, paged, without the records (queryIds)', async () => {
      const fresh = await create();
      for (const [id, status] of [
        ['x1', 'waiting'],
        ['x2', 'complete'],
        ['x3', 'waiting'],
      ] as const) {
        await fresh.instances.create(makeInstance(id, { status, context: id === 'x3' ? { blob: 'b'.repeat(1_100_000) } : {} }));
      }
      const queryIds = fresh.instances.queryIds!.bind(fresh.instances);
      const ids = async (query: Parameters<InstanceStore['query']>[0]) => (await collect((options) => onePage(queryIds(query, options)), 1)).items.sort();
      expect(await ids({})).toEqual(['x1', 'x2', 'x3']);
      expect(await ids({ status: 'waiting' })).toEqual(['x1', 'x3']);
      expect(await ids({ workflowId: 'nowhere' })).toEqual([]);
    });
  });
}
