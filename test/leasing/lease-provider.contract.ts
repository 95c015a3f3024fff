/** The LeaseProvider contract, run against every implementation. */
import { LeaseUnavailableError } from '../../src/engine/model';
import type { LeaseHandle, LeaseProvider } from '../../src/engine/ports';

/**
 * `create` sets up one lease service and returns a function giving a worker's provider for it: for a
 * distributed implementation a new provider each time (another process), otherwise the same one.
 */
export function leaseProviderContract(label: string, create: () => Promise<() => LeaseProvider>): void {
  describe(`LeaseProvider contract: ${label}`, () => {
    let worker: () => LeaseProvider;
    beforeAll(async () => {
      worker = await create();
    });

    it('runs the work under a held lease and returns its result', async () => {
      const result = await worker().withLease('plain', async (lease) => {
        expect(lease.name).toBe('plain');
        expect(lease.signal.aborted).toBe(false);
        lease.assertHeld();
        return 42;
      });
      expect(result).toBe(42);
    });

    it('never lets two holders of a name overlap, across workers, and runs every one', async () => {
      const workers = [worker(), worker(), worker()];
      let active = 0;
      let maxActive = 0;
      const order: number[] = [];
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (workers[i % workers.length] as LeaseProvider).withLease(
            'contended',
            async () => {
              active += 1;
              maxActive = Math.max(maxActive, active);
              await new Promise((resolve) => setTimeout(resolve, 2));
              order.push(i);
              active -= 1;
            },
            { maxWaitInMs: 30000 },
          ),
        ),
      );
      expect(maxActive).toBe(1);
      expect(order.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    });

    it('does not make different names wait for each other', async () => {
      // Each holder waits for the other to start: this only finishes if both are held at once.
      let startB!: () => void;
      const bStarted = new Promise<void>((resolve) => (startB = resolve));
      let startA!: () => void;
      const aStarted = new Promise<void>((resolve) => (startA = resolve));
      await Promise.all([
        worker().withLease('name-a', async () => {
          startA();
          await bStarted;
        }),
        worker().withLease('name-b', async () => {
          startB();
          await aStarted;
        }),
      ]);
    });

    it('releases the lease when the work throws, and passes the error on', async () => {
      const failure = new Error('work failed');
      await expect(worker().withLease('throws', async () => Promise.reject(failure))).rejects.toBe(failure);
      // Available again at once: a zero wait budget would fail if the lease were still held.
      await expect(worker().withLease('throws', async () => 'again', { maxWaitInMs: 0 })).resolves.toBe('again');
    });

    it('gives up on a busy lease after maxWaitInMs with LeaseUnavailableError, in this worker or another', async () => {
      const holder = worker();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held!: () => void;
      const isHeld = new Promise<void>((resolve) => (held = resolve));
      const holding = holder.withLease('busy', async () => {
        held();
        await released;
      });
      await isHeld;
      const ran: string[] = [];
      for (const provider of [holder, worker()]) {
        const error = await provider.withLease('busy', async () => void ran.push('ran'), { maxWaitInMs: 100 }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(LeaseUnavailableError);
        expect((error as LeaseUnavailableError).leaseName).toBe('busy');
      }
      expect(ran).toEqual([]);
      release();
      await holding;
      await expect(worker().withLease('busy', async () => 'free')).resolves.toBe('free');
    });

    it('lets a waiter in once the holder finishes', async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held!: () => void;
      const isHeld = new Promise<void>((resolve) => (held = resolve));
      const events: string[] = [];
      const first = worker().withLease('handover', async () => {
        held();
        await released;
        events.push('first done');
      });
      await isHeld;
      const second = worker().withLease('handover', async () => void events.push('second ran'), { maxWaitInMs: 30000 });
      setTimeout(release, 50);
      await Promise.all([first, second]);
      expect(events).toEqual(['first done', 'second ran']);
    });

    it('accepts any string as a name', async () => {
      const names = ['a/b\\c#d?e', 'ünïcødé 😀', 'ctrl\u0001\u001f\u007f', 'trailing.', '~~', ' ', 'x'.repeat(2000)];
      for (const name of names) {
        await expect(worker().withLease(name, async (lease: LeaseHandle) => lease.name)).resolves.toBe(name);
      }
      // Names that differ only where a naive encoding would merge them must still be distinct leases.
      let startB!: () => void;
      const bStarted = new Promise<void>((resolve) => (startB = resolve));
      await Promise.all([worker().withLease('x'.repeat(2000) + 'a', async () => bStarted), worker().withLease('x'.repeat(2000) + 'b', async () => startB())]);
    });

    it('refuses a lease duration outside 15 to 60 seconds (or -1)', async () => {
      // Both providers throw the same type (issue 10, section 5): a RangeError, as the Azure SDK does for bad arguments.
      await expect(worker().withLease('duration', async () => 1, { leaseDurationInSeconds: 5 })).rejects.toBeInstanceOf(RangeError);
      await expect(worker().withLease('duration', async () => 1, { leaseDurationInSeconds: 61 })).rejects.toBeInstanceOf(RangeError);
      await expect(worker().withLease('duration', async () => 1, { leaseDurationInSeconds: 20.5 })).rejects.toBeInstanceOf(RangeError);
      await expect(worker().withLease('duration', async () => 'ok', { leaseDurationInSeconds: 15 })).resolves.toBe('ok');
      await expect(worker().withLease('duration', async () => 'forever', { leaseDurationInSeconds: -1 })).resolves.toBe('forever');
      // An infinite lease is released like any other.
      await expect(worker().withLease('duration', async () => 'next', { maxWaitInMs: 0 })).resolves.toBe('next');
    });
  });
}
