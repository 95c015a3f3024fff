/** @module `signalbox operations list [filters] [--all]`: operations as a table, newest first. */
import type { ApiListedOperation, OperationFilter } from '../api';
import type { CommandContext } from '../context';

export interface OperationsListOptions {
  readonly kind?: OperationFilter['kind'];
  readonly status?: OperationFilter['status'];
  readonly workflow?: string;
  readonly since?: string;
  readonly before?: string;
  readonly all?: boolean;
  readonly continuationToken?: string;
  readonly pageSize?: number;
}

/** What the operation was, in a few words: the trigger's name and subjects, the migration's versions, the bulk action and filter. */
export function operationWhat(operation: ApiListedOperation): string {
  if (operation.kind === 'migration' && operation.migration) {
    const { workflowId, fromVersion, toVersion, stateMap } = operation.migration;
    const mapped = Object.entries(stateMap).map(([from, to]) => `${from}→${to}`);
    return `${workflowId} v${fromVersion}→v${toVersion}${mapped.length ? ` (${mapped.join(', ')})` : ''}`;
  }
  if (operation.kind === 'bulk' && operation.bulk) {
    const { action, filter, stateId } = operation.bulk;
    const narrowed = Object.entries(filter).filter(([key]) => key !== 'workflowId').map(([key, value]) => `${key}=${String(value)}`);
    return `${action}${stateId ? ` to ${stateId}` : ''} ${filter.workflowId}${narrowed.length ? ` (${narrowed.join(', ')})` : ''}`;
  }
  if (operation.trigger) return `${operation.trigger.name} → ${operation.trigger.subjects.join(', ')}`;
  return operation.triggerId ?? '';
}

export async function operationsListCommand(context: CommandContext, options: OperationsListOptions): Promise<void> {
  const filter: OperationFilter = {
    ...(options.kind !== undefined ? { kind: options.kind } : {}),
    ...(options.status !== undefined ? { status: options.status } : {}),
    ...(options.workflow !== undefined ? { workflowId: options.workflow } : {}),
    ...(options.since !== undefined ? { createdSince: options.since } : {}),
    ...(options.before !== undefined ? { createdBefore: options.before } : {}),
  };
  const items: ApiListedOperation[] = [];
  let continuationToken = options.continuationToken;
  do {
    const page = await context.api.listOperations(filter, { ...(continuationToken ? { continuationToken } : {}), ...(options.pageSize ? { maxPageSize: options.pageSize } : {}) });
    items.push(...page.items);
    continuationToken = page.continuationToken;
  } while (options.all && continuationToken);

  const { output } = context;
  if (context.json) return output.printJson({ items, ...(continuationToken ? { continuationToken } : {}) });
  if (items.length) {
    const counts = (operation: ApiListedOperation) =>
      Object.entries(operation.summary)
        .filter(([, count]) => (count ?? 0) > 0)
        .map(([outcome, count]) => `${outcome} ${count}`)
        .join(', ');
    output.print(output.table(['ID', 'KIND', 'WHAT', 'STATUS', 'INSTANCES', 'OUTCOMES', 'CREATED'], items.map((operation) => [operation.id, operation.kind, operationWhat(operation), operation.status, operation.candidates, counts(operation), operation.createdAt])));
  } else output.note('No operations.');
  if (continuationToken) output.note(`More operations: add --all, or --continuation-token '${continuationToken}'`);
}
