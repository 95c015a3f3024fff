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

/** The scheduler's clock: the wall clock by default, a manual one in tests (the engine's Clock has this shape). */
export interface SchedulerClock {
  now(): Date;
  /** Calls `callback` once the clock reaches `at`. */
  setTimer(at: Date, callback: () => Promise<void>): void;
}

const wallClock: SchedulerClock = {
  now: () => new Date(),
  setTimer: (at, callback) => void setTimeout(() => void callback(), Math.max(0, at.getTime() - Date.now())),
};

/**
 * A counting semaphore that hands a freed slot fairly across fairness keys (tenants): to the waiting key
 * that holds the fewest slots now, so a tenant with nothing in flight gets the next slot ahead of a tenant
 * holding many (among keys holding as many, round-robin); within a key, by priority (higher first), then by
 * arrival. One key's 10,000 queued applications so wait their turns while another key's single one goes
 * next. A runner per tenant may share one, so that the slots are shared fairly across them.
 *
 * Turns alone keep a slot from waiting long, but not the storage behind the slots from being busy with
 * one tenant's work: `maxPerKey` caps the slots one key holds at once, even while others are free, and
 * `setRate` paces the applications one key starts per second (a broadcast's applications are spread out
 * instead of filling storage's queue), so a broadcast leaves headroom for the other tenants' next trigger.
 */
export class FairScheduler {
  private available: number;
  /** Slots each key holds now. */
  private readonly held = new Map<string, number>();
  readonly maxPerKey: number;
  private arrivals = 0;
  /** Each key's waiters, best first. */
  private readonly queues = new Map<string, Waiter[]>();
  /** Keys with waiters, the next to serve first among those holding as many; a served key goes to the back while it has more. */
  private readonly ring: string[] = [];
  /** Milliseconds between the applications a key starts (setRate; else the default pace, if any). */
  private readonly intervals = new Map<string, number | undefined>();
  private readonly defaultIntervalInMs: number | undefined;
  /** When each paced key's next application may start (ms of the clock). */
  private readonly nextAt = new Map<string, number>();
  private readonly clock: SchedulerClock;
  /** When the armed timer fires (one at a time: the earliest a paced key may start). */
  private timerAt: number | undefined;

  constructor(
    readonly limit: number,
    options: {
      readonly maxPerKey?: number;
      /** The pace of every key that setRate does not set: applications started per second. @default none */
      readonly ratePerKey?: number;
      readonly clock?: SchedulerClock;
    } = {},
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    const maxPerKey = options.maxPerKey ?? limit;
    if (!Number.isInteger(maxPerKey) || maxPerKey < 1) throw new RangeError('maxPerKey must be a positive integer');
    this.available = limit;
    this.maxPerKey = Math.min(maxPerKey, limit);
    this.clock = options.clock ?? wallClock;
    this.defaultIntervalInMs = options.ratePerKey === undefined ? undefined : intervalOf(options.ratePerKey);
  }

  /** Applications queued for a slot, across every key. */
  get waiting(): number {
    let count = 0;
    for (const queue of this.queues.values()) count += queue.length;
    return count;
  }

  /**
   * Paces the applications `key` starts: at most `perSecond`, evenly spaced (no burst), whatever slots are
   * free; undefined gives it the default pace (`ratePerKey`), or none.
   */
  setRate(key: string, perSecond: number | undefined): void {
    if (perSecond === undefined) this.intervals.delete(key);
    else this.intervals.set(key, intervalOf(perSecond));
    this.dispatch();
  }

  /** The pace `key` starts applications at (per second), if any. */
  rateOf(key: string): number | undefined {
    const interval = this.intervalOf(key);
    return interval === undefined ? undefined : 1000 / interval;
  }

  private intervalOf(key: string): number | undefined {
    return this.intervals.has(key) ? this.intervals.get(key) : this.defaultIntervalInMs;
  }

  async run<T>(key: string, priority: number | undefined, work: () => Promise<T>): Promise<T> {
    // A key with waiters queues behind them, even at a free slot: its order is by priority.
    if (this.available > 0 && !this.queues.has(key) && this.mayStart(key, this.clock.now().getTime())) this.take(key);
    else
      await new Promise<void>((start) => {
        this.enqueue(key, { priority: priority ?? DEFAULT_PRIORITY, arrival: this.arrivals++, start });
        // A paced key's waiter may be the only one: it needs the timer even while slots are free.
        this.dispatch();
      });
    try {
      return await work();
    } finally {
      const left = this.heldBy(key) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
      this.available += 1;
      // Handed straight to the next waiter (synchronously), so a newcomer cannot overtake the queue.
      this.dispatch();
    }
  }

