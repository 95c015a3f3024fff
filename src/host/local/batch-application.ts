/**
 * @module One batch (a page of candidates) of a local operation, applied: every instance of it applied
 * (by the runner's `applyOne`: in the scheduler's slots, parked while its key's slots are taken), its
 * progress written as they go (batch-progress.ts), its results stored together after it, and one outcome
 * for the fan-out once every application has settled. A failure does not leave the others running
 * uncounted (the fan-out's rule for every host).
 */
import { countOutcomes, emptyTotals, failureReason, type AppliedOutcome, type BatchOutcome, type FanOutBatch, type OperationProgress } from '../../engine/operations';
import type { ApplyOperationInput, InProcessOperationActivities } from '../contracts/operation-activities';
import type { Logger } from '../operation-activity-service';
import { progressWithin } from './batch-progress';

export interface BatchApplication {
  readonly operationId: string;
  readonly batch: FanOutBatch;
  /** The operation's progress before this batch. */
  readonly progress: () => OperationProgress;
  readonly activities: InProcessOperationActivities;
  /** One application (the runner's: scheduled, parked, retried). */
  readonly applyOne: (input: ApplyOperationInput) => Promise<AppliedOutcome>;
  /** The runner's retry of an activity call (activity-retry.ts). */
  readonly withRetry: <T>(step: () => Promise<T>) => Promise<T>;
  readonly now: () => Date;
  readonly logger: Logger;
}

/** Applies the operation to each instance of the batch and settles (never rejects) once every one has. */
export async function applyBatch({ operationId, batch: { instanceIds, keepResults }, progress, activities, applyOne, withRetry, now, logger }: BatchApplication): Promise<BatchOutcome> {
  const pageProgress = progressWithin({ operationId, before: progress, now, activities, logger });
  // A batch's results are stored together after it (one transaction per 100 rows, not a request each),
  // before the fan-out counts it: a crash before that re-applies the batch (its instances answer `duplicate`).
  const storeResults = !keepResults && activities.storeResults ? activities.storeResults.bind(activities) : undefined;
  const input = (instanceId: string): ApplyOperationInput => ({
    operationId,
    instanceId,
    ...(keepResults ? { keepResult: true } : {}),
    ...(storeResults ? { storeResultLater: true } : {}),
    parkWhenQueued: true,
  });
  const settled = await Promise.allSettled(instanceIds.map((instanceId) => applyOne(input(instanceId)).then((result) => (pageProgress.applied(), result))));
  await pageProgress.settled();
  const applied = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  let failure: { readonly reason: unknown } | undefined = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  const unstored = applied.flatMap(({ unstored }) => (unstored ? [unstored] : []));
  if (storeResults && unstored.length > 0) {
    try {
      await withRetry(() => storeResults({ operationId, results: unstored }));
    } catch (error) {
      failure ??= { reason: error };
    }
  }
  const results = applied.map(({ unstored: _stored, ...outcome }) => outcome);
  return { ...countOutcomes(emptyTotals([]), results), ...(failure ? { error: failureReason(failure.reason) } : {}) };
}
