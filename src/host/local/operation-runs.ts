/**
 * @module The operations running in this process, as the local runner keeps them: each run's promise by
 * operation id, what `Prefer: wait` reads from memory (`waitUntilFinished`; a durable host asks the
 * orchestration's status instead), and the wait for them all at a graceful stop. A run is forgotten when it
 * settles.
 */
import type { WaitOutcome } from '../trigger-submitter';

export class OperationRuns {
  private readonly running = new Map<string, Promise<void>>();

  /** `shutdown` ends every wait (`pending`) when the runner stops. */
  constructor(private readonly shutdown: AbortSignal) {}

  /** Operations currently running. */
  get size(): number {
    return this.running.size;
  }

  has(operationId: string): boolean {
    return this.running.has(operationId);
  }

  /** Keeps `run` (which never rejects) until it settles, then runs `forget`. */
  add(operationId: string, run: Promise<void>, forget: () => void): void {
    const kept = run.finally(() => {
      this.running.delete(operationId);
      forget();
    });
    this.running.set(operationId, kept);
  }

  /** Resolves when the run of `operationId` ends, or when `timeoutInMs`, `signal` or the shutdown end the wait. */
  async waitUntilFinished(operationId: string, timeoutInMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    const run = this.running.get(operationId);
    if (!run) return 'unknown';
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        run.then((): WaitOutcome => 'finished'),
        new Promise<WaitOutcome>((resolve) => {
          timer = setTimeout(() => resolve('pending'), timeoutInMs);
          onAbort = () => resolve('pending');
          signal?.addEventListener('abort', onAbort, { once: true });
          this.shutdown.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort) {
        signal?.removeEventListener('abort', onAbort);
        this.shutdown.removeEventListener('abort', onAbort);
      }
    }
  }

  /** Resolves when the run of `operationId` (if any) ends. */
  async whenDone(operationId: string): Promise<void> {
    await this.running.get(operationId);
  }

  /** Resolves when every run in flight has ended, or after `timeoutInMs`. */
  async settled(timeoutInMs: number): Promise<void> {
    const all = Promise.allSettled([...this.running.values()]);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, timeoutInMs).unref())]);
  }
}
