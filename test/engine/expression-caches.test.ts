/** The size-bounded cache behind compiled expressions and parsed templates (expression-caches.ts). */
import { SizedCache } from '../../src/engine/expressions';

describe('SizedCache', () => {
  it('evicts the oldest entries to make room, keeping the total within the budget', () => {
    const cache = new SizedCache<string>(100);
    cache.set('a', 'A', 40);
    cache.set('b', 'B', 40);
    cache.set('c', 'C', 40);
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c')]).toEqual(['B', 'C']);
    expect({ count: cache.count, bytes: cache.sizeInBytes }).toEqual({ count: 2, bytes: 80 });
  });

  it('hands back a value alone over the budget without caching it', () => {
    const cache = new SizedCache<string>(100);
    cache.set('small', 's', 10);
    expect(cache.set('huge', 'H', 101)).toBe('H');
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('small')).toBe('s');
  });

  it('keeps the first value cached for a key', () => {
    const cache = new SizedCache<string>(100);
    cache.set('k', 'first', 10);
    expect(cache.set('k', 'second', 10)).toBe('second');
    expect(cache.get('k')).toBe('first');
    expect(cache.sizeInBytes).toBe(10);
  });
});
