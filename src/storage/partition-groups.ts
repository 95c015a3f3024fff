/**
 * @module Group commit per partition, the queueing both grouped writers share (grouped-upserts.ts,
 * grouped-row-changes.ts): items added in the same turn of the event loop go out together, and items that
 * arrive while a write to their partition is in flight wait for it and then go out together. A group stops
 * at a row key already in it (one action per entity, in the order they were added), at `maxItems`, or where
 * the next item would take it past `maxWeight` (a group's first item always goes).
 * Each item's promise is settled by the writer (`write` resolves or rejects each of its group), so nothing
 * is acknowledged before it is written, and a lone writer waits no longer than a microtask.
 */

/** An item waiting to be written, with the promise its caller holds. */
export interface Waiting<Item> {
  readonly item: Item;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export interface PartitionGroupsOptions<Item> {
  readonly partitionOf: (item: Item) => string;
  readonly rowKeyOf: (item: Item) => string;
  readonly maxItems: number;
  /** An item's share of `maxWeight` (a request body's bytes): none when absent. */
  readonly weightOf?: (item: Item) => number;
  readonly maxWeight?: number;
  /** Writes one group (one partition), settling each of its items. */
  readonly write: (group: readonly Waiting<Item>[]) => Promise<void>;
}

export class PartitionGroups<Item> {
  /** Items waiting to be written; a partition is here from its first item until its queue is written empty. */
  private readonly waiting = new Map<string, Waiting<Item>[]>();

  constructor(private readonly options: PartitionGroupsOptions<Item>) {}

  /** Queues the item for its partition's next group; settles when the writer has written or failed it. */
  add(item: Item): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const partitionKey = this.options.partitionOf(item);
      const queue = this.waiting.get(partitionKey);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      this.waiting.set(partitionKey, [{ item, resolve, reject }]);
      queueMicrotask(() => void this.drain(partitionKey));
    });
  }

  /** Writes what waits, group after group, including what arrives meanwhile, until nothing waits. */
  private async drain(partitionKey: string): Promise<void> {
    let group: Waiting<Item>[] = [];
    try {
      group = this.nextGroup(partitionKey);
      while (group.length > 0) {
        await this.options.write(group);
        group = this.nextGroup(partitionKey);
      }
    } catch (error) {
      // Not a storage answer (those settle each caller): whatever waits fails rather than waiting forever.
      for (const waiting of [...group, ...(this.waiting.get(partitionKey) ?? [])]) waiting.reject(error);
    } finally {
      this.waiting.delete(partitionKey);
    }
  }

  /** The next group: as many as fit, stopping at a row key already in it. */
  private nextGroup(partitionKey: string): Waiting<Item>[] {
    const { rowKeyOf, maxItems, weightOf, maxWeight = Infinity } = this.options;
    const queue = this.waiting.get(partitionKey) ?? [];
    const rowKeys = new Set<string>();
    let weight = 0;
    let taken = 0;
    for (const { item } of queue) {
      const rowKey = rowKeyOf(item);
      const itemWeight = weightOf ? weightOf(item) : 0;
      if (taken === maxItems || rowKeys.has(rowKey) || (taken > 0 && weight + itemWeight > maxWeight)) break;
      rowKeys.add(rowKey);
      weight += itemWeight;
      taken += 1;
    }
    return queue.splice(0, taken);
  }
}
