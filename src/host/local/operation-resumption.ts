/**
 * @module Poison handling for operations resumed at start-up. An operation left unfinished is resumed by
 * the next start; if delivering its trigger is what crashed the process, resuming it forever would
 * crash-loop the server. So every start-up that resumes an operation counts itself on the record
 * (`resumes`), and one resumed MAX_OPERATION_RESUMES times without finishing fails instead, with an error
 * that says why. Instances it had not reached yet never see the trigger; the summary says which had.
 * The count starts again when the operation got further than ever before (its recorded progress, page by
 * page, past the furthest point of earlier start-ups, `resumedAtProgress`): a long operation that restarts
 * (deploys, an operator's Ctrl-C) gets further each time and is not poison, while one that dies at the
 * same place every time gets no further and is. (A resumed run goes on from the operation's checkpoint:
 * the batches it counted are not offered again, and the instances of the batch in flight at the crash
 * that had applied it answer from their records.)
 */
import { OperationStatus } from '../../engine/model';
import { PreconditionFailedError } from '../../engine/model';
import type { StoredOperation } from '../../engine/operations';
import type { OperationStore } from '../../engine/ports';
import type { Logger } from '../operation-activity-service';

/**
 * Start-ups in a row that may resume one operation without it getting further in between; a graceful
 * stop mid-operation counts as one too.
 */
export const MAX_OPERATION_RESUMES = 3;

/**
 * Records one more resumption of `operation` and returns the updated record to run, or undefined when it
 * must not run: failed as poison here, or changed meanwhile by another process (which then owns it).
 */
export async function claimResumption(operations: OperationStore, operation: StoredOperation, logger: Logger, now: Date): Promise<StoredOperation | undefined> {
  const reached = operation.progress?.processed ?? 0;
  const furthest = operation.resumedAtProgress ?? 0;
  const resumes = reached > furthest ? 0 : (operation.resumes ?? 0);
  try {
    if (resumes >= MAX_OPERATION_RESUMES) {
      const work = operation.kind === 'migration' || operation.kind === 'bulk' ? `its ${operation.kind} work` : `delivering trigger "${operation.triggerId}"`;
      const error = `resumed at ${resumes} start-ups without finishing or progressing: ${work} may be what stopped the process (poison), so it is no longer retried`;
      await operations.update({ ...operation, status: OperationStatus.failed, updatedAt: now.toISOString(), error }, { ifMatch: operation.etag });
      logger.error('operation failed as poison', { operationId: operation.id, kind: operation.kind ?? 'trigger', ...poisonSubject(operation), resumes, reason: error });
      return undefined;
    }
    return await operations.update({ ...operation, resumes: resumes + 1, resumedAtProgress: Math.max(reached, furthest), updatedAt: now.toISOString() }, { ifMatch: operation.etag });
  } catch (error) {
    if (error instanceof PreconditionFailedError) return undefined;
    throw error;
  }
}

/**
 * Clears an unfinished operation's resumption count: it was seen waiting (for a concurrency slot) after a start,
 * so that start's resumption was no strike. Changed meanwhile (its own run wrote, another process claimed it), it
 * is left as it is.
 */
export async function clearResumptionStrikes(operations: OperationStore, operationId: string, now: Date): Promise<void> {
  // Another process's start-up may claim it meanwhile (a strike of its own, cleared by its own first attempt): read again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const operation = await operations.get(operationId);
    if (!operation || !operation.resumes || (operation.status !== OperationStatus.notStarted && operation.status !== OperationStatus.running)) return;
    try {
      await operations.update({ ...operation, resumes: 0, updatedAt: now.toISOString() }, { ifMatch: operation.etag });
      return;
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
    }
  }
}

/** What the poison operation was about, for its log line: the workflow of a migration or bulk action, a trigger's name. */
function poisonSubject(operation: StoredOperation): Record<string, string> {
  if (operation.kind === 'migration') return { workflowId: operation.migration.workflowId };
  if (operation.kind === 'bulk') return { workflowId: operation.bulk.filter.workflowId };
  return { triggerId: operation.triggerId, triggerName: operation.trigger.name };
}
