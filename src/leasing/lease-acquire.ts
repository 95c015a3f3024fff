/**
 * @module Acquiring a blob lease: a busy lease (409) retried with full-jitter backoff within the caller's
 * wait budget, a missing blob (and container) created on the way; and the local wait for this process's
 * previous holder of a name.
 */
import type { BlobLeaseClient, BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import { LeaseUnavailableError } from '../engine/model';
import { isRestError, serviceErrorCode, statusOf, toSignalboxError } from '../storage/errors';
import { backoffDelayInMs, delay, type BackoffOptions } from './backoff';

/** Creating the blob or container is retried this often before giving up (someone keeps deleting them). */
const MAX_CREATE_ROUNDS = 3;

export interface AcquireSettings {
  readonly container: ContainerClient;
  readonly blob: BlockBlobClient;
  readonly lease: BlobLeaseClient;
  readonly name: string;
  readonly durationInSeconds: number;
  readonly maxWaitInMs: number;
  /** When the caller started waiting (performance.now()). */
  readonly started: number;
  readonly abortSignal: AbortSignal | undefined;
  readonly backoff: BackoffOptions;
}

/** Acquires the lease; answers when the successful acquire was sent (performance.now()). */
export async function acquireLease(settings: AcquireSettings): Promise<number> {
  const { blob, lease, name, durationInSeconds, maxWaitInMs, started, abortSignal } = settings;
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
        await createLeaseBlob(settings.container, blob, name, abortSignal);
        continue;
      }
      if (status !== 409) throw toSignalboxError(error, `lease "${name}"`);
      const waited = performance.now() - started;
      if (waited >= maxWaitInMs) throw new LeaseUnavailableError(name, Math.round(waited), { cause: error });
      await delay(Math.min(maxWaitInMs - waited, backoffDelayInMs(busyAttempts, settings.backoff)), abortSignal);
      busyAttempts += 1;
    }
  }
}

/** Creates the (empty) lease blob, and the container if that is missing too. Losing a race is fine. */
export async function createLeaseBlob(container: ContainerClient, blob: BlockBlobClient, name: string, abortSignal: AbortSignal | undefined): Promise<void> {
  try {
    await blob.upload('', 0, { conditions: { ifNoneMatch: '*' }, abortSignal });
    return;
  } catch (error) {
    const status = statusOf(error);
    if (status === 409 || status === 412) return;
    if (!(status === 404 && isRestError(error) && serviceErrorCode(error) === 'ContainerNotFound')) throw toSignalboxError(error, `lease "${name}"`);
  }
  try {
    await container.create({ abortSignal });
  } catch (error) {
    // Only "it exists already" is expected; anything else is a real failure.
    if (!(statusOf(error) === 409 && isRestError(error) && serviceErrorCode(error) === 'ContainerAlreadyExists')) {
      throw toSignalboxError(error, `lease container "${container.containerName}"`);
    }
  }
  try {
    await blob.upload('', 0, { conditions: { ifNoneMatch: '*' }, abortSignal });
  } catch (error) {
    const status = statusOf(error);
    if (status !== 409 && status !== 412) throw toSignalboxError(error, `lease "${name}"`);
  }
}

/** Waits for the previous local holder of the name, within the overall wait budget. */
export async function waitLocally(previous: Promise<void>, name: string, maxWaitInMs: number, started: number, abortSignal: AbortSignal | undefined): Promise<void> {
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
