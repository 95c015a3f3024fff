/**
 * The local runner's fair scheduler, deterministically (no timing): slots go round-robin across fairness
 * keys (tenants), and within a key by priority (higher first), then by arrival. A tenant's 10,000 queued
 * applications do not hold back another tenant's single one.
 */
import { DEFAULT_PRIORITY, FairScheduler, fairSchedulerFromSettings } from '../../src/host/local/concurrency';
import { ManualClock } from '../../src/testing';

/** A piece of work the test finishes by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Lets every queued promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('FairScheduler', () => {
  it('never runs more than its limit at once', async () => {
    const scheduler = new FairScheduler(2);
    let running = 0;
    let most = 0;
    const gates = Array.from({ length: 6 }, gate);
    const runs = gates.map((each, index) =>
      scheduler.run(index % 2 === 0 ? 'a' : 'b', DEFAULT_PRIORITY, async () => {
        most = Math.max(most, ++running);
        await each.opened;
        running -= 1;
      }),
    );
    await settle();
    expect(running).toBe(2);
    expect(scheduler.waiting).toBe(4);
    for (const each of gates) {
      each.open();
      await settle();
    }
    await Promise.all(runs);
    expect(most).toBe(2);
    expect(scheduler.waiting).toBe(0);
  });

  it('hands slots round-robin across keys, by priority then arrival within a key', async () => {
    const scheduler = new FairScheduler(1);
    const order: string[] = [];
    const blocker = gate();
    const runs = [scheduler.run('z', DEFAULT_PRIORITY, () => blocker.opened)];
    const queue = (key: string, name: string, priority?: number) => runs.push(scheduler.run(key, priority, async () => void order.push(name)));
    queue('a', 'a1');
    queue('a', 'a2');
    queue('b', 'b1', 1);
    queue('a', 'a3', 5);
    queue('b', 'b2', 5);
    queue('c', 'c1');
    queue('a', 'a4');
    await settle();
    expect(order).toEqual([]);
    blocker.open();
    await Promise.all(runs);
    expect(order).toEqual(['a3', 'b2', 'c1', 'a1', 'b1', 'a2', 'a4']);
  });

  it("serves another tenant's single application within one turn of a 10,000-instance flood", async () => {
    const scheduler = new FairScheduler(4);
    const order: string[] = [];
    const flood = Array.from({ length: 10_000 }, (_, index) => scheduler.run('tenant-a', DEFAULT_PRIORITY, async () => void order.push(`a${index}`)));
    // B's one trigger arrives after A's whole broadcast is queued.
    const single = scheduler.run('tenant-b', DEFAULT_PRIORITY, async () => void order.push('b'));
    await Promise.all([...flood, single]);
    // At most the 4 that held the slots when it arrived, and A's one turn, go before it.
    expect(order.indexOf('b')).toBeLessThanOrEqual(5);
    expect(order).toHaveLength(10_001);
  });

  it('caps the slots one key holds at maxPerKey, leaving the others free for the next key at once', async () => {
    const scheduler = new FairScheduler(4, { maxPerKey: 2 });
    const running = new Map<string, number>();
    let mostOfA = 0;
    const gates = new Map<string, ReturnType<typeof gate>>();
    const work = (key: string, name: string) => {
      const each = gate();
      gates.set(name, each);
      return scheduler.run(key, undefined, async () => {
        running.set(key, (running.get(key) ?? 0) + 1);
        if (key === 'a') mostOfA = Math.max(mostOfA, running.get('a')!);
        await each.opened;
        running.set(key, running.get(key)! - 1);
      });
    };
    const flood = Array.from({ length: 10 }, (_, index) => work('a', `a${index}`));
    await settle();
    expect(running.get('a')).toBe(2);
    expect(scheduler.waiting).toBe(8);
    // Two slots are free although A waits: B's one starts at once.
    const single = work('b', 'b0');
    await settle();
    expect(running.get('b')).toBe(1);
    gates.get('b0')!.open();
    await single;
    for (let index = 0; index < 10; index += 1) {
      gates.get(`a${index}`)?.open();
      await settle();
    }
    await Promise.all(flood);
    expect(mostOfA).toBe(2);
    expect(scheduler.waiting).toBe(0);
  });

  it('gives the next slot to a waiting tenant with nothing in flight ahead of one holding many', async () => {
    const scheduler = new FairScheduler(4);
    const order: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const work = (key: string, name: string) => {
      const each = gate();
      gates.set(name, each);
      return scheduler.run(key, undefined, async () => {
        order.push(name);
        await each.opened;
      });
    };
    // A holds three slots and B one; A's next waits first, then C's single one (C holds none).
    const runs = [work('a', 'a0'), work('a', 'a1'), work('a', 'a2'), work('b', 'b0'), work('a', 'a3'), work('c', 'c0')];
    await settle();
    expect(order).toEqual(['a0', 'a1', 'a2', 'b0']);
    gates.get('b0')!.open();
    await settle();
    // The ring alone would have served A (first in turn); C holds fewer.
    expect(order).toEqual(['a0', 'a1', 'a2', 'b0', 'c0']);
    for (const name of ['c0', 'a0', 'a1', 'a2', 'a3']) {
      gates.get(name)?.open();
      await settle();
    }
    await Promise.all(runs);
    expect(order.at(-1)).toBe('a3');
  });

  it("paces one tenant's applications to its rate on the scheduler's clock, while another's start at once", async () => {
    const clock = new ManualClock();
    const scheduler = new FairScheduler(4, { clock });
    scheduler.setRate('a', 2);
    const started: string[] = [];
    const runs = Array.from({ length: 4 }, (_, index) => scheduler.run('a', undefined, async () => void started.push(`a${index}`)));
    runs.push(scheduler.run('b', undefined, async () => void started.push('b0')));
    await settle();
    // Free slots, but A's second may start only 500 ms after its first.
    expect(started).toEqual(['a0', 'b0']);
    expect(scheduler.waiting).toBe(3);
    await clock.advanceBy(499);
    await settle();
    expect(started).toEqual(['a0', 'b0']);
    await clock.advanceBy(1);
    await settle();
    expect(started).toEqual(['a0', 'b0', 'a1']);
    await clock.advanceBy(1000);
    await settle();
    expect(started).toEqual(['a0', 'b0', 'a1', 'a2', 'a3']);
    await Promise.all(runs);
    // Without a pace, A starts at once.
    scheduler.setRate('a', undefined);
    await scheduler.run('a', undefined, async () => void started.push('a4'));
    expect(started.at(-1)).toBe('a4');
    expect(() => scheduler.setRate('a', 0)).toThrow(RangeError);
  });

  it('releases the slot when work fails, and refuses a limit that is not a positive integer', async () => {
    const scheduler = new FairScheduler(1);
    await expect(scheduler.run('a', undefined, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(scheduler.run('a', undefined, async () => 'next')).resolves.toBe('next');
    expect(() => new FairScheduler(0)).toThrow(RangeError);
    expect(() => new FairScheduler(2, { maxPerKey: 0 })).toThrow(RangeError);
  });
});

describe('fairSchedulerFromSettings', () => {
  it('caps the slots one tenant holds with SIGNALBOX_RUNNER_SLOTS_PER_TENANT, and caps nothing without it', () => {
    expect(fairSchedulerFromSettings(16, { SIGNALBOX_RUNNER_SLOTS_PER_TENANT: '4' }).maxPerKey).toBe(4);
    expect(fairSchedulerFromSettings(16, { SIGNALBOX_RUNNER_SLOTS_PER_TENANT: ' ' }).maxPerKey).toBe(16);
    expect(fairSchedulerFromSettings(16, {}).maxPerKey).toBe(16);
    expect(fairSchedulerFromSettings(8, { SIGNALBOX_RUNNER_SLOTS_PER_TENANT: '40' }).maxPerKey).toBe(8);
  });

  it('paces each tenant with SIGNALBOX_RUNNER_APPLICATIONS_PER_SECOND_PER_TENANT, a tenant of its own rate overriding it', () => {
    const scheduler = fairSchedulerFromSettings(16, { SIGNALBOX_RUNNER_APPLICATIONS_PER_SECOND_PER_TENANT: '40' });
    expect(scheduler.rateOf('any')).toBe(40);
    scheduler.setRate('acme', 2.5);
    expect([scheduler.rateOf('acme'), scheduler.rateOf('other')]).toEqual([2.5, 40]);
    scheduler.setRate('acme', undefined);
    expect(scheduler.rateOf('acme')).toBe(40);
    expect(fairSchedulerFromSettings(16, {}).rateOf('any')).toBeUndefined();
    for (const value of ['0', '-1', 'fast'])
      expect(() => fairSchedulerFromSettings(16, { SIGNALBOX_RUNNER_APPLICATIONS_PER_SECOND_PER_TENANT: value })).toThrow(/SIGNALBOX_RUNNER_APPLICATIONS_PER_SECOND_PER_TENANT/);
  });

  it('refuses a cap that is not a positive whole number, naming the setting', () => {
    for (const value of ['0', '-1', '2.5', 'four']) expect(() => fairSchedulerFromSettings(16, { SIGNALBOX_RUNNER_SLOTS_PER_TENANT: value })).toThrow(/SIGNALBOX_RUNNER_SLOTS_PER_TENANT/);
  });
});
