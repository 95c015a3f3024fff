/**
 * @module Per-name mutual exclusion across workers with Azure Blob leases: one lease blob per name in
 * the leases container. `prepare(name)` creates the blob ahead of first use (the engine calls it when
 * it creates an instance, so a first trigger costs no failed acquire); `withLease` still creates a
 * missing blob (and container) itself, as a fallback: for instances created before `prepare` existed,
 * or whose preparation failed. Creation races are harmless.
 *
 * - Acquire for 15 to 60 s (default 60) or -1 (infinite); renew in the background every third of the
 *   duration; release in `finally`. The floor is two blob requests per `withLease`: acquire and release.
 * - A busy lease (409) is retried with full-jitter exponential backoff from a few milliseconds, capped
 *   per wait, for at most `maxWaitInMs` in total, then LeaseUnavailableError.
 * - Callers in the same process queue locally per name (FIFO) instead of polling storage against each
 *   other: contention inside one worker costs no failed acquires, and polling is left to contention
 *   between workers. A holder with a local successor hands the lease over still held (no release, no
 *   acquire: two round trips fewer per contended application), at most MAX_LOCAL_HAND_OFFS times in a
 *   row, so that other workers polling for it get their turn.
 * - A renewal refused by the service (the lease was broken or taken) loses the lease at once; a
 *   transient renewal failure is retried while the lease is still certainly held. Losing it aborts
 *   `LeaseHandle.signal`; `assertHeld()` then throws LeaseLostError, as it does once the time the lease
 *   is known to be held has run out (a renewal that never came back).
 * - With `releaseInBackground`, `withLease` answers as soon as the work is done and the release runs on
 *   its own (see the option); `settle()` waits for the releases still running.
 * - With `carryOverInMs`, a lease nobody here is waiting for is kept that long after the work, still held,
 *   and the name's next holder in this process takes it over (no release, no acquire), with the instance
 *   the previous holder saved (`LeaseHandle.carried`: the lease was never let go, so nobody wrote under it
 *   meanwhile). Unclaimed, it is released when the time is up; hand-overs and carry-overs together stop
 *   at MAX_LOCAL_HAND_OFFS in a row. Decision 0024.
 */
