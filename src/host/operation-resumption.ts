/**
 * @module Poison handling for operations resumed at start-up. An operation left unfinished is resumed by
 * the next start; if delivering its trigger is what crashed the process, resuming it forever would
 * crash-loop the server. So every start-up that resumes an operation counts itself on the record
 * (`resumes`), and one resumed MAX_OPERATION_RESUMES times without finishing fails instead, with an error
 * that says why. Instances it had not reached yet never see the trigger; the summary says which had.
 */
import { OperationStatus } from '../engine/enums';
import { PreconditionFailedError } from '../engine/errors';
import type { StoredOperation } from '../engine/operation';
import type { OperationStore } from '../engine/ports';
import type { Logger } from './trigger-activity-service';

/** Start-ups that may resume one operation; a graceful stop mid-operation counts as one too. */
export const MAX_OPERATION_RESUMES = 3;

/**
 * Records one more resumption of `operation` and returns the updated record to run, or undefined when it
 * must not run: failed as poison here, or changed meanwhile by another process (which then owns it).
 */
export async function claimResumption(operations: OperationStore, operation: StoredOperation, logger: Logger, now: Date): Promise<StoredOperation | undefined> {
  const resumes = operation.resumes ?? 0;
  try {
    if (resumes >= MAX_OPERATION_RESUMES) {
      const work = operation.kind === 'migration' || operation.kind === 'bulk' ? `its ${operation.kind} work` : `delivering trigger "${operation.triggerId}"`;
      const error = `resumed at ${resumes} start-ups without finishing: ${work} may be what stopped the process (poison), so it is no longer retried`;
      await operations.update({ ...operation, status: OperationStatus.failed, updatedAt: now.toISOString(), error }, { ifMatch: operation.etag });
      logger.error('operation failed as poison', { operationId: operation.id, resumes });
      return undefined;
    }
    return await operations.update({ ...operation, resumes: resumes + 1, updatedAt: now.toISOString() }, { ifMatch: operation.etag });
  } catch (error) {
    if (error instanceof PreconditionFailedError) return undefined;
    throw error;
  }
}
