/**
 * @module Per-name mutual exclusion across workers with Azure Blob leases: one lease blob per name in
 * the leases container (container and blobs created lazily; creation races are harmless).
 *
 * - Acquire for 15 to 60 s (default 60) or -1 (infinite); renew in the background every third of the
 *   duration; release in `finally`. The floor is two blob requests per `withLease`: acquire and release.
 * - A busy lease (409) is retried with full-jitter exponential backoff from a few milliseconds, capped
 *   per wait, for at most `maxWaitInMs` in total, then LeaseUnavailableError.
 * - Callers in the same process queue locally per name (FIFO) instead of polling storage against each
 *   other: contention inside one worker costs no failed acquires, and polling is left to contention
 *   between workers.
 * - A renewal refused by the service (the lease was broken or taken) loses the lease at once; a
 *   transient renewal failure is retried while the lease is still certainly held. Losing it aborts
 *   `LeaseHandle.signal`; `assertHeld()` then throws LeaseLostError, as it does once the time the lease
 *   is known to be held has run out (a renewal that never came back).
 */
import type { BlobLeaseClient, BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import { assertLeaseDuration } from '../engine/lease-duration';
import { LeaseLostError, LeaseUnavailableError } from '../engine/errors';
import type { LeaseHandle, LeaseOptions, LeaseProvider } from '../engine/ports';
import { isRestError, serviceErrorCode, statusOf, toSignalboxError } from '../storage/errors';
import { backoffDelayInMs, delay, type BackoffOptions } from './backoff';
import { leaseBlobName } from './lease-name';

export interface BlobLeaseProviderOptions extends BackoffOptions {
  /**
   * Renewal period. Tests shorten it to see a lost lease quickly.
   * @default a third of the lease duration
   */
  renewIntervalInMs?: number;
  /** How long before the known expiry the lease is treated as lost (clock skew, request latency). @default 2000 */
  expiryMarginInMs?: number;
}

/** Creating the blob or container is retried this often before giving up (someone keeps deleting them). */
const MAX_CREATE_ROUNDS = 3;

export class BlobLeaseProvider implements LeaseProvider {
  private readonly localQueues = new Map<string, Promise<void>>();
  private readonly expiryMarginInMs: number;

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
    const blob = this.container.getBlockBlobClient(leaseBlobName(name));

    // Join this process's queue for the name; the previous holder or waiter must finish first.
    const previous = this.localQueues.get(name);
    let leaveQueue!: () => void;
    const mine = new Promise<void>((resolve) => (leaveQueue = resolve));
    const tail = previous ? previous.then(() => mine) : mine;
    this.localQueues.set(name, tail);
    try {
      if (previous) await waitLocally(previous, name, maxWaitInMs, started, options.abortSignal);
      const lease = blob.getBlobLeaseClient();
      const acquiredAt = await this.acquire(blob, lease, name, durationInSeconds, maxWaitInMs, started, options.abortSignal);
      return await this.hold(blob, lease, name, durationInSeconds, acquiredAt, work);
    } finally {
      leaveQueue();
      if (this.localQueues.get(name) === tail) this.localQueues.delete(name);
    }
  }

  private async acquire(
    blob: BlockBlobClient,
    lease: BlobLeaseClient,
    name: string,
    durationInSeconds: number,
    maxWaitInMs: number,
    started: number,
    abortSignal: AbortSignal | undefined,
  ): Promise<number> {
    let busyAttempts = 0;
    let createRounds = 0;
    for (;;) {
      const sentAt = performance.now();
      try {
        await lease.acquireLease(durationInSeconds, { abortSignal });
        // The lease runs from some moment after the request was sent: count from the send, to be safe.
        return sentAt;
      } catch (error) {
        // An abort during a request surfaces as the SDK's AbortError: report the caller's reason instead,
        // as an abort during a backoff wait does.
        if (abortSignal?.aborted) throw abortSignal.reason;
        const status = statusOf(error);
        if (status === 404 && createRounds < MAX_CREATE_ROUNDS) {
          createRounds += 1;
          await this.createBlob(blob, name, abortSignal);
          continue;
        }
        if (status !== 409) throw toSignalboxError(error, `lease "${name}"`);
        const waited = performance.now() - started;
        if (waited >= maxWaitInMs) throw new LeaseUnavailableError(name, Math.round(waited), { cause: error });
        await delay(Math.min(maxWaitInMs - waited, backoffDelayInMs(busyAttempts, this.options)), abortSignal);
        busyAttempts += 1;
      }
    }
  }

  /** Creates the (empty) lease blob, and the container if that is missing too. Losing a race is fine. */
  private async createBlob(blob: BlockBlobClient, name: string, abortSignal: AbortSignal | undefined): Promise<void> {
    try {
      await blob.upload('', 0, { conditions: { ifNoneMatch: '*' }, abortSignal });
      return;
    } catch (error) {
      const status = statusOf(error);
      if (status === 409 || status === 412) return;
      if (!(status === 404 && isRestError(error) && serviceErrorCode(error) === 'ContainerNotFound')) throw toSignalboxError(error, `lease "${name}"`);
    }
    try {
      await this.container.create({ abortSignal });
    } catch (error) {
      // Only "it exists already" is expected; anything else is a real failure.
      if (!(statusOf(error) === 409 && isRestError(error) && serviceErrorCode(error) === 'ContainerAlreadyExists')) {
        throw toSignalboxError(error, `lease container "${this.container.containerName}"`);
      }
    }
    try {
      await blob.upload('', 0, { conditions: { ifNoneMatch: '*' }, abortSignal });
    } catch (error) {
      const status = statusOf(error);
      if (status !== 409 && status !== 412) throw toSignalboxError(error, `lease "${name}"`);
    }
  }

  private async hold<T>(
    blob: BlockBlobClient,
    lease: BlobLeaseClient,
    name: string,
    durationInSeconds: number,
    acquiredAt: number,
    work: (lease: LeaseHandle) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    const durationInMs = durationInSeconds * 1000;
    const infinite = durationInSeconds === -1;
    // The lease is certainly ours until this moment.
    let heldUntil = infinite ? Number.POSITIVE_INFINITY : acquiredAt + durationInMs - this.expiryMarginInMs;
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let renewing: Promise<void> | undefined;
    let discarded = false;

    const lose = (cause: unknown): void => {
      if (!controller.signal.aborted) controller.abort(new LeaseLostError(name, { cause }));
    };
    const schedule = (inMs: number): void => {
      if (stopped || infinite) return;
      timer = setTimeout(() => (renewing = renew()), inMs);
      // A pending renewal must not keep the process alive on its own.
      timer.unref();
    };
    const renewEvery = this.options.renewIntervalInMs ?? durationInMs / 3;
    const renew = async (): Promise<void> => {
      const sentAt = performance.now();
      try {
        await lease.renewLease();
        heldUntil = sentAt + durationInMs - this.expiryMarginInMs;
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

    schedule(renewEvery);
    try {
      return await work(handle);
    } finally {
      stopped = true;
      clearTimeout(timer);
      await renewing?.catch(() => undefined);
      // Best effort: if this fails the lease simply expires. Never mask the work's own result or error.
      if (!discarded) await lease.releaseLease().catch(() => undefined);
    }
  }
}

/** Waits for the previous local holder of the name, within the overall wait budget. */
async function waitLocally(previous: Promise<void>, name: string, maxWaitInMs: number, started: number, abortSignal: AbortSignal | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      previous,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new LeaseUnavailableError(name, Math.round(performance.now() - started))), Math.max(0, maxWaitInMs - (performance.now() - started)));
        if (abortSignal) {
          if (abortSignal.aborted) reject(abortSignal.reason);
          onAbort = () => reject(abortSignal.reason);
          abortSignal.addEventListener('abort', onAbort, { once: true });
        }
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) abortSignal?.removeEventListener('abort', onAbort);
  }
}
