import { LeaseLostError, LeaseUnavailableError, isRetryable } from '../../src/engine';
import { InMemoryLeaseProvider } from '../../src/testing';

/** Resolves after the microtask queue and pending I/O callbacks have run (not a wall-clock wait). */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('InMemoryLeaseProvider', () => {
  it('never lets two holders of one name overlap, and serves waiters in order', async () => {
    const leases = new InMemoryLeaseProvider();
    let inside = 0;
    let maxInside = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        leases.withLease('x', async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          order.push(index);
          await tick();
          await tick();
          inside--;
        }),
      ),
    );
    expect(maxInside).toBe(1);
    expect(order).toEqual(Array.from({ length: 20 }, (_, index) => index));
    expect(leases.isHeld('x')).toBe(false);
  });

  it('different names do not exclude each other', async () => {
    const leases = new InMemoryLeaseProvider();
    const gate = deferred();
    const a = leases.withLease('a', () => gate.promise);
    await expect(leases.withLease('b', async () => 'b ran')).resolves.toBe('b ran');
    gate.resolve();
    await a;
  });

  it('gives up after the bounded wait with a retryable LeaseUnavailableError, leaving the queue clean', async () => {
    const leases = new InMemoryLeaseProvider();
    const gate = deferred();
    const holder = leases.withLease('x', () => gate.promise);
    const waiter = leases.withLease('x', async () => 'never', { maxWaitInMs: 5 });
    await expect(waiter).rejects.toBeInstanceOf(LeaseUnavailableError);
    await waiter.catch((error) => expect(isRetryable(error)).toBe(true));
    expect(leases.waiting('x')).toBe(0);
    gate.resolve();
    await holder;
    await expect(leases.withLease('x', async () => 'free again')).resolves.toBe('free again');
  });

  it('releases the lease when the work throws', async () => {
    const leases = new InMemoryLeaseProvider();
    await expect(leases.withLease('x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(leases.isHeld('x')).toBe(false);
  });

  it('break(): the holder loses the lease (signal aborted, assertHeld throws) and the next waiter gets it', async () => {
    const leases = new InMemoryLeaseProvider();
    const gate = deferred();
    let lostSignal: AbortSignal | undefined;
    const events: string[] = [];
    const first = leases.withLease('x', async (lease) => {
      lostSignal = lease.signal;
      lease.assertHeld();
      await gate.promise;
      expect(() => lease.assertHeld()).toThrow(LeaseLostError);
      events.push('first saw the loss');
    });
    const second = leases.withLease('x', async (lease) => {
      lease.assertHeld();
      events.push('second holds');
      gate.resolve();
    });
    await tick();
    expect(leases.break('x')).toBe(true);
    expect(lostSignal?.aborted).toBe(true);
    await Promise.all([first, second]);
    expect(events).toEqual(['second holds', 'first saw the loss']);
    expect(leases.isHeld('x')).toBe(false);
    expect(leases.break('x')).toBe(false);
  });

  it('a broken holder finishing later does not release the new holder', async () => {
    const leases = new InMemoryLeaseProvider();
    const firstGate = deferred();
    const secondGate = deferred();
    const first = leases.withLease('x', () => firstGate.promise);
    await tick();
    leases.break('x');
    const second = leases.withLease('x', () => secondGate.promise);
    await tick();
    firstGate.resolve();
    await first;
    expect(leases.isHeld('x')).toBe(true);
    let thirdRan = false;
    const third = leases.withLease('x', async () => {
      thirdRan = true;
    });
    await tick();
    expect(thirdRan).toBe(false);
    secondGate.resolve();
    await Promise.all([second, third]);
    expect(thirdRan).toBe(true);
  });

  it('an aborted wait rejects with the abort reason and leaves the queue', async () => {
    const leases = new InMemoryLeaseProvider();
    const gate = deferred();
    const holder = leases.withLease('x', () => gate.promise);
    const controller = new AbortController();
    const waiter = leases.withLease('x', async () => 'never', { abortSignal: controller.signal });
    await tick();
    expect(leases.waiting('x')).toBe(1);
    controller.abort(new Error('caller gave up'));
    await expect(waiter).rejects.toThrow('caller gave up');
    expect(leases.waiting('x')).toBe(0);
    gate.resolve();
    await holder;
  });

  it('rejects lease durations a blob lease would refuse', async () => {
    const leases = new InMemoryLeaseProvider();
    await expect(leases.withLease('x', async () => 1, { leaseDurationInSeconds: 5 })).rejects.toBeInstanceOf(RangeError);
    await expect(leases.withLease('x', async () => 1, { leaseDurationInSeconds: -1 })).resolves.toBe(1);
  });
});
