/**
 * @module One hold of a blob lease, from acquisition (or hand-over) to the end of the work: renewal in the
 * background every third of the duration, the `LeaseHandle` the work sees (lost lease → aborted signal,
 * `assertHeld` throwing), and, once the work is done, how the hold ended (blob-lease-provider.ts then
 * releases the lease or passes it on).
 */
import type { BlobLeaseClient, BlockBlobClient } from '@azure/storage-blob';
import { LeaseLostError } from '../engine/model';
import type { StoredInstance } from '../engine/model';
import type { LeaseHandle } from '../engine/ports';
import { statusOf, toSignalboxError } from '../storage/errors';

/** How a hold ended: the lease, whether it may still be held, and how to release it. */
export interface HoldEnding {
  readonly lease: BlobLeaseClient;
  readonly since: number;
  readonly heldUntil: number;
  readonly lost: boolean;
  /** What the work offered its successor (`LeaseHandle.carry`), if anything. */
  readonly carried: StoredInstance | undefined;
  release(): Promise<void>;
}

export interface HoldSettings {
  readonly blob: BlockBlobClient;
  readonly lease: BlobLeaseClient;
  readonly name: string;
  readonly durationInSeconds: number;
  /** When the acquire or last renewal that succeeded was sent (performance.now()). */
  readonly acquiredAt: number;
  readonly expiryMarginInMs: number;
  readonly renewIntervalInMs: number | undefined;
  /** The previous holder's instance, when the lease was passed on without a release. */
  readonly carried: StoredInstance | undefined;
  /** Wall-clock start and expiry of the hold, for `inspect`; called when it ends. */
  readonly track: (here: { readonly since: number; readonly expiresAt: number | undefined }) => () => void;
}

export async function holdLease<T>(settings: HoldSettings, work: (lease: LeaseHandle) => Promise<T>, onEnd: (ending: HoldEnding) => void): Promise<T> {
  const { blob, lease, name, durationInSeconds, acquiredAt } = settings;
  const controller = new AbortController();
  const durationInMs = durationInSeconds * 1000;
  const infinite = durationInSeconds === -1;
  /** When the last acquire or renewal that succeeded was sent. */
  let since = acquiredAt;
  // The lease is certainly ours until this moment.
  let heldUntil = infinite ? Number.POSITIVE_INFINITY : acquiredAt + durationInMs - settings.expiryMarginInMs;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let renewing: Promise<void> | undefined;
  let discarded = false;
  let carriedOut: StoredInstance | undefined;

  const lose = (cause: unknown): void => {
    if (!controller.signal.aborted) controller.abort(new LeaseLostError(name, { cause }));
  };
  const schedule = (inMs: number): void => {
    if (stopped || infinite) return;
    timer = setTimeout(() => (renewing = renew()), inMs);
    // A pending renewal must not keep the process alive on its own.
    timer.unref();
  };
  const renewEvery = settings.renewIntervalInMs ?? durationInMs / 3;
  const renew = async (): Promise<void> => {
    const sentAt = performance.now();
    try {
      await lease.renewLease();
      since = sentAt;
      heldUntil = sentAt + durationInMs - settings.expiryMarginInMs;
      schedule(renewEvery);
    } catch (error) {
      if (stopped) return;
      const status = statusOf(error);
      // 409/412/404: broken, taken by someone else, or gone: the service says it is no longer ours.
      const refused = status === 409 || status === 412 || status === 404;
      const retryInMs = Math.min(1000, renewEvery);
      if (refused || performance.now() + retryInMs >= heldUntil) lose(toSignalboxError(error, `lease "${name}"`));
      else schedule(retryInMs);
    }
  };

  const handle: LeaseHandle = {
    name,
    signal: controller.signal,
    ...(settings.carried ? { carried: settings.carried } : {}),
    carry: (instance) => void (carriedOut = instance),
    assertHeld: () => {
      if (!controller.signal.aborted && performance.now() >= heldUntil) lose(new Error('the lease may have expired: no renewal succeeded in time'));
      if (controller.signal.aborted) throw controller.signal.reason instanceof LeaseLostError ? controller.signal.reason : new LeaseLostError(name);
    },
    discard: async () => {
      // Deleting a leased blob needs the lease id; a blob already gone is what we wanted.
      stopped = true;
      clearTimeout(timer);
      try {
        await blob.delete({ conditions: { leaseId: lease.leaseId } });
      } catch (error) {
        if (statusOf(error) !== 404) throw toSignalboxError(error, `lease "${name}"`);
      }
      discarded = true;
    },
  };

  // A lease handed over keeps the renewal rhythm of its acquisition.
  schedule(Math.max(0, since + renewEvery - performance.now()));
  const wallClockOf = (monotonic: number): number => Date.now() - (performance.now() - monotonic);
  // For `inspect`: `since` is this holder's start (a handed-over lease counts from its last renewal);
  // `expiresAt` is read when asked, as renewals move it.
  const untrack = settings.track({
    since: wallClockOf(acquiredAt),
    get expiresAt() {
      return infinite ? undefined : wallClockOf(heldUntil);
    },
  });
  try {
    return await work(handle);
  } finally {
    untrack();
    stopped = true;
    clearTimeout(timer);
    const inFlight = renewing;
    onEnd({
      lease,
      since,
      heldUntil,
      // A renewal still in flight may yet fail: treat the lease as lost then (no hand-over).
      // A discarded lease (its blob deleted) is gone: nothing to hand over or release.
      lost: discarded || controller.signal.aborted || inFlight !== undefined,
      carried: carriedOut,
      // Best effort: if this fails the lease simply expires. Never mask the work's own result or error.
      // withLease decides whether its caller waits for this (releaseInBackground).
      release: async () => {
        await inFlight?.catch(() => undefined);
        if (discarded) return;
        await lease.releaseLease().catch(() => undefined);
      },
    });
  }
}
