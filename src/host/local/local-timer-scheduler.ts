/**
 * @module The local server's timer scheduler, driven by storage so that it survives restarts. The truth
 * is the due-timer index (src/storage/table-due-timer-index.ts), written before each save that arms
 * timers: a pass reads every row due by now (earliest first), submits each timer's trigger as an operation
 * (its id is the timer id, so a repeat finds the first), then removes the submitted rows in batches.
 * The operation store keeps what was submitted: a crash after a submit and before the removal submits
 * again, harmlessly; one before the submit finds the row at the next start. The instance decides at
 * firing time whether the timer is still armed (a stale timer saves nothing).
 *
 * Between passes it sleeps until the next row's due time (at most `maxSleepInMs`, in case another
 * process armed one, and at least `minIntervalInMs` after the last pass began, so that timers falling due
 * together share a pass); a timer armed here (the relay's `timer` rows) wakes it sooner. A timer thus
 * fires within about a quarter of a second of its due time when the process is not busy. Started, it runs a pass
 * at once: timers that fell due while the server was down fire then, once each.
 */
import type { DueTimerIndex } from '../../engine/ports';
import { timerTrigger, type DueTimer } from '../../engine/decide';
import type { Trigger } from '../../engine/model';
import { Semaphore } from './concurrency';
import type { Logger } from '../operation-activity-service';
import { onePage } from '../../engine/ports';

export interface LocalTimerSchedulerOptions {
  readonly index: DueTimerIndex;
  /** Records the trigger's operation and starts it (TriggerSubmitter.submit). */
  readonly submit: (trigger: Trigger) => Promise<unknown>;
  readonly logger: Logger;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /** Longest sleep between passes. @default 30000 */
  readonly maxSleepInMs?: number;
  /** Wait before retrying after a failed pass or submit. @default 1000 */
  readonly retryDelayInMs?: number;
  /** Submits in flight at once. @default 32 */
  readonly concurrency?: number;
  /**
   * Shortest time from one pass to the next, so that timers falling due close together share a pass
   * (one index read and one batched removal for many timers). @default 250
   */
  readonly minIntervalInMs?: number;
}

const PAGE_SIZE = 1000;

export class LocalTimerScheduler {
  private readonly now: () => Date;
  private readonly semaphore: Semaphore;
  private wake?: { readonly at: number; readonly handle: NodeJS.Timeout };
  private running?: Promise<void>;
  private again = false;
  private stopped = true;
  /** Timers submitted by this process (for tests and the benchmark). */
  fired = 0;

  constructor(private readonly options: LocalTimerSchedulerOptions) {
    this.now = options.now ?? (() => new Date());
    this.semaphore = new Semaphore(options.concurrency ?? 32);
  }

  /** Starts: a pass at once (what fell due while stopped), then sleeps until the next due time. */
  start(): void {
    this.stopped = false;
    this.runPass();
  }

  /** A timer was armed (its row is in the index): wake up by its due time. */
  notify(timer: DueTimer): void {
    if (this.stopped) return;
    this.sleepUntil(Date.parse(timer.dueAt));
  }

  /** Stops waking up and waits for a pass in progress (submitted operations are the runner's). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.wake) clearTimeout(this.wake.handle);
    this.wake = undefined;
    await this.running;
  }

  /** Resolves when no pass is running or asked for (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private sleepUntil(atMs: number): void {
    if (this.stopped) return;
    if (this.wake && this.wake.at <= atMs) return;
    if (this.wake) clearTimeout(this.wake.handle);
    const delay = Math.max(0, Math.min(atMs - this.now().getTime(), 2 ** 31 - 1));
    const handle = setTimeout(() => {
      this.wake = undefined;
      this.runPass();
    }, delay);
    handle.unref();
    this.wake = { at: atMs, handle };
  }

  private runPass(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.pass();
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = undefined;
    });
  }

  /**
   * Fires everything due now; then sleeps until the next row (or retries soon after a failure). One read
   * serves both: it asks for the rows due up to the longest sleep, earliest first, so the first row after
   * the due ones is where to wake (an idle pass costs one index read, not two). It reads again only when a
   * page was all due rows, since more may follow it. Rows are removed as they are submitted, so each read
   * starts from the earliest again; a row armed here during the pass wakes it through notify().
   */
  private async pass(): Promise<void> {
    const startedAt = this.now().getTime();
    const retryDelay = this.options.retryDelayInMs ?? 1000;
    const maxSleep = this.options.maxSleepInMs ?? 30_000;
    const failed = new Set<string>();
    try {
      let next: DueTimer | undefined;
      for (;;) {
        const readAt = this.now().getTime();
        const page = await onePage(this.options.index.listDue(new Date(readAt + maxSleep), { maxPageSize: PAGE_SIZE }));
        const pending = page.items.filter((timer) => !failed.has(timer.timerId));
        const due = pending.filter((timer) => Date.parse(timer.dueAt) <= readAt);
        next = pending.find((timer) => Date.parse(timer.dueAt) > readAt);
        if (due.length > 0) {
          const submitted = await this.submitAll(due, failed);
          if (submitted.length) await this.options.index.remove(submitted);
          if (this.stopped) return;
        }
        const pageMayHaveHiddenDueRows = due.length > 0 && next === undefined && page.items.length >= PAGE_SIZE;
        if (!pageMayHaveHiddenDueRows) break;
      }
      const nowMs = this.now().getTime();
      let wakeAt = nowMs + maxSleep;
      // A row that failed to submit is tried again after a pause; one that fell due during the pass, at once.
      if (next) wakeAt = Math.min(wakeAt, Date.parse(next.dueAt));
      if (failed.size > 0) wakeAt = Math.min(wakeAt, nowMs + retryDelay);
      this.sleepUntil(Math.max(wakeAt, startedAt + (this.options.minIntervalInMs ?? 250)));
    } catch (error) {
      this.options.logger.warn('The timer scheduler could not read or update the due timers; trying again', { error: String(error) });
      this.sleepUntil(this.now().getTime() + retryDelay);
    }
  }

  private async submitAll(timers: readonly DueTimer[], failed: Set<string>): Promise<DueTimer[]> {
    const submitted: DueTimer[] = [];
    await Promise.all(
      timers.map((timer) =>
        this.semaphore.run(async () => {
          try {
            await this.options.submit(timerTrigger(timer));
            submitted.push(timer);
            this.fired += 1;
          } catch (error) {
            failed.add(timer.timerId);
            this.options.logger.warn('A due timer could not be submitted; it stays and is tried again', { instanceId: timer.instanceId, timerId: timer.timerId, error: String(error) });
          }
        }),
      ),
    );
    return submitted;
  }
}
