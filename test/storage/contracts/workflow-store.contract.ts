/** The WorkflowStore contract, run against every implementation. */
import { onePage } from '../../../src/engine/ports';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '../../../src/engine/model';
import type { WorkflowStore } from '../../../src/engine/ports';
import { collect, makeDefinition } from '../fixtures';

/** `create` returns a fresh, empty store each time. */
/** The creation time a caller (the engine's clock) hands the store. */
const createdAt = new Date('2026-11-20T16:00:00.000Z');

export function workflowStoreContract(label: string, create: () => Promise<WorkflowStore>): void {
  describe(`WorkflowStore contract: ${label}`, () => {
    let store: WorkflowStore;
    beforeAll(async () => {
      store = await create();
    });

    it('creates version 1 and reads it back as the latest and by number', async () => {
      const definition = makeDefinition('create-read');
      const created = await store.create(definition, { createdAt });
      expect(created).toMatchObject({ version: 1, definition, createdAt: createdAt.toISOString() });
      expect(created.etag).toEqual(expect.any(String));
      expect(await store.get('create-read')).toEqual(created);
      expect((await store.get('create-read', { version: 1 }))?.definition).toEqual(definition);
    });

    it('deletes every version; the id can then be created anew as version 1; absent is fine', async () => {
      const v1 = await store.create(makeDefinition('doomed', 'One'), { createdAt });
      await store.update(makeDefinition('doomed', 'Two'), { ifMatch: v1.etag, createdAt });
      await store.create(makeDefinition('survivor'), { createdAt });

      await store.delete('doomed');

      expect(await store.get('doomed')).toBeUndefined();
      expect(await store.get('doomed', { version: 1 })).toBeUndefined();
      expect(await store.get('doomed', { version: 2 })).toBeUndefined();
      expect((await collect((page) => onePage(store.list(page)), 100)).items.map((summary) => summary.id)).not.toContain('doomed');
      expect(await store.get('survivor')).toBeDefined();
      expect((await store.create(makeDefinition('doomed', 'Again'), { createdAt })).version).toBe(1);
      await store.delete('never-was');
    });

    it('refuses to create an id that exists, leaving it unchanged', async () => {
      const first = await store.create(makeDefinition('dup', 'First'), { createdAt });
      await expect(store.create(makeDefinition('dup', 'Second'), { createdAt })).rejects.toBeInstanceOf(ConflictError);
      expect(await store.get('dup')).toEqual(first);
    });

    it('adds versions on update and keeps every earlier version unchanged', async () => {
      const v1 = await store.create(makeDefinition('versions', 'One'), { createdAt });
      const v2 = await store.update(makeDefinition('versions', 'Two'), { ifMatch: v1.etag, createdAt });
      expect(v2.version).toBe(2);
      expect(v2.etag).not.toBe(v1.etag);
      const v3 = await store.update(makeDefinition('versions', 'Three'), { ifMatch: '*', createdAt });
      expect(v3.version).toBe(3);
      expect((await store.get('versions'))?.definition.displayName).toBe('Three');
      expect((await store.get('versions', { version: 1 }))?.definition.displayName).toBe('One');
      expect((await store.get('versions', { version: 2 }))?.definition.displayName).toBe('Two');
      expect(await store.get('versions', { version: 4 })).toBeUndefined();
    });

    it('refuses an update with a stale ETag (no version is added)', async () => {
      const v1 = await store.create(makeDefinition('stale'), { createdAt });
      await store.update(makeDefinition('stale', 'B'), { ifMatch: v1.etag, createdAt });
      await expect(store.update(makeDefinition('stale', 'C'), { ifMatch: v1.etag, createdAt })).rejects.toBeInstanceOf(PreconditionFailedError);
      expect((await store.get('stale'))?.version).toBe(2);
    });

    it('gives exactly one winner when two updates race on the same ETag', async () => {
      const v1 = await store.create(makeDefinition('race'), { createdAt });
      const results = await Promise.allSettled([
        store.update(makeDefinition('race', 'A'), { ifMatch: v1.etag, createdAt }),
        store.update(makeDefinition('race', 'B'), { ifMatch: v1.etag, createdAt }),
      ]);
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toBeInstanceOf(PreconditionFailedError);
      expect((await store.get('race'))?.version).toBe(2);
    });

    it('reports a missing workflow on update and as undefined on get', async () => {
      await expect(store.update(makeDefinition('missing'), { ifMatch: '*', createdAt })).rejects.toBeInstanceOf(NotFoundError);
      expect(await store.get('missing')).toBeUndefined();
    });

    it('lists the latest version of every workflow across pages, each once', async () => {
      const fresh = await create();
      for (const id of ['l1', 'l2', 'l3', 'l4', 'l5']) await fresh.create(makeDefinition(id, `Name ${id}`), { createdAt });
      await fresh.update(makeDefinition('l3', 'Renamed'), { ifMatch: '*', createdAt });
      const { items, pages } = await collect((options) => onePage(fresh.list(options)), 2);
      expect(pages).toBe(3);
      expect(items.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: 'l1', displayName: 'Name l1', version: 1 },
        { id: 'l2', displayName: 'Name l2', version: 1 },
        { id: 'l3', displayName: 'Renamed', version: 2 },
        { id: 'l4', displayName: 'Name l4', version: 1 },
        { id: 'l5', displayName: 'Name l5', version: 1 },
      ]);
      // The same list as the Azure SDKs give it: items with `for await`, pages with `byPage`, resumable by token.
      const ids: string[] = [];
      for await (const summary of fresh.list({ maxPageSize: 2 })) ids.push(summary.id);
      expect(ids.sort()).toEqual(['l1', 'l2', 'l3', 'l4', 'l5']);
      const pageSizes: number[] = [];
      let token: string | undefined;
      for await (const page of fresh.list().byPage({ maxPageSize: 2 })) {
        pageSizes.push(page.items.length);
        token ??= page.continuationToken;
      }
      expect(pageSizes).toEqual([2, 2, 1]);
      const resumed: string[] = [];
      for await (const page of fresh.list().byPage({ continuationToken: token!, maxPageSize: 2 })) resumed.push(...page.items.map((summary) => summary.id));
      expect(resumed).toHaveLength(3);
    });

    it('refuses a continuation token it did not issue', async () => {
      await expect(onePage(store.list({ continuationToken: 'not-a-token' }))).rejects.toBeInstanceOf(ValidationError);
    });
  });
}
