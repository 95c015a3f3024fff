/**
 * @module One route answers in more than one shape (a send: 202 accepted, or the finished operation
 * to `Prefer: wait`, or a dry run's report to `?dryRun=true`); these take the shape the request asked for,
 * so no caller casts.
 */
import type { AcceptedOperation, BulkDryRun, DryRun, MigrationReport, Operation } from './types';

type OperationAnswer = AcceptedOperation | Operation | DryRun | BulkDryRun | MigrationReport;

/**
 * The accepted operation of a request that was not a dry run: the 202 body, or (to `Prefer: wait`) the
 * finished operation described the same way.
 */
export function acceptedFromAnswer(answer: OperationAnswer): AcceptedOperation {
  if ('operationId' in answer) return answer;
  if ('id' in answer) return { operationId: answer.id, status: answer.status, statusUrl: `/api/operations/${encodeURIComponent(answer.id)}` };
  throw new Error('the server answered a dry run to a request that was not one');
}

/** A trigger's dry run report (the 200 to `?dryRun=true`). */
export function dryRunFromAnswer(answer: AcceptedOperation | Operation | DryRun): DryRun {
  if ('operationId' in answer || 'id' in answer) throw new Error('the server answered an operation to a dry run');
  return answer;
}
