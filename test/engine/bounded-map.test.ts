/** The one bounded map behind the process's caches: at most `capacity` entries, the least recently set or used going first. */
import { BoundedMap } from '../../src/engine/model';

describe('BoundedMap', () => {
  it('keeps at most its capacity, dropping the entry set longest ago', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });

  it('makes a key set again, or used, the newest', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 10).set('c', 3);
    expect([...map.entries()]).toEqual([
      ['a', 10],
      ['c', 3],
    ]);
    expect(map.use('a')).toBe(10);
    map.set('d', 4);
    expect([...map.keys()]).toEqual(['a', 'd']);
    expect(map.use('missing')).toBeUndefined();
  });

  it('reads without reordering', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });
});
