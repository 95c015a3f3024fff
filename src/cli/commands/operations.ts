/** @module `signalbox operations list [filters] [--all]`: operations as a table, newest first. */
import { Option, type Command } from 'commander';
import { examples, readListPages, type ContextOf } from '../command-options';
import { wholeNumber } from '../inputs';
import type { ApiListedOperation, OperationFilter } from '../api';
import type { CommandContext } from '../context';
import { statusText } from '../operation-view';

export interface OperationsListOptions {
  readonly kind?: OperationFilter['kind'];
  readonly status?: OperationFilter['status'];
  readonly outcome?: OperationFilter['outcome'];
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
    const narrowed = Object.entries(filter)
      .filter(([key]) => key !== 'workflowId')
      .map(([key, value]) => `${key}=${String(value)}`);
    return `${action}${stateId ? ` to ${stateId}` : ''} ${filter.workflowId}${narrowed.length ? ` (${narrowed.join(', ')})` : ''}`;
  }
  if (operation.trigger) return `${operation.trigger.name} → ${operation.trigger.subjects.join(', ')}`;
  return operation.triggerId ?? '';
}

export async function operationsListCommand(context: CommandContext, options: OperationsListOptions): Promise<void> {
  const filter: OperationFilter = {
    ...(options.kind !== undefined ? { kind: options.kind } : {}),
    ...(options.status !== undefined ? { status: options.status } : {}),
    ...(options.outcome !== undefined ? { outcome: options.outcome } : {}),
    ...(options.workflow !== undefined ? { workflowId: options.workflow } : {}),
    ...(options.since !== undefined ? { createdSince: options.since } : {}),
    ...(options.before !== undefined ? { createdBefore: options.before } : {}),
  };
  const { items, continuationToken } = await readListPages((page) => context.api.listOperations(filter, page), options);

  const { output } = context;
  if (context.json) return output.printJson({ items, ...(continuationToken ? { continuationToken } : {}) });
  if (items.length) {
    const counts = (operation: ApiListedOperation) =>
      Object.entries(operation.summary)
        .filter(([, count]) => (count ?? 0) > 0)
        .map(([outcome, count]) => `${outcome} ${count}`)
        .join(', ');
    output.print(
      output.table(
        ['ID', 'KIND', 'WHAT', 'STATUS', 'INSTANCES', 'OUTCOMES', 'CREATED'],
        items.map((operation) => [operation.id, operation.kind, operationWhat(operation), statusText(operation), operation.candidates, counts(operation), operation.createdAt]),
      ),
    );
  } else output.note('No operations.');
  if (continuationToken) output.note(`More operations: add --all, or --continuation-token '${continuationToken}'`);
}

/** `signalbox operations list`: arguments, options, examples and the action. */
export function defineOperationsCommands(program: Command, contextOf: ContextOf): void {
  const operations = program.command('operations').description('operations: triggers sent, migrations and bulk actions');
  operations
    .command('list')
    .description('list operations as a table, newest first (one page; --all for every page)')
    .addOption(new Option('--kind <kind>', 'only operations of this kind').choices(['trigger', 'migration', 'bulk']))
    .addOption(new Option('--status <status>', 'only operations with this status').choices(['notStarted', 'running', 'succeeded', 'failed']))
    .addOption(new Option('--outcome <outcome>', 'only finished operations that ended so (completedWithFaults: some instance faulted)').choices(['succeeded', 'completedWithFaults', 'failed']))
    .option('--workflow <workflowId>', 'only migrations and bulk actions of this workflow')
    .option('--since <time>', 'only operations created at or after this moment (ISO 8601)')
    .option('--before <time>', 'only operations created before this moment (ISO 8601)')
    .option('--all', 'follow every page')
    .option('--continuation-token <token>', 'start at this page')
    .option('--page-size <n>', 'operations per page (server default 100, at most 1000)', wholeNumber('--page-size'))
    .addHelpText(
      'after',
      examples(
        'signalbox operations list --kind bulk --status failed',
        'signalbox operations list --outcome completedWithFaults',
        'signalbox operations list --since 2026-05-01T00:00:00Z --all --json',
      ),
    )
    .action((options, command: Command) => operationsListCommand(contextOf(command), options));
}
