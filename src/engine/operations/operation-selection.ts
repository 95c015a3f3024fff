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
