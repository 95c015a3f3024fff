/**
 * @module Waiting for an operation to finish (`Prefer: wait`, src/host/http/prefer-wait.ts) without
 * polling storage: the launcher that runs it says when it is done (the local runner from memory, the
 * durable launcher as durable-functions' waitForCompletionOrCreateCheckStatusResponse does), and the
 * finished record is then read once, from the finished-operation cache when this process wrote it.
 * Only an operation run elsewhere (another local server on the same storage) is polled in storage,
 * every OTHER_PROCESS_POLL_IN_MS, because nothing here can tell when it finishes.
 */
import type { StoredOperation } from '../engine/operations';
import type { OperationStore } from '../engine/ports';
import { delay } from '../leasing/backoff';
import { isFinished } from './finished-operation-cache';
import type { OperationLauncher } from './trigger-submitter';

export const OTHER_PROCESS_POLL_IN_MS = 250;

export type AwaitOperation = (operationId: string, timeoutInMs: number, known?: StoredOperation) => Promise<StoredOperation | undefined>;

/**
 * `awaitOperation(id, timeoutInMs, known?)`: the operation's record, finished if it finished within
 * `timeoutInMs`, else as it stands then; undefined when there is no such operation. `known` is a
 * record just read or written (the POST routes), saving the first read. `signal` (the host stopping)
 * ends every wait early.
 */
export function operationAwaiter(operations: OperationStore, launcher: OperationLauncher, signal?: AbortSignal): AwaitOperation {
  return async (operationId, timeoutInMs, known) => {
    const deadline = performance.now() + timeoutInMs;
    let current = known ?? (await operations.get(operationId));
    if (!current || isFinished(current) || timeoutInMs <= 0 || signal?.aborted) return current;
    const outcome = (await launcher.waitUntilFinished?.(operationId, timeoutInMs, signal)) ?? 'unknown';
    // Finished: its record was written by this process (the cache has it). Pending: one read for the 202.
    if (outcome !== 'unknown') return (await operations.get(operationId)) ?? current;
    for (;;) {
      const remaining = deadline - performance.now();
      if (remaining <= 0 || signal?.aborted) return current;
      try {
        await delay(Math.min(OTHER_PROCESS_POLL_IN_MS, remaining), signal);
      } catch {
        return current; // the host is stopping: answer with what is known
      }
      current = (await operations.get(operationId)) ?? current;
      if (isFinished(current)) return current;
    }
  };
}
