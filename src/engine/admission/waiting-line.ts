/**
 * @module The one waiting line of admission: the triggers waiting for a concurrency slot (concurrency-slots.ts)
 * and those waiting for room in a full state (state-capacity.ts) are each a list of places on their row, and
 * both are kept by these rules. Order: higher priority first, then earlier arrival, then id
 * (`placeGoesBefore`: a total order every worker and host agrees on). A waiter keeps its place by id (a
 * repeat offer, a renewed listing), the line holds at most `maxWaiting`, and a place ends at its waiter's
 * end (a slot waiter's expiry, a capacity waiter's deadline). Pure: it changes lists, the rows' owners write them.
 */
import { placeGoesBefore, type QueuePlace } from '../model';

/** The queue in admission order (for views and for choosing whom to offer room). */
export function inAdmissionOrder<Waiter extends QueuePlace>(line: readonly Waiter[]): Waiter[] {
  return [...line].sort((a, b) => (placeGoesBefore(a, b) ? -1 : placeGoesBefore(b, a) ? 1 : 0));
}

export interface WaitingLineRules<Waiter extends QueuePlace> {
  /** At most this many wait: a newcomer past it is not enqueued (one already waiting keeps its place). */
  readonly maxWaiting: number;
  /** When the waiter's place ends (an ISO time, as toISOString writes it): at that time it has expired. */
  readonly endsAt: (waiter: Waiter) => string;
}

/** One kind of line's rules, over the lists its rows hold. Every answer is a new list; none is changed. */
export class WaitingLine<Waiter extends QueuePlace> {
  constructor(private readonly rules: WaitingLineRules<Waiter>) {}

  get maxWaiting(): number {
    return this.rules.maxWaiting;
  }

  inOrder(line: readonly Waiter[]): Waiter[] {
    return inAdmissionOrder(line);
  }

  /** The waiter `id`'s place, when it waits. */
  placeOf(line: readonly Waiter[], id: string): Waiter | undefined {
    return line.find((waiter) => waiter.id === id);
  }

  /** How many wait before the waiter `id` (0: it is next); undefined when it does not wait. */
  position(line: readonly Waiter[], id: string): number | undefined {
    const index = this.inOrder(line).findIndex((waiter) => waiter.id === id);
    return index < 0 ? undefined : index;
  }

  /** How many waiters go before `place` (its own id left out): `place` need not wait yet (a newcomer's would-be place). */
  ahead(line: readonly Waiter[], place: QueuePlace): number {
    return line.filter((waiter) => waiter.id !== place.id && placeGoesBefore(waiter, place)).length;
  }

  /**
   * The line with `waiter` in it, in the place of any earlier entry with its id (a renewal keeps the line's
   * length); undefined when the line is full and the waiter was not in it.
   */
  enqueue(line: readonly Waiter[], waiter: Waiter): Waiter[] | undefined {
    const others = line.filter((other) => other.id !== waiter.id);
    if (others.length === line.length && line.length >= this.rules.maxWaiting) return undefined;
    return [...others, waiter];
  }

  /** The line without the waiter `id`; the same list when it did not wait (so a caller can tell nothing changed). */
  remove(line: readonly Waiter[], id: string): readonly Waiter[] {
    return line.some((waiter) => waiter.id === id) ? line.filter((waiter) => waiter.id !== id) : line;
  }

  /** Whether the waiter's place has ended at `now` (ISO). */
  hasEnded(waiter: Waiter, now: string): boolean {
    return this.rules.endsAt(waiter) <= now;
  }

  /** The line at `now` (ISO) split into those still waiting and those whose place has ended, each in the line's order. */
  expire(line: readonly Waiter[], now: string): { readonly waiting: Waiter[]; readonly expired: Waiter[] } {
    const waiting: Waiter[] = [];
    const expired: Waiter[] = [];
    for (const waiter of line) (this.hasEnded(waiter, now) ? expired : waiting).push(waiter);
    return { waiting, expired };
  }
}
