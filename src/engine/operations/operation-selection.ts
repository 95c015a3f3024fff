/**
 * @module What an operation covers and reports, by its kind: the selection its fan-out pages over and the
 * outcomes its summary lists. Apart from the requests (decide/operation-work.ts), which deciding needs.
 */
import { BulkAction, bulkDoneOutcome, migrationSelection, type InstanceSelection } from '../decide/operation-work';
import { ActionOutcome, TriggerOutcome, type OperationOutcome } from '../model/enums';
import { OperationKind, type Operation } from './operation';

/** The selection an operation pages over (none for a trigger: its candidates come from the interest index). */
export function selectionOf(operation: Operation): InstanceSelection | undefined {
  if (operation.kind === OperationKind.migration) return migrationSelection(operation.migration);
  if (operation.kind === OperationKind.bulk) return operation.bulk.filter;
  return undefined;
}

/** The outcomes an operation's summary lists (each at 0 until counted). */
export function outcomesOf(operation: Operation): OperationOutcome[] {
  const common: OperationOutcome[] = [ActionOutcome.skipped, TriggerOutcome.notFound, ActionOutcome.failed];
  if (operation.kind === OperationKind.migration) return [ActionOutcome.migrated, ActionOutcome.notMigratable, ...common];
  if (operation.kind === OperationKind.bulk) {
    const action = operation.bulk.action;
    // A retry applies triggers: it reports every trigger outcome, and the refusals of a bulk action.
    if (action === BulkAction.retry) return [...Object.values(TriggerOutcome), ActionOutcome.conflict, ActionOutcome.skipped, ActionOutcome.failed];
    return [bulkDoneOutcome(action), ...(action === BulkAction.recover ? [TriggerOutcome.faulted] : []), ActionOutcome.conflict, ...common];
  }
  return Object.values(TriggerOutcome);
}

/**
 * How a finished operation ended for its instances: `succeeded` (every candidate offered, none faulted),
 * `completedWithFaults` (offered to every candidate, and some instance faulted: a migration's or bulk
 * action's `failed` counts too), `failed` (the dispatch itself could not finish). `status: succeeded`
 * alone says only that the dispatch finished, which read as "all went well" when every instance faulted.
 */
export const OperationEnding = { succeeded: 'succeeded', completedWithFaults: 'completedWithFaults', failed: 'failed' } as const;
export type OperationEnding = (typeof OperationEnding)[keyof typeof OperationEnding];

/** The instances an operation's summary counts as faulted (a migration's or bulk action's `failed` too). */
export function faultedCountOf(operation: Pick<Operation, 'kind' | 'summary'>): number {
  const summary = operation.summary;
  return (summary.faulted ?? 0) + (operation.kind === undefined || operation.kind === OperationKind.trigger ? 0 : (summary.failed ?? 0));
}

/** How a finished operation ended (undefined while it runs). */
export function operationEnding(operation: Pick<Operation, 'kind' | 'summary' | 'status'>): OperationEnding | undefined {
  if (operation.status === 'failed') return OperationEnding.failed;
  if (operation.status !== 'succeeded') return undefined;
  return faultedCountOf(operation) > 0 ? OperationEnding.completedWithFaults : OperationEnding.succeeded;
}
