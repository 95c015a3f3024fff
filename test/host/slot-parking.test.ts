/**
 * Triggers parked for a concurrency slot (slot-parking.ts), deterministically: a line per key, by priority
 * then arrival; only the head tries again, on a release seen here, when the one ahead leaves, or when its
 * wait (a sleep the test ends by hand) runs out; every turn rejects once the runner stops.
 */
import { SlotParking } from '../../src/host/local/slot-parking';

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Sleeps the test ends by hand (no clock). */
function manualSleeps() {
  const pending: Array<() => void> = [];
  return {
    sleep: (_ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        pending.push(resolve);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    endAll: () => {
      for (const end of pending.splice(0)) end();
    },
  };
}

/** Marks when a turn came. */
function watch(turn: Promise<void>) {
  const state = { came: false, failed: undefined as unknown };
  turn.then(
    () => (state.came = true),
    (error: unknown) => (state.failed = error),
  );
  return state;
}

const heavy = { workflowId: 'w', key: 'heavy' };

describe('SlotParking', () => {
  it('wakes only the head of a key’s line on a release, and the next when the head leaves', async () => {
    const stop = new AbortController();
    const sleeps = manualSleeps();
    const parking = new SlotParking({ signal: stop.signal, sleep: sleeps.sleep });
    const first = parking.join(heavy, 3);
    const second = parking.join(heavy, 3);
    const other = parking.join({ workflowId: 'w', key: 'other' }, 3);
    expect(parking.parked).toBe(3);

    const firstTurn = watch(first.turn());
    const secondTurn = watch(second.turn());
    const otherTurn = watch(other.turn());
    await settle();
    expect([firstTurn.came, secondTurn.came, otherTurn.came]).toEqual([false, false, false]);

    parking.released(heavy);
    await settle();
    expect([firstTurn.came, secondTurn.came, otherTurn.came]).toEqual([true, false, false]);

    // The head tried and got its slot: it leaves, and the next tries at once (a limit above 1 may have room).
    first.leave();
    await settle();
    expect(secondTurn.came).toBe(true);
    second.leave();
    other.leave();
    expect(parking.parked).toBe(0);
  });

  /** The order in which triggers joining one key's line (name, priority, listed in storage) get their turns, each leaving at its turn. */
  async function turnOrder(joining: readonly (readonly [string, number, boolean?, string?])[]): Promise<string[]> {
    const stop = new AbortController();
    const parking = new SlotParking({ signal: stop.signal, sleep: manualSleeps().sleep });
    const order: string[] = [];
    const parked = joining.map(([name, priority, listed, arrivedAt]) => ({
      name,
      ticket: parking.join(heavy, priority, listed, arrivedAt !== undefined ? { id: `parked:${name}`, priority, arrivedAt } : undefined),
    }));
    const turns = parked.map(({ name, ticket }) =>
      ticket.turn().then(() => {
        order.push(name);
        ticket.leave();
      }),
    );
    parking.released(heavy);
    await Promise.all(turns);
    return order;
  }

  it('lines up by priority (higher first), then arrival', async () => {
    await expect(
      turnOrder([
        ['low', 1],
        ['mid-1', 3],
        ['high', 5],
        ['mid-2', 3],
      ]),
    ).resolves.toEqual(['high', 'mid-1', 'mid-2', 'low']);
  });

  it('lines up the triggers listed in the key’s queue in storage before those of their priority parked on a hint alone', async () => {
    await expect(
      turnOrder([
        ['hint-1', 3, false],
        ['hint-2', 3, false],
        ['listed-1', 3, true],
        ['listed-high', 5, true],
        ['hint-low', 1, false],
        ['listed-2', 3, true],
      ]),
    ).resolves.toEqual(['listed-high', 'listed-1', 'listed-2', 'hint-1', 'hint-2', 'hint-low']);
  });

  it('lines up listed triggers in the storage queue’s order, whatever order they were parked in here (a restart resumes old listings late)', async () => {
    await expect(
      turnOrder([
        ['new-1', 3, true, '2026-12-02T10:05:00.000Z'],
        ['hint', 3, false],
        ['old-2', 3, true, '2026-12-02T10:00:02.000Z'],
        ['unplaced', 3, true],
        ['old-1', 3, true, '2026-12-02T10:00:01.000Z'],
        ['old-high', 5, true, '2026-12-02T10:09:00.000Z'],
      ]),
    ).resolves.toEqual(['old-high', 'old-1', 'old-2', 'new-1', 'unplaced', 'hint']);
  });

  it('lets the head try again when its wait runs out (a release by another process is not announced here)', async () => {
    const stop = new AbortController();
    const sleeps = manualSleeps();
    const parking = new SlotParking({ signal: stop.signal, sleep: sleeps.sleep });
    const head = parking.join(heavy, 3);
    const next = parking.join(heavy, 3);
    const headTurn = watch(head.turn());
    const nextTurn = watch(next.turn());
    await settle();
    expect(headTurn.came).toBe(false);

    sleeps.endAll();
    await settle();
    expect([headTurn.came, nextTurn.came]).toEqual([true, false]);
  });

  it('rejects every parked turn once the runner stops', async () => {
    const stop = new AbortController();
    const parking = new SlotParking({ signal: stop.signal, sleep: manualSleeps().sleep });
    const turns = [watch(parking.join(heavy, 3).turn()), watch(parking.join(heavy, 3).turn())];
    await settle();
    stop.abort(new Error('shutting down'));
    await settle();
    expect(turns.map((turn) => turn.failed !== undefined)).toEqual([true, true]);
    await expect(parking.join(heavy, 3).turn()).rejects.toThrow('shutting down');
  });
});