  private heldBy(key: string): number {
    return this.held.get(key) ?? 0;
  }

  private mayStart(key: string, now: number): boolean {
    return this.heldBy(key) < this.maxPerKey && (this.intervalOf(key) === undefined || (this.nextAt.get(key) ?? Number.NEGATIVE_INFINITY) <= now);
  }

  private take(key: string): void {
    this.available -= 1;
    this.held.set(key, this.heldBy(key) + 1);
    const interval = this.intervalOf(key);
    // Evenly spaced from the later of its last start's slot and now: an idle spell earns no burst.
    if (interval !== undefined) this.nextAt.set(key, Math.max(this.nextAt.get(key) ?? Number.NEGATIVE_INFINITY, this.clock.now().getTime()) + interval);
    else this.nextAt.delete(key);
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

  /** Starts waiters while slots are free and some key may start; arms the timer for the earliest paced key. */
  private dispatch(): void {
    const now = this.clock.now().getTime();
    while (this.available > 0) {
      const waiter = this.next(now);
      if (!waiter) break;
      waiter.start();
    }
    if (this.available === 0) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const key of this.ring) if (this.heldBy(key) < this.maxPerKey) earliest = Math.min(earliest, this.nextAt.get(key) ?? earliest);
    if (earliest === Number.POSITIVE_INFINITY || (this.timerAt !== undefined && this.timerAt <= earliest)) return;
    this.timerAt = earliest;
    this.clock.setTimer(new Date(earliest), async () => {
      if (this.timerAt === earliest) this.timerAt = undefined;
      this.dispatch();
    });
  }

  /** The best waiter of the key that may start and holds the fewest slots (round-robin among equals); it then holds the slot. */
  private next(now: number): Waiter | undefined {
    let index = -1;
    for (let at = 0; at < this.ring.length; at += 1) {
      const key = this.ring[at]!;
      if (this.mayStart(key, now) && (index < 0 || this.heldBy(key) < this.heldBy(this.ring[index]!))) index = at;
    }
    if (index < 0) return undefined;
    const [key] = this.ring.splice(index, 1) as [string];
    const queue = this.queues.get(key)!;
    const waiter = queue.shift()!;
    if (queue.length > 0) this.ring.push(key);
    else this.queues.delete(key);
    this.take(key);
    return waiter;
  }
}

function intervalOf(perSecond: number): number {
  if (!(perSecond > 0) || !Number.isFinite(perSecond)) throw new RangeError('a rate must be a positive number of applications per second');
  return 1000 / perSecond;
}

/**
 * The local host's scheduler of `limit` slots, capped per tenant by SIGNALBOX_RUNNER_SLOTS_PER_TENANT and
 * paced per tenant by SIGNALBOX_RUNNER_APPLICATIONS_PER_SECOND_PER_TENANT when they are set (a tenant's
 * `applicationsPerSecond` quota overrides the pace: FairScheduler.setRate).
 */
export function fairSchedulerFromSettings(limit: number, env: Environment): FairScheduler {
  const setting = readSetting('SIGNALBOX_RUNNER_SLOTS_PER_TENANT', env);
  const slots = Number(setting);
  if (setting !== undefined && (!/^\d+$/.test(setting) || slots < 1)) throw new Error(`SIGNALBOX_RUNNER_SLOTS_PER_TENANT must be a positive whole number of slots, not ${JSON.stringify(setting)}`);
  const rateSetting = readSetting('SIGNALBOX_RUNNER_APPLICATIONS_PER_SECOND_PER_TENANT', env);
  const rate = Number(rateSetting);
  if (rateSetting !== undefined && !(/^\d+(\.\d+)?$/.test(rateSetting) && rate > 0))
    throw new Error(`SIGNALBOX_RUNNER_APPLICATIONS_PER_SECOND_PER_TENANT must be a positive number of applications per second, not ${JSON.stringify(rateSetting)}`);
  return new FairScheduler(limit, { ...(setting !== undefined ? { maxPerKey: Math.min(slots, limit) } : {}), ...(rateSetting !== undefined ? { ratePerKey: rate } : {}) });
}