import type { BlobLeaseClient, BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import { assertLeaseDuration } from '../engine/ports';
import { BoundedMap } from '../engine/model';
import type { StoredInstance } from '../engine/model';
import type { LeaseHandle, LeaseInspection, LeaseOptions, LeaseProvider } from '../engine/ports';
import { statusOf, toSignalboxError } from '../storage/errors';
import type { BackoffOptions } from './backoff';
import { acquireLease, createLeaseBlob, waitLocally } from './lease-acquire';
import { holdLease, type HoldEnding } from './lease-hold';
import { leaseBlobName } from './lease-name';

export interface BlobLeaseProviderOptions extends BackoffOptions {
  /**
   * Renewal period. Tests shorten it to see a lost lease quickly.
   * @default a third of the lease duration
   */
  renewIntervalInMs?: number;
  /** How long before the known expiry the lease is treated as lost (clock skew, request latency). @default 2000 */
  expiryMarginInMs?: number;
  /**
   * Answer `withLease` with the work's result while the release request is still under way, instead
   * of after it. The caller's next step (an operation's result write) then overlaps the release. Safe
   * for the work: whatever it saved was saved while the lease was held (`assertHeld` before each save),
   * and nothing it does after returning needs the lease. In this process the name's next holder still
   * waits for the release (the local queue is left only once it is done), so it never sees its own
   * lease as busy; another process may see the lease busy for that one round trip longer than the
   * caller thinks, exactly as it would have before the caller heard back. Off by default so that a
   * returned `withLease` means "released" (the lease-provider contract tests rely on it); the hosts
   * turn it on.
   * @default false
   */
  releaseInBackground?: boolean;
  /**
   * Holders in a row that get the lease handed over in this process before it is released anyway (so
   * other processes get their turn); 0 turns hand-overs off (the benchmark compares).
   * @default MAX_LOCAL_HAND_OFFS
   */
  maxLocalHandOffs?: number;
  /**
   * How long a lease is kept, still held, after work that nobody in this process is queued behind, for
   * the name's next holder here to take over (see the module comment); 0 releases it at once. Another
   * process waiting for the name gets it at most this much later than it would have. The hosts turn it on.
   * @default 0
   */
  carryOverInMs?: number;
}

/**
 * Consecutive holders in one process that get the lease handed over before it is released anyway, so
 * that waiters in other processes (polling with backoff) get their turn: they wait at most this many
 * applications, tens of milliseconds.
 */
export const MAX_LOCAL_HAND_OFFS = 16;
/** How long the hosts keep a lease nobody is queued for (`carryOverInMs`): a client's next trigger usually comes sooner. */
export const LEASE_CARRY_OVER_IN_MS = 250;
/** A lease is handed over only while it is certainly held for at least this long. */
const MIN_HAND_OFF_REMAINING_IN_MS = 5000;
/** A handed-over lease nobody took within this time is released. */
const UNCLAIMED_HAND_OFF_IN_MS = 1000;

/**
 * Blob clients kept per lease name, most recently used last. Making one builds a service-client
 * context (URL parsing, a pipeline context), a measurable share of each `withLease`'s CPU; a
 * broadcast to more names than this cycles through them as before.
 */
const MAX_CACHED_BLOB_CLIENTS = 1024;

/** A lease held by this process between two local holders of its name. */
interface HeldLease {
  readonly lease: BlobLeaseClient;
  /** When its last successful acquire or renewal was sent. */
  readonly since: number;
  readonly durationInSeconds: number;
  /** How many times in a row it has been handed over. */
  readonly streak: number;
  /** The instance the previous holder saved or read last, for the next holder's first load. */
  readonly carried: StoredInstance | undefined;
  readonly timer?: NodeJS.Timeout;
}

export class BlobLeaseProvider implements LeaseProvider {
  private readonly localQueues = new Map<string, Promise<void>>();
  /** Callers of `withLease` per name in this process, holder and waiters (a waiter that gave up has left). */
  private readonly queued = new Map<string, number>();
  private readonly expiryMarginInMs: number;
  /** Releases under way in the background (releaseInBackground). */
  private readonly releasing = new Set<Promise<void>>();
  /** Leases handed over by a holder to the next local holder of the name, not yet taken. */
  private readonly handOffs = new Map<string, HeldLease>();
  /** Releases of handed-over or carried-over leases nobody took, by name: the name's next acquire here waits for it. */
  private readonly unclaimedReleases = new Map<string, Promise<void>>();
  /** Leases held by work in this process, by name: wall-clock times for `inspect` (which explains, never decides). */
  private readonly heldHere = new Map<string, { since: number; expiresAt: number | undefined }>();
  private readonly blobClients = new BoundedMap<string, BlockBlobClient>(MAX_CACHED_BLOB_CLIENTS);

  constructor(
    private readonly container: ContainerClient,
    private readonly options: BlobLeaseProviderOptions = {},
  ) {
    this.expiryMarginInMs = options.expiryMarginInMs ?? 2000;
  }

  async withLease<T>(name: string, work: (lease: LeaseHandle) => Promise<T>, options: LeaseOptions = {}): Promise<T> {
    const durationInSeconds = options.leaseDurationInSeconds ?? 60;
    assertLeaseDuration(durationInSeconds);
    const maxWaitInMs = options.maxWaitInMs ?? 60000;
    const started = performance.now();
    const blob = this.blobOf(name);

    // Join this process's queue for the name; the previous holder or waiter must finish first.
    const previous = this.localQueues.get(name);
    let leaveQueue!: () => void;
    const mine = new Promise<void>((resolve) => (leaveQueue = resolve));
    const tail = previous ? previous.then(() => mine) : mine;
    this.localQueues.set(name, tail);
    this.queued.set(name, (this.queued.get(name) ?? 0) + 1);
    const leave = (): void => {
      leaveQueue();
      if (this.localQueues.get(name) === tail) this.localQueues.delete(name);
      const left = (this.queued.get(name) ?? 1) - 1;
      if (left > 0) this.queued.set(name, left);
      else this.queued.delete(name);
    };
    let ending: HoldEnding | undefined;
    let streak = 0;
    let release: Promise<void> | undefined;
    try {
      if (previous) await waitLocally(previous, name, maxWaitInMs, started, options.abortSignal);
      const handed = await this.takeHandOff(name, durationInSeconds);
      if (handed) {
        streak = handed.streak + 1;
        return await this.hold(blob, handed.lease, name, durationInSeconds, handed.since, handed.carried, work, (end) => (ending = end));
      }
      await this.unclaimedReleases.get(name);
      const lease = blob.getBlobLeaseClient();
      const acquiredAt = await acquireLease({ container: this.container, blob, lease, name, durationInSeconds, maxWaitInMs, started, abortSignal: options.abortSignal, backoff: this.options });
      return await this.hold(blob, lease, name, durationInSeconds, acquiredAt, undefined, work, (end) => (ending = end));
    } finally {
      if (ending) {
        // Someone in this process queued behind: hand the lease over, still held, instead of releasing it
        // and making them acquire it again (two round trips saved per contended application). Nobody
        // queued: keep it for the carry-over time, for the next trigger to the same instance.
        const successorWaiting = (this.queued.get(name) ?? 0) > 1;
        const keepForMs = successorWaiting ? UNCLAIMED_HAND_OFF_IN_MS : (this.options.carryOverInMs ?? 0);
        if (keepForMs > 0 && this.canHandOff(ending, streak)) this.handOff(name, { lease: ending.lease, since: ending.since, durationInSeconds, streak, carried: ending.carried }, keepForMs);
        else release = ending.release();
      }
      if (release && this.options.releaseInBackground) {
        // The local queue is left once the release is done, so this process's next holder never races it.
        const pending: Promise<void> = release.finally(() => {
          this.releasing.delete(pending);
          leave();
        });
        this.releasing.add(pending);
      } else {
        await release;
        leave();
      }
    }
  }

  /**
   * Creates the lease blob of `name` ahead of its first `withLease` (one request; the container too if
   * it is missing). A blob that exists already is fine. Failures are thrown: callers treat this as an
   * optimisation (withLease creates a missing blob itself).
   */
  async prepare(name: string, options: { abortSignal?: AbortSignal } = {}): Promise<void> {
    await createLeaseBlob(this.container, this.blobOf(name), name, options.abortSignal);
  }

  private blobOf(name: string): BlockBlobClient {
    const cached = this.blobClients.use(name);
    if (cached) return cached;
    const blob = this.container.getBlockBlobClient(leaseBlobName(name));
    this.blobClients.set(name, blob);
    return blob;
  }

  /** The blob's lease state (one request), with what this process knows of a lease it holds itself. */
  async inspect(name: string, options: { abortSignal?: AbortSignal } = {}): Promise<LeaseInspection> {
    const here = this.heldHere.get(name);
    // Kept idle here for this process's next work on it (carry-over, hand-off): nobody works under it, and it is
    // given to the next work here at once, so it is no reason to wait (another process sees it leased briefly).
    if (!here && this.handOffs.has(name)) return { held: false };
    const heldHere = here ? { heldHere: { since: new Date(here.since).toISOString(), ...(here.expiresAt !== undefined ? { expiresAt: new Date(here.expiresAt).toISOString() } : {}) } } : {};
    try {
      const properties = await this.blobOf(name).getProperties({ abortSignal: options.abortSignal });
      // `breaking`: still held until its break period ends.
      const held = properties.leaseState === 'leased' || properties.leaseState === 'breaking';
      return held ? { held, infinite: properties.leaseDuration === 'infinite', ...heldHere } : { held };
    } catch (error) {
      // No blob (never leased, or discarded): nobody holds it.
      if (statusOf(error) === 404) return { held: false };
      throw toSignalboxError(error, `lease "${name}"`);
    }
  }

  /** Waits for the releases still running in the background (a host stopping; the benchmarks), and releases handed-over leases nobody took. */
  async settle(): Promise<void> {
    for (const name of [...this.handOffs.keys()]) this.releaseHandOff(name);
    while (this.releasing.size > 0) await Promise.allSettled([...this.releasing]);
  }

  private canHandOff(ending: HoldEnding, streak: number): boolean {
    if (ending.lost || streak + 1 >= (this.options.maxLocalHandOffs ?? MAX_LOCAL_HAND_OFFS)) return false;
    return ending.heldUntil - performance.now() >= MIN_HAND_OFF_REMAINING_IN_MS;
  }

  private handOff(name: string, held: HeldLease, keepForMs: number): void {
    // If the successor gives up before taking it (its wait timed out, it was aborted), or no next holder
    // comes within the carry-over time, release it rather than letting it block other processes until it expires.
    const timer = setTimeout(() => this.releaseHandOff(name), keepForMs);
    timer.unref();
    this.handOffs.set(name, { ...held, timer });
  }

  private releaseHandOff(name: string): void {
    const held = this.handOffs.get(name);
    if (!held) return;
    this.handOffs.delete(name);
    clearTimeout(held.timer);
    const pending: Promise<void> = held.lease
      .releaseLease()
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.releasing.delete(pending);
        if (this.unclaimedReleases.get(name) === pending) this.unclaimedReleases.delete(name);
      });
    this.releasing.add(pending);
    this.unclaimedReleases.set(name, pending);
  }

  private hold<T>(
    blob: BlockBlobClient,
    lease: BlobLeaseClient,
    name: string,
    durationInSeconds: number,
    acquiredAt: number,
    carried: StoredInstance | undefined,
    work: (lease: LeaseHandle) => Promise<T>,
    onEnd: (ending: HoldEnding) => void,
  ): Promise<T> {
    const track = (here: { readonly since: number; readonly expiresAt: number | undefined }) => {
      this.heldHere.set(name, here);
      return () => {
        if (this.heldHere.get(name) === here) this.heldHere.delete(name);
      };
    };
    const { expiryMarginInMs } = this;
    return holdLease({ blob, lease, name, durationInSeconds, acquiredAt, expiryMarginInMs, renewIntervalInMs: this.options.renewIntervalInMs, carried, track }, work, onEnd);
  }

  /** The lease handed over by this process's previous holder, if it is still good for this caller. */
  private async takeHandOff(name: string, durationInSeconds: number): Promise<HeldLease | undefined> {
    const held = this.handOffs.get(name);
    if (!held) return undefined;
    this.handOffs.delete(name);
    clearTimeout(held.timer);
    const durationInMs = held.durationInSeconds * 1000;
    const heldUntil = held.durationInSeconds === -1 ? Number.POSITIVE_INFINITY : held.since + durationInMs - this.expiryMarginInMs;
    if (held.durationInSeconds === durationInSeconds && heldUntil - performance.now() >= MIN_HAND_OFF_REMAINING_IN_MS) return held;
    // Another duration was asked for, or too little time is left: release it, then acquire as usual.
    await held.lease.releaseLease().catch(() => undefined);
    return undefined;
  }
}
