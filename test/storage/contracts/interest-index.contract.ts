/** The InterestIndex contract, run against every implementation. */
import { onePage } from '../../../src/engine/ports';
import type { InterestIndex } from '../../../src/engine/ports';
import { collect } from '../fixtures';

export function interestIndexContract(label: string, create: () => Promise<InterestIndex>): void {
  describe(`InterestIndex contract: ${label}`, () => {
    let index: InterestIndex;
    beforeAll(async () => {
      index = await create();
    });

    const all = async (subjects: string[], pageSize = 1000): Promise<string[]> => (await collect((options) => onePage(index.findCandidates(subjects, options)), pageSize)).items;

    it('finds an instance by any of its subjects, and no longer after removal', async () => {
      await index.add('inst-1', ['customer:1', 'order:9', 'inst-1']);
      expect(await all(['order:9'])).toEqual(['inst-1']);
      expect(await all(['nothing', 'customer:1'])).toEqual(['inst-1']);
      await index.remove('inst-1', ['order:9']);
      expect(await all(['order:9'])).toEqual([]);
      expect(await all(['customer:1'])).toEqual(['inst-1']);
    });

    it('is idempotent: adding twice lists once, removing what is absent is fine', async () => {
      await index.add('inst-2', ['twice']);
      await index.add('inst-2', ['twice', 'twice']);
      expect(await all(['twice'])).toEqual(['inst-2']);
      await index.remove('inst-2', ['twice', 'never-added']);
      await index.remove('inst-2', ['twice']);
      expect(await all(['twice'])).toEqual([]);
    });

    it('returns an instance once per page when it matches several subjects', async () => {
      await index.add('inst-3', ['red', 'green', 'blue']);
      await index.add('inst-4', ['green']);
      const page = await onePage(index.findCandidates(['red', 'green', 'blue', 'red'], { maxPageSize: 100 }));
      expect(page.continuationToken).toBeUndefined();
      expect([...page.items].sort()).toEqual(['inst-3', 'inst-4']);
    });

    it('pages through many candidates across subjects without losing any', async () => {
      const a = Array.from({ length: 23 }, (_, i) => `pa-${String(i).padStart(2, '0')}`);
      const b = Array.from({ length: 9 }, (_, i) => `pb-${i}`);
      await Promise.all(a.map((id) => index.add(id, ['paged-a'])));
      await Promise.all(b.map((id) => index.add(id, ['paged-b'])));
      const found = await all(['paged-a', 'paged-b', 'paged-none'], 5);
      expect(new Set(found)).toEqual(new Set([...a, ...b]));
      expect(found).toHaveLength(a.length + b.length);
    });

    it('returns an empty last page when nothing matches', async () => {
      expect(await onePage(index.findCandidates(['no-such-subject']))).toEqual({ items: [] });
    });
  });
}
