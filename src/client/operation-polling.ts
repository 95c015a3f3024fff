/**
 * @module Following an operation, for every caller of the typed client (the CLI's `--wait` and `watch`,
 * the console's operation view): how far it has got, whether it has finished, and one polling loop that
 * backs off from a short first poll to the server's Retry-After (or a cap), stops when asked, and leaves
 * to its caller which failed reads are worth another try.
 */
import type { components } from './api-types';

type Operation = components['schemas']['Operation'];

export function isFinished(operation: Pick<Operation, 'status'> | undefined): boolean {
  return operation?.status === 'succeeded' || operation?.status === 'failed';
}

export interface OperationProgress {
  readonly processed: number;
  /** Undefined while the server does not know yet how many instances there are. */
  readonly total: number | undefined;
}

/**
 * Instances processed of the total: the operation's `progress` while the server reports it, otherwise
 * the outcomes counted in `summary` of `candidates` (a finished operation's total is never unknown).
 */
export function operationProgress(operation: Pick<Operation, 'status' | 'progress' | 'summary' | 'candidates'>): OperationProgress {
  const counted = Object.values(operation.summary ?? {}).reduce((sum, count) => sum + count, 0);
  if (operation.progress) {
    return { processed: operation.progress.processed, total: operation.progress.total ?? (isFinished(operation) ? operation.progress.processed : undefined) };
  }
  const total = operation.candidates > 0 || isFinished(operation) ? Math.max(operation.candidates, counted) : undefined;
  return { processed: counted, total };
}

/** One read of the operation, and how long the server asks a poller to wait (Retry-After) while it runs. */
export interface OperationRead {
  readonly operation: Operation;
  readonly retryAfterInMs?: number;
}

export interface PollOperationOptions {
  /** The wait after the first poll; each later one doubles, up to the cap. @default 100 */
  readonly firstIntervalInMs?: number;
  /** The longest wait between polls (the server's Retry-After lowers it). @default 1000 */
  readonly maxIntervalInMs?: number;
  /** Each operation read, finished or not. */
  readonly onUpdate?: (operation: Operation) => void;
  /**
   * A read failed: true reads again after twice the current interval (a network blip), false ends the
   * polling with that error. @default () => false
   */
  readonly retryAfterFailure?: (error: unknown) => boolean;
  /** Stops the polling: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** Reads the operation until it has finished; resolves with the finished operation. */
export async function pollOperation(read: () => Promise<OperationRead>, options: PollOperationOptions = {}): Promise<Operation> {
  const maxIntervalInMs = options.maxIntervalInMs ?? 1000;
  let intervalInMs = Math.min(options.firstIntervalInMs ?? 100, maxIntervalInMs);
  for (;;) {
    options.signal?.throwIfAborted();
    let answer: OperationRead;
    try {
      answer = await read();
    } catch (error) {
      options.signal?.throwIfAborted();
      if (!(options.retryAfterFailure?.(error) ?? false)) throw error;
      await delay(intervalInMs * 2, options.signal);
      continue;
    }
    options.signal?.throwIfAborted();
    options.onUpdate?.(answer.operation);
    if (isFinished(answer.operation)) return answer.operation;
    await delay(intervalInMs, options.signal);
    intervalInMs = Math.min(intervalInMs * 2, answer.retryAfterInMs ?? maxIntervalInMs, maxIntervalInMs);
  }
}

/** Resolves after `milliseconds`, or rejects with the signal's reason as soon as it aborts. */
export function delay(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', stop, { once: true });
  });
}
