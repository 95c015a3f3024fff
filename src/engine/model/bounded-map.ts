/**
 * @module The bounded map of every in-process cache (the engine's, the stores', the hosts'): a Map that
 * keeps at most `capacity` entries. Setting a key makes it the newest, and `use` does so for a read; past
 * the capacity the oldest goes (a Map iterates in insertion order, so the first key is the oldest).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly capacity: number) {
    super();
  }

  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    if (this.size > this.capacity) super.delete(this.keys().next().value!);
    return this;
  }

  /** The value of `key`, made the newest (least recently used goes first); `get` reads without reordering. */
  use(key: K): V | undefined {
    if (!this.has(key)) return undefined;
    const value = super.get(key)!;
    this.set(key, value);
    return value;
  }
}
