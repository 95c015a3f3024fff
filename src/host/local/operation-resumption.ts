/**
 * @module Poison handling for operations resumed at start-up. An operation left unfinished is resumed by
 * the next start; if deciding it is what crashed the process, resuming it forever would crash-loop the
 * server. So a resumed run marks each decision it makes (`deciding`, by instance id): under the instance's
 * lease, as the decision begins, and removed before the lease is let go, however the decision ends. The next
 * holder of that lease that finds a mark knows the process that wrote it died while deciding (the lease
 * proves that decision is over, and a live process removes its mark before letting go): one strike
 * (`resumes`). MAX_OPERATION_RESUMES strikes in a row and the operation fails, with an error that says why;
 * instances it had not reached never see the trigger, and the summary says which had. A decision that returns
 * starts the count again; one handed back for a concurrency slot keeps it (see endDeciding).
 *
 * What is not a strike any more: a start-up that resumed the operation while it was waiting (for its
 * instance's lease behind other resumed work, for a concurrency slot, for its turn in the scheduler). Kills of
 * two servers, each restart resuming every unfinished operation, had such waits outlast the next kill and
 * failed accepted triggers as poison that were never applied (bench:flow-chaos seed 777: 32-79 of about 950).
 *
 * The first run of an operation writes no mark (it would cost two writes on every trigger), so a poison
 * operation dies unmarked once, then MAX_OPERATION_RESUMES times marked, and the start after that fails it.
 */
import { OperationStatus, PreconditionFailedError } from '../../engine/model';
import type { StoredOperation } from '../../engine/operations';
import type { OperationStore } from '../../engine/ports';
import type { Logger } from '../operation-activity-service';

/** Deaths in a row while deciding an operation (each witnessed by its mark) after which it fails as poison. */
export const MAX_OPERATION_RESUMES = 3;

/** Thrown under the lease, before deciding, by an operation whose strikes reached the limit: the run completes failed. */
export class PoisonOperationError extends Error {
  override readonly name = 'PoisonOperationError';
}

const MAX_MARK_WRITES = 5;

/**
 * Under `instanceId`'s lease, as a resumed run's decision of it begins: a mark left there by an earlier holder is
 * a strike, and at the limit this throws PoisonOperationError (nothing is decided); else this decision's `token`
 * is written in its place. An operation already finished is left alone (the decision answers `duplicate`).
 */
export async function beginDeciding(operations: OperationStore, operationId: string, instanceId: string, token: string, logger: Logger, now: Date): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const operation = await operations.get(operationId);
    if (!operation || (operation.status !== OperationStatus.notStarted && operation.status !== OperationStatus.running)) return;
    const died = operation.deciding?.[instanceId] !== undefined;
    const strikes = died ? (operation.resumes ?? 0) + 1 : (operation.resumes ?? 0);
    if (strikes >= MAX_OPERATION_RESUMES) {
      const error = poisonReason(operation, strikes);
      logger.error('operation failed as poison', { operationId, kind: operation.kind ?? 'trigger', ...poisonSubject(operation), instanceId, resumes: strikes, reason: error });
      throw new PoisonOperationError(error);
    }
    try {
      await operations.update({ ...operation, resumes: strikes, deciding: { ...operation.deciding, [instanceId]: token }, updatedAt: now.toISOString() }, { ifMatch: operation.etag });
      return;
    } catch (error) {
      // Written meanwhile (progress of the same run, another instance's mark): read again.
      if (!(error instanceof PreconditionFailedError) || attempt >= MAX_MARK_WRITES) throw error;
    }
  }
}

/**
 * Still under the lease, the decision over: its mark is removed. One that `decided` (its work returned) starts the
 * count again; one handed back (no slot free: a dead holder's slot may be what stands in the way of the next
 * decision of a poison trigger, until it expires), or stopped by a lost lease or a fault, keeps the strikes: it is
 * no evidence either way. A mark that is not this decision's (another process took the lease after this one lost
 * it) is left.
 */
export async function endDeciding(operations: OperationStore, operationId: string, instanceId: string, token: string, decided: boolean, now: Date): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const operation = await operations.get(operationId);
    if (!operation || operation.deciding?.[instanceId] !== token) return;
    const { [instanceId]: _ended, ...others } = operation.deciding;
    const { deciding: _marks, ...rest } = operation;
    try {
      await operations.update(
        { ...rest, resumes: decided ? 0 : (operation.resumes ?? 0), ...(Object.keys(others).length > 0 ? { deciding: others } : {}), updatedAt: now.toISOString() },
        { ifMatch: operation.etag },
      );
      return;
    } catch (error) {
      if (!(error instanceof PreconditionFailedError) || attempt >= MAX_MARK_WRITES) throw error;
    }
  }
}

function poisonReason(operation: StoredOperation, strikes: number): string {
  const work = operation.kind === 'migration' || operation.kind === 'bulk' ? `its ${operation.kind} work` : `delivering trigger "${operation.triggerId}"`;
  return `the process stopped while deciding it at ${strikes} start-ups in a row: ${work} may be what stopped the process (poison), so it is no longer retried`;
}

/** What the poison operation was about, for its log line: the workflow of a migration or bulk action, a trigger's name. */
function poisonSubject(operation: StoredOperation): Record<string, string> {
  if (operation.kind === 'migration') return { workflowId: operation.migration.workflowId };
  if (operation.kind === 'bulk') return { workflowId: operation.bulk.filter.workflowId };
  return { triggerId: operation.triggerId, triggerName: operation.trigger.name };
}
