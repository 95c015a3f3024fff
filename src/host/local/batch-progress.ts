/**
 * Progress within a batch of a local operation, as its instances are applied: a local host's addition
 * to the fan-out's records (a durable orchestrator sees a batch only as a whole).
 */
import type { OperationProgress } from '../../engine/operations';
import type { Logger } from '../operation-activity-service';
import type { OperationActivities } from '../contracts/operation-activities';

/** Progress within a page is written at most once per this many milliseconds of the runner's clock. */
export const PROGRESS_INTERVAL_IN_MS = 1000;

export interface BatchProgressOptions {
  readonly operationId: string;
  /** The operation's progress before this batch. */
  readonly before: () => OperationProgress;
  readonly now: () => Date;
  readonly activities: Pick<OperationActivities, 'recordProgress'>;
  readonly logger: Logger;
}

/**
 * At most one write per PROGRESS_INTERVAL_IN_MS of the runner's clock, one at a time, none once the
 * batch is done (the fan-out's record or the completion follows). So an operation of a few hundred
 * instances shows progress, and a fast one costs no more writes. A failed write is logged: progress is
 * for display, never the operation's failure.
 */
export function progressWithin({ operationId, before, now, activities, logger }: BatchProgressOptions) {
  const { processed: processedBefore } = before();
  let applied = 0;
  let lastWrite = now().getTime();
  let writing: Promise<void> | undefined;
  return {
    applied: () => {
      applied += 1;
      const at = now().getTime();
      const { total } = before();
      if (writing || at - lastWrite < PROGRESS_INTERVAL_IN_MS || (total !== undefined && processedBefore + applied >= total)) return;
      lastWrite = at;
      const progress = { processed: processedBefore + applied, ...(total !== undefined ? { total } : {}) };
      writing = activities
        .recordProgress({ operationId, progress })
        .catch((error: unknown) => logger.warn('could not record the progress of an operation', { operationId, error: String(error) }))
        .finally(() => (writing = undefined));
    },
    /** Waits for a write in flight, so that no progress lands after the completion. */
    settled: async () => {
      await writing;
    },
  };
}
