/** The SearchIndexStore contract, run against every implementation. */
import type { SearchIndexStore } from '../../../src/engine/search';

export function searchIndexContract(label: string, create: () => Promise<SearchIndexStore>): void {
  describe(`SearchIndexStore contract: ${label}`, () => {
    let index: SearchIndexStore;
    beforeAll(async () => {
      index = await create();
    });

    const entriesOf = async (workflowId: string) => (await index.scan(workflowId, { from: 'amount!', to: 'amount"' }, { maxPageSize: 100 })).items;

    it('removeUnchanged removes a row only if nothing wrote it since it was read, and absorbs a row already gone', async () => {
      await index.write('orders-etag', 'ghost', { add: ['amount!n01', 'amount!n02', 'amount!n03'], remove: [], incarnation: 'crashed' });
      const read = await entriesOf('orders-etag');
      expect(read.map((row) => row.entry)).toEqual(['amount!n01', 'amount!n02', 'amount!n03']);
      expect(read.every((row) => typeof row.etag === 'string' && row.etag.length > 0)).toBe(true);
      // A new creation with the id rewrites one row; another row is removed by someone else.
      await index.write('orders-etag', 'ghost', { add: ['amount!n02'], remove: ['amount!n03'], incarnation: 'new' });
      await index.removeUnchanged(
        'orders-etag',
        'ghost',
        read.map(({ entry, etag }) => ({ entry, etag: etag! })),
      );
      expect((await entriesOf('orders-etag')).map((row) => [row.entry, row.incarnation])).toEqual([['amount!n02', 'new']]);
    });
  });
}
