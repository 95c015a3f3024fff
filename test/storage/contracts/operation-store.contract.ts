/** The OperationStore contract, run against every implementation. */
import { onePage } from '../../../src/engine/ports';
import { SignalboxError, PreconditionFailedError } from '../../../src/engine/model';
import type { InstanceResult } from '../../../src/engine/operations';
import type { OperationStore } from '../../../src/engine/ports';
import { collect, makeOperation, withoutEtag } from '../fixtures';

async function every<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

export function operationStoreContract(label: string, create: () => Promise<OperationStore>): void {
  describe(`OperationStore contract: ${label}`, () => {
    let store: OperationStore;
    beforeAll(async () => {
      store = await create();
    });

    it('creates an operation once; a repeat returns the first with created: false', async () => {
      const first = await store.create(makeOperation('op-1'));
      expect(first.created).toBe(true);
      expect(withoutEtag(first.operation)).toEqual(makeOperation('op-1'));
      const again = await store.create(makeOperation('op-1', { status: 'running', candidates: 5 }));
      expect(again.created).toBe(false);
      expect(again.operation).toEqual(first.operation);
      expect(await store.get('op-1')).toEqual(first.operation);
    });

    it('updates, conditionally when given an ETag', async () => {
      const { operation } = await store.create(makeOperation('op-2'));
      const running = await store.update(makeOperation('op-2', { status: 'running' }), { ifMatch: operation.etag });
      expect(running.status).toBe('running');
      await expect(store.update(makeOperation('op-2', { status: 'failed' }), { ifMatch: operation.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
      const done = await store.update({ ...running, status: 'succeeded' });
      expect(await store.get('op-2')).toEqual(done);
      expect(done.status).toBe('succeeded');
    });

    it('refuses to update an operation that does not exist', async () => {
      await expect(store.update(makeOperation('op-never'))).rejects.toBeInstanceOf(SignalboxError);
      expect(await store.get('op-never')).toBeUndefined();
    });

    it('keeps 1,000 per-instance results, multi-byte characters included', async () => {
      const instances: InstanceResult[] = Array.from({ length: 1000 }, (_, i) => ({
        instanceId: `instance-with-a-longish-id-${String(i).padStart(4, '0')}`,
        outcome: i % 7 === 0 ? 'faulted' : 'transitioned',
        transitionId: 'approve',
        fromStateId: 'waiting-for-approval',
        toStateId: 'approved',
        // Multi-byte characters throughout: large bodies must survive any chunking on the way.
        ...(i % 7 === 0 && { error: `Condition 3 failed: ${'détail 😀 '.repeat(10)}` }),
        ...(i % 5 === 0 && { toStateId: `état-${'é'.repeat(i % 13)}` }),
      }));
      const operation = makeOperation('op-big', { status: 'succeeded', candidates: 1000, instances });
      await store.create(operation);
      expect(withoutEtag((await store.get('op-big'))!)).toEqual(operation);
    });

    it('fits a record that would be over 1 MiB (800 long fault messages) and says so: the operation can finish', async () => {
      const message = `Condition 3 failed: ${'a fairly ordinary but long diagnostic message, '.repeat(40)}`;
      const instances: InstanceResult[] = Array.from({ length: 800 }, (_, i) => ({ instanceId: `instance-${i}`, outcome: 'faulted', error: message }));
      const summary = { ...makeOperation('x').summary, faulted: 800 };
      const { operation } = await store.create(makeOperation('op-huge'));
      const done = await store.update({ ...operation, status: 'succeeded', candidates: 800, summary, instances });
      const stored = (await store.get('op-huge'))!;
      expect(stored).toEqual(done);
      expect(stored).toMatchObject({ status: 'succeeded', candidates: 800, summary: { faulted: 800 }, instancesTruncated: true });
      expect(stored.instances.length).toBeGreaterThan(100);
      expect(stored.instances.length).toBeLessThan(800);
      expect(stored.instances[0]).toMatchObject({ instanceId: 'instance-0', outcome: 'faulted', error: expect.stringMatching(/^Condition 3 failed: .*… \(truncated\)$/) });
      expect(stored.instances[0]!.error!.length).toBeLessThanOrEqual(500);
    });

    it('keeps the traces of the first 100 results only, and of those no more than fit, and says so', async () => {
      // 40 conditions of ~120 characters each: ~5 KB of trace per result, so 100 of them would pass 160,000.
      const trace = Array.from({ length: 40 }, (_, i) => ({
        path: `states.draft.transitions[${i}].conditions[0]`,
        type: 'expression',
        result: false as const,
        detail: `context.amount > ${i} → false`,
      }));
      const instances: InstanceResult[] = Array.from({ length: 300 }, (_, i) => ({ instanceId: `traced-${i}`, outcome: 'noTransition', fromStateId: 'draft', trace }));
      const summary = { ...makeOperation('x').summary, noTransition: 300 };
      const { operation } = await store.create(makeOperation('op-traced'));
      await store.update({ ...operation, status: 'succeeded', candidates: 300, summary, instances });
      const stored = (await store.get('op-traced'))!;
      expect(stored.instances).toHaveLength(300);
      expect(stored.instancesTruncated).toBeUndefined();
      expect(stored.tracesTruncated).toBe(true);
      const traced = stored.instances.filter((result) => result.trace);
      expect(traced.length).toBeGreaterThan(10);
      expect(traced.length).toBeLessThan(100);
      expect(stored.instances[0]!.trace).toEqual(trace);
      expect(stored.instances.slice(traced.length).every((result) => result.trace === undefined && result.outcome === 'noTransition')).toBe(true);
    });

    it('keeps every trace of a small operation and says nothing', async () => {
      const trace = [{ path: 'states.draft.transitions[0].conditions[0]', type: 'triggerName', result: false as const }];
      const instances: InstanceResult[] = [{ instanceId: 'one', outcome: 'noTransition', fromStateId: 'draft', trace }];
      const { operation } = await store.create(makeOperation('op-small-trace'));
      await store.update({ ...operation, status: 'succeeded', candidates: 1, summary: { ...operation.summary, noTransition: 1 }, instances });
      const stored = (await store.get('op-small-trace'))!;
      expect(stored.instances).toEqual(instances);
      expect(stored.tracesTruncated).toBeUndefined();
    });

    it('lists operations by status, paged', async () => {
      const fresh = await create();
      const statuses = ['notStarted', 'running', 'succeeded', 'running', 'failed', 'notStarted', 'running'] as const;
      await Promise.all(statuses.map((status, i) => fresh.create(makeOperation(`ls-${i}`, { status }))));
      const ids = async (wanted: Parameters<OperationStore['listByStatus']>[0]): Promise<string[]> =>
        (await collect((options) => onePage(fresh.listByStatus(wanted, options)), 2)).items.map((item) => item.id).sort();
      expect(await ids(['running'])).toEqual(['ls-1', 'ls-3', 'ls-6']);
      expect(await ids(['notStarted', 'running'])).toEqual(['ls-0', 'ls-1', 'ls-3', 'ls-5', 'ls-6']);
      expect(await ids([])).toEqual([]);
    });

    it('lists operations newest first without their results, filtered by kind, status, workflow and creation time, paged', async () => {
      // In 2030, so the time range leaves out the other tests' operations (2026).
      const at = (minute: number) => `2030-05-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
      const results: InstanceResult[] = [{ instanceId: 'i1', outcome: 'transitioned' }];
      const base = { status: 'notStarted' as const, candidates: 0, summary: {}, instances: [] };
      await store.create(makeOperation('nl-trigger-1', { createdAt: at(1), updatedAt: at(1), trigger: { id: 'nl-trigger-1', name: 'Approve', subjects: ['c-1'], parameters: { note: 'é' } } }));
      await store.create({ ...base, id: 'nl-migration', kind: 'migration', createdAt: at(2), updatedAt: at(2), migration: { workflowId: 'claim', fromVersion: 1, toVersion: 2, stateMap: {} } });
      await store.create({ ...base, id: 'nl-bulk', kind: 'bulk', createdAt: at(3), updatedAt: at(3), bulk: { action: 'cancel', filter: { workflowId: 'claim', stateId: 'draft' } } });
      const trigger2 = await store.create(makeOperation('nl-trigger-2', { createdAt: at(4), updatedAt: at(4) }));
      // Finishing it is seen by the list: status, summary, candidates.
      await store.update(makeOperation('nl-trigger-2', { createdAt: at(4), updatedAt: at(5), status: 'succeeded', candidates: 1, summary: { transitioned: 1 }, instances: results }));
      expect(trigger2.created).toBe(true);
      const range = { createdSince: at(0), createdBefore: '2030-05-02T00:00:00.000Z' };
      const listAll = async (query: Parameters<OperationStore['list']>[0], maxPageSize = 100) => (await collect((options) => onePage(store.list({ ...range, ...query }, options)), maxPageSize)).items;
      const ids = async (query: Parameters<OperationStore['list']>[0], maxPageSize?: number) => (await listAll(query, maxPageSize)).map((item) => item.id);

      expect(await ids({})).toEqual(['nl-trigger-2', 'nl-bulk', 'nl-migration', 'nl-trigger-1']);
      expect(await ids({}, 1)).toEqual(['nl-trigger-2', 'nl-bulk', 'nl-migration', 'nl-trigger-1']);
      const first = await onePage(store.list(range, { maxPageSize: 2 }));
      expect(first.items.map((item) => item.id)).toEqual(['nl-trigger-2', 'nl-bulk']);
      expect(first.continuationToken).toBeDefined();
      const listed = first.items[0]!;
      expect(listed).toMatchObject({ id: 'nl-trigger-2', status: 'succeeded', candidates: 1, summary: { transitioned: 1 } });
      expect('instances' in listed).toBe(false);
      expect(await ids({ kind: 'trigger' })).toEqual(['nl-trigger-2', 'nl-trigger-1']);
      expect(await ids({ kind: 'bulk' })).toEqual(['nl-bulk']);
      expect(await ids({ status: 'succeeded' })).toEqual(['nl-trigger-2']);
      expect(await ids({ workflowId: 'claim' })).toEqual(['nl-bulk', 'nl-migration']);
      expect(await ids({ createdSince: at(2), createdBefore: at(4) })).toEqual(['nl-bulk', 'nl-migration']);
      const oldest = (await listAll({ kind: 'trigger', status: 'notStarted' }))[0];
      expect(oldest).toMatchObject({ id: 'nl-trigger-1', trigger: { name: 'Approve', parameters: { note: 'é' } } });
    });

    it("keeps each instance's result in its own row: written again it replaces the first, listed by instance id, paged", async () => {
      await store.create(makeOperation('op-results', { status: 'running' }));
      const trace = [{ path: 'states.a.transitions[0].conditions[0]', type: 'triggerName', result: true }] as InstanceResult['trace'];
      await store.putResult('op-results', { instanceId: 'b', outcome: 'transitioned', transitionId: 'go', fromStateId: 'a', toStateId: 'b', trace });
      await store.putResult('op-results', { instanceId: 'a/é 😀', outcome: 'faulted', error: `Condition failed: ${'détail '.repeat(200)}` });
      await store.putResult('op-results', { instanceId: 'c', outcome: 'noTransition' });
      // A retried application writes its row again (with what the instance recorded: no trace this time).
      await store.putResult('op-results', { instanceId: 'b', outcome: 'transitioned', transitionId: 'go', fromStateId: 'a', toStateId: 'b' });

      // With keepExisting, a row already there stays as it is.
      await store.putResult('op-results', { instanceId: 'c', outcome: 'transitioned' }, { keepExisting: true });
      const all = await every(store.listResults('op-results', { maxPageSize: 2 }));
      expect(all.map((result) => result.instanceId)).toEqual(['a/é 😀', 'b', 'c']);
      expect(all[0]!.error!.length).toBeLessThanOrEqual(500);
      expect(all[0]!.error).toMatch(/^Condition failed: détail/);
      expect(all[1]).toEqual({ instanceId: 'b', outcome: 'transitioned', transitionId: 'go', fromStateId: 'a', toStateId: 'b' });
      expect(all[2]).toEqual({ instanceId: 'c', outcome: 'noTransition' });
      const first = await onePage(store.listResults('op-results', { maxPageSize: 2 }));
      expect(first.items).toHaveLength(2);
      expect(first.continuationToken).toBeDefined();
      // Results are not on the record, nor in the list of operations.
      expect((await store.get('op-results'))!.instances).toEqual([]);
      expect(await every(store.listResults('op-without-results'))).toEqual([]);
    });

    it('deletes the results with the operation (retention)', async () => {
      await store.create(makeOperation('op-purged', { status: 'succeeded' }));
      for (let i = 0; i < 150; i += 1) await store.putResult('op-purged', { instanceId: `i${String(i).padStart(3, '0')}`, outcome: 'transitioned' });
      await store.putResult('op-kept', { instanceId: 'x', outcome: 'transitioned' });
      expect(await every(store.listResults('op-purged'))).toHaveLength(150);

      await store.delete('op-purged');

      expect(await store.get('op-purged')).toBeUndefined();
      expect(await every(store.listResults('op-purged'))).toEqual([]);
      expect(await every(store.listResults('op-kept'))).toHaveLength(1);
    });

    it('lists operations by status changed before a time, and deletes one (absent is fine)', async () => {
      const fresh = await create();
      await fresh.create(makeOperation('old-done', { status: 'succeeded', updatedAt: '2026-01-01T00:00:00.000Z' }));
      await fresh.create(makeOperation('new-done', { status: 'succeeded', updatedAt: '2026-03-01T00:00:00.000Z' }));
      await fresh.create(makeOperation('old-failed', { status: 'failed', updatedAt: '2026-01-02T00:00:00.000Z' }));
      await fresh.create(makeOperation('old-running', { status: 'running', updatedAt: '2026-01-01T00:00:00.000Z' }));
      const ids = async (): Promise<string[]> =>
        (await collect((options) => onePage(fresh.listByStatus(['succeeded', 'failed'], { ...options, updatedBefore: '2026-02-01T00:00:00.000Z' })), 1)).items.map((item) => item.id).sort();
      expect(await ids()).toEqual(['old-done', 'old-failed']);
      await fresh.delete('old-done');
      await fresh.delete('old-done');
      expect(await fresh.get('old-done')).toBeUndefined();
      expect(await ids()).toEqual(['old-failed']);
      // A purged operation is no longer listed either.
      const listed = (await collect((options) => onePage(fresh.list({ createdSince: '2000-01-01T00:00:00.000Z' }, options)), 100)).items.map((item) => item.id);
      expect(listed).not.toContain('old-done');
      expect(listed).toContain('old-failed');
    });
  });
}
