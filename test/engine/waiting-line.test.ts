/** The one waiting line of admission (admission/waiting-line.ts): the order, places, bounds and ends that the slot and capacity queues share. */
import { inAdmissionOrder, WaitingLine } from '../../src/engine/admission';

interface Waiter {
  readonly id: string;
  readonly priority: number;
  readonly arrivedAt: string;
  readonly endsAt: string;
}

const t = (second: number) => `2026-12-03T10:00:${String(second).padStart(2, '0')}.000Z`;
const waiter = (id: string, priority: number, arrived: number, ends = 50): Waiter => ({ id, priority, arrivedAt: t(arrived), endsAt: t(ends) });
const line = (maxWaiting = 10) => new WaitingLine<Waiter>({ maxWaiting, endsAt: (place) => place.endsAt });
const ids = (waiters: readonly Waiter[]) => waiters.map((place) => place.id);

describe('the waiting line', () => {
  const queued = [waiter('late-low', 1, 1), waiter('b', 3, 5), waiter('high', 5, 9), waiter('a', 3, 5), waiter('early', 3, 2)];

  it('puts higher priority first, then earlier arrival, then the lower id, whatever order the row holds them in', () => {
    const expected = ['high', 'early', 'a', 'b', 'late-low'];
    expect(ids(inAdmissionOrder(queued))).toEqual(expected);
    expect(ids(inAdmissionOrder([...queued].reverse()))).toEqual(expected);
    expect(ids(line().inOrder(queued))).toEqual(expected);
    expect(ids(queued)).toEqual(['late-low', 'b', 'high', 'a', 'early']);
  });

  it("answers a waiter's place and how many wait before it; nothing for one not waiting", () => {
    expect(line().placeOf(queued, 'a')).toBe(queued[3]);
    expect(line().position(queued, 'high')).toBe(0);
    expect(line().position(queued, 'b')).toBe(3);
    expect(line().position(queued, 'late-low')).toBe(4);
    expect(line().placeOf(queued, 'nobody')).toBeUndefined();
    expect(line().position(queued, 'nobody')).toBeUndefined();
  });

  it("counts the waiters ahead of a would-be place by priority and arrival, leaving out the place's own entry", () => {
    expect(line().ahead(queued, { id: 'new', priority: 4, arrivedAt: t(30) })).toBe(1);
    expect(line().ahead(queued, { id: 'new', priority: 3, arrivedAt: t(30) })).toBe(4);
    expect(line().ahead(queued, { id: 'new', priority: 1, arrivedAt: t(0) })).toBe(4);
    expect(line().ahead(queued, queued[3]!)).toBe(2);
  });

  it('enqueues at the back, keeps one entry per id (a renewal replaces it), and refuses a newcomer, not a renewal, when full', () => {
    const two = line(3).enqueue([waiter('x', 3, 1)], waiter('y', 3, 2))!;
    expect(ids(two)).toEqual(['x', 'y']);
    const renewed = line(3).enqueue(two, waiter('x', 3, 1, 59))!;
    expect(renewed).toEqual([waiter('y', 3, 2), waiter('x', 3, 1, 59)]);
    const full = line(3).enqueue(renewed, waiter('z', 1, 3))!;
    expect(full).toHaveLength(3);
    expect(line(3).enqueue(full, waiter('w', 5, 4))).toBeUndefined();
    expect(ids(line(3).enqueue(full, waiter('z', 2, 3))!)).toEqual(['y', 'x', 'z']);
    expect(ids(full)).toEqual(['y', 'x', 'z']);
  });

  it('removes a waiter by id, answering the same list when it did not wait', () => {
    expect(ids(line().remove(queued, 'high'))).toEqual(['late-low', 'b', 'a', 'early']);
    expect(line().remove(queued, 'nobody')).toBe(queued);
    expect(queued).toHaveLength(5);
  });

  it("ends a place at its waiter's end (by the line's rule), the end itself included", () => {
    const ending = [waiter('gone', 3, 1, 10), waiter('now', 3, 2, 20), waiter('stays', 3, 3, 21)];
    expect(line().expire(ending, t(20))).toEqual({ waiting: [ending[2]], expired: [ending[0], ending[1]] });
    expect(line().hasEnded(ending[1]!, t(19))).toBe(false);
    expect(line().hasEnded(ending[1]!, t(20))).toBe(true);
    // Another line's rule reads another field: here the arrival (as if it were the deadline).
    const byArrival = new WaitingLine<Waiter>({ maxWaiting: 10, endsAt: (place) => place.arrivedAt });
    expect(ids(byArrival.expire(ending, t(2)).expired)).toEqual(['gone', 'now']);
  });
});
