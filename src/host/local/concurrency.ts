/**
 * @module Bounding work in-process: a counting semaphore (the timer scheduler's), and the fair scheduler
 * that bounds the instance applications of the local runner across tenants.
 */
import { readSetting, type Environment } from '../settings';

export class Semaphore {
  private available: number;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    this.available = limit;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.available > 0) this.available -= 1;
    else await new Promise<void>((resolve) => this.waiters.push(resolve));
    try {
      return await work();
    } finally {
      // Hand the slot straight to the next waiter, so a newcomer cannot overtake it.
      const next = this.waiters.shift();
      if (next) next();
      else this.available += 1;
    }
  }
}

/** A trigger's priority when it names none (triggers say 1-5, higher first). */
export const DEFAULT_PRIORITY = 3;

interface Waiter {
  readonly priority: number;
  readonly arrival: number;
  readonly start: () => void;
}

/**
 * A counting semaphore that hands a freed slot fairly: round-robin across fairness keys (tenants), so one
 * key's 10,000 queued applications wait their turns while another key's single one gets the next turn;
 * within a key, by priority (higher first), then by arrival. A runner per tenant may share one, so that
 * the slots are shared fairly across them.
 *
 * Turns alone keep a slot from waiting long, but not the storage behind the slots from being busy with
 * one tenant's work: `maxPerKey` caps the slots one key holds at once, even while others are free, so a
 * broadcast leaves headroom (in the slots and in storage) for the other tenants' next trigger.
 */
export class FairScheduler {
  private available: number;
  /** Slots each key holds now. */
  private readonly held = new Map<string, number>();
  readonly maxPerKey: number;
  private arrivals = 0;
  /** Each key's waiters, best first. */
  private readonly queues = new Map<string, Waiter[]>();
  /** Keys with waiters, the next to serve first; a served key goes to the back while it has more. */
  private readonly ring: string[] = [];

  constructor(
    readonly limit: number,
    options: { readonly maxPerKey?: number } = {},
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    const maxPerKey = options.maxPerKey ?? limit;
    if (!Number.isInteger(maxPerKey) || maxPerKey < 1) throw new RangeError('maxPerKey must be a positive integer');
    this.available = limit;
    this.maxPerKey = Math.min(maxPerKey, limit);
  }

  /** Applications queued for a slot, across every key. */
  get waiting(): number {
    let count = 0;
    for (const queue of this.queues.values()) count += queue.length;
    return count;
  }

  async run<T>(key: string, priority: number | undefined, work: () => Promise<T>): Promise<T> {
    // A key with waiters queues behind them, even at a free slot: its order is by priority.
    if (this.available > 0 && this.heldBy(key) < this.maxPerKey && !this.queues.has(key)) {
      this.available -= 1;
      this.held.set(key, this.heldBy(key) + 1);
    } else await new Promise<void>((start) => this.enqueue(key, { priority: priority ?? DEFAULT_PRIORITY, arrival: this.arrivals++, start }));
    try {
      return await work();
    } finally {
      const left = this.heldBy(key) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
      // Handed straight to the next waiter, so a newcomer cannot overtake the queue.
      const next = this.next();
      if (next) next.start();
      else this.available += 1;
    }
  }

  private heldBy(key: string): number {
    return this.held.get(key) ?? 0;
  }

  private enqueue(key: string, waiter: Waiter): void {
    let queue = this.queues.get(key);
    if (!queue) {
      this.queues.set(key, (queue = []));
      this.ring.push(key);
    }
    // Arrivals only grow: the new waiter goes after every one of at least its priority (a binary search).
    let low = 0;
    let high = queue.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (queue[middle]!.priority >= waiter.priority) low = middle + 1;
      else high = middle;
    }
    queue.splice(low, 0, waiter);
  }

  /** The best waiter of the first key in turn that is under its cap (it then holds the slot), if any. */
  private next(): Waiter | undefined {
    const index = this.ring.findIndex((key) => this.heldBy(key) < this.maxPerKey);
    if (index < 0) return undefined;
    const [key] = this.ring.splice(index, 1) as [string];
    const queue = this.queues.get(key)!;
    const waiter = queue.shift()!;
    if (queue.length > 0) this.ring.push(key);
    else this.queues.delete(key);
    this.held.set(key, this.heldBy(key) + 1);
    return waiter;
  }
}

/** The local host's scheduler of `limit` slots, capped per tenant by SIGNALBOX_RUNNER_SLOTS_PER_TENANT when it is set. */
export function fairSchedulerFromSettings(limit: number, env: Environment): FairScheduler {
  const setting = readSetting('SIGNALBOX_RUNNER_SLOTS_PER_TENANT', env);
  if (setting === undefined) return new FairScheduler(limit);
  const slots = Number(setting);
  if (!/^\d+$/.test(setting) || slots < 1) throw new Error(`SIGNALBOX_RUNNER_SLOTS_PER_TENANT must be a positive whole number of slots, not ${JSON.stringify(setting)}`);
  return new FairScheduler(limit, { maxPerKey: Math.min(slots, limit) });
}
