/**
 * @module A LeaseProvider in memory for tests and in-process hosting: per-name mutual exclusion within
 * one process. Waiters queue in FIFO order (no polling), a wait is bounded (LeaseUnavailableError), and
 * `break(name)` takes a lease away from its holder as a blob lease break would: the holder's signal is
 * aborted, `assertHeld()` throws LeaseLostError, and the next waiter gets the lease at once.
 */
import { assertLeaseDuration } from '../../engine/ports';
import { LeaseLostError, LeaseUnavailableError } from '../../engine/model';
import type { LeaseHandle, LeaseInspection, LeaseOptions, LeaseProvider } from '../../engine/ports';

export interface InMemoryLeaseProviderOptions {
  /** Used when a call gives no `maxWaitInMs`. @default 60000 */
  maxWaitInMs?: number;
}

interface Holder {
  readonly controller: AbortController;
  /** When it was granted (ISO 8601), for `inspect`. */
  readonly since: string;
}

interface Waiter {
  readonly grant: (holder: Holder) => void;
}

interface LeaseState {
  holder?: Holder;
  readonly waiters: Waiter[];
}

export class InMemoryLeaseProvider implements LeaseProvider {
  private readonly leases = new Map<string, LeaseState>();
  /** Names with a lease "blob": created by the first lease of a name, removed by `discard`. */
  private readonly names = new Set<string>();
  private readonly defaultMaxWaitInMs: number;
  /** Number of leases granted so far (tests). */
  acquisitions = 0;

  constructor(options: InMemoryLeaseProviderOptions = {}) {
    this.defaultMaxWaitInMs = options.maxWaitInMs ?? 60_000;
  }

  async withLease<T>(name: string, work: (lease: LeaseHandle) => Promise<T>, options: LeaseOptions = {}): Promise<T> {
    const duration = options.leaseDurationInSeconds ?? 60;
    assertLeaseDuration(duration);
    const holder = await this.acquire(name, options.maxWaitInMs ?? this.defaultMaxWaitInMs, options.abortSignal);
    const state = this.leases.get(name)!;
    this.names.add(name);
    const handle: LeaseHandle = {
      name,
      signal: holder.controller.signal,
      assertHeld: () => {
        if (holder.controller.signal.aborted || state.holder !== holder) throw new LeaseLostError(name);
      },
      discard: async () => {
        this.names.delete(name);
      },
    };
    try {
      return await work(handle);
    } finally {
      this.release(name, holder);
    }
  }

  /** Takes the lease from its holder (as a blob lease break does); the next waiter gets it. Returns false if free. */
  break(name: string): boolean {
    const state = this.leases.get(name);
    const holder = state?.holder;
    if (!state || !holder) return false;
    state.holder = undefined;
    holder.controller.abort(new LeaseLostError(name));
    this.handOver(name, state);
    return true;
  }

  /** Whether the name has a lease "blob" (a lease was taken and not discarded since). */
  exists(name: string): boolean {
    return this.names.has(name);
  }

  isHeld(name: string): boolean {
    return this.leases.get(name)?.holder !== undefined;
  }

  /** Every lease here is held by this process, for the duration it was taken with (60 s unless told). */
  async inspect(name: string): Promise<LeaseInspection> {
    const holder = this.leases.get(name)?.holder;
    return holder ? { held: true, infinite: false, heldHere: { since: holder.since } } : { held: false };
  }

  waiting(name: string): number {
    return this.leases.get(name)?.waiters.length ?? 0;
  }

  private acquire(name: string, maxWaitInMs: number, abortSignal?: AbortSignal): Promise<Holder> {
    let state = this.leases.get(name);
    if (!state) this.leases.set(name, (state = { waiters: [] }));
    if (abortSignal?.aborted) return Promise.reject(abortSignal.reason);
    if (!state.holder) return Promise.resolve(this.grant(state));
    const queue = state.waiters;
    return new Promise<Holder>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        abortSignal?.removeEventListener('abort', onAbort);
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
      };
      const onAbort = () => {
        leave();
        reject(abortSignal?.reason);
      };
      const waiter: Waiter = {
        grant: (holder) => {
          leave();
          resolve(holder);
        },
      };
      const timer = setTimeout(() => {
        leave();
        reject(new LeaseUnavailableError(name, maxWaitInMs));
      }, maxWaitInMs);
      abortSignal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
    });
  }

  private grant(state: LeaseState): Holder {
    const holder: Holder = { controller: new AbortController(), since: new Date().toISOString() };
    state.holder = holder;
    this.acquisitions++;
    return holder;
  }

  private release(name: string, holder: Holder): void {
    const state = this.leases.get(name);
    // A broken lease may already belong to someone else: releasing must not take it from them.
    if (!state || state.holder !== holder) return;
    state.holder = undefined;
    this.handOver(name, state);
  }

  private handOver(name: string, state: LeaseState): void {
    const next = state.waiters[0];
    if (next) next.grant(this.grant(state));
    else if (!state.holder) this.leases.delete(name);
  }
}
