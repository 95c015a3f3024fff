/** Search rows kept true outside of a change (search-repair.ts), on the in-memory search index. */
import { APPLIED_LOOKUP_CLOCK_MARGIN_MS } from '../../../src/engine/runtime';
import { runLoopParts } from './parts';

describe('SearchRepair', () => {
  it('reindexes an instance under its lease (its ETag changes, no history entry), and answers false for none', async () => {
    const { searchRepair, creation, workflow, instances } = await runLoopParts();
    const created = await creation.create(workflow, { instanceId: 'i1', context: { owner: 'ann' } });
    expect(await searchRepair.reindex('i1')).toBe(true);
    const after = await instances.get('i1');
    expect(after?.etag).not.toBe(created.instance.etag);
    expect(after?.historyLength).toBe(created.instance.historyLength);
    expect(await searchRepair.reindex('nobody')).toBe(false);
  });

  it('removes the rows of an id with no instance only once they are older than the clock margin (a creation writes its rows first)', async () => {
    const parts = await runLoopParts();
    const { searchRepair, search, clock } = parts;
    await search.write('looped', 'ghost', { add: ['owner!ann'], remove: [] });
    const rows = async () => (await search.scan('looped', { from: '', to: '\uffff' })).items.filter((row) => row.instanceId === 'ghost');
    const found = await rows();
    expect(found).toHaveLength(1);
    await searchRepair.repairSearchRows('looped', found);
    expect(await rows()).toHaveLength(1);
    clock.advance(APPLIED_LOOKUP_CLOCK_MARGIN_MS + 60_000);
    await searchRepair.repairSearchRows('looped', found);
    expect(await rows()).toHaveLength(0);
  });
});
