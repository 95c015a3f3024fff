/** @module `signalbox instances [filters] [--all]`: instances as a table, one page or all of them. */
import { Option, type Command } from 'commander';
import { examples, INSTANCE_STATUSES, readListPages, type ContextOf } from '../command-options';
import { wholeNumber } from '../inputs';
import type { InstanceFilter, InstanceSearch, InstanceStatusName } from '../api';
import { UsageError } from '../errors';
import type { CommandContext } from '../context';

export interface InstancesOptions {
  readonly workflow?: string;
  readonly state?: string;
  readonly status?: InstanceStatusName;
  readonly subject?: string;
  readonly parent?: string;
  readonly all?: boolean;
  readonly continuationToken?: string;
  readonly pageSize?: number;
  readonly filter?: string;
  readonly orderBy?: string;
  readonly count?: boolean;
  readonly groupBy?: string;
}

export async function instancesCommand(context: CommandContext, options: InstancesOptions): Promise<void> {
  if (options.filter !== undefined || options.orderBy !== undefined || options.count || options.groupBy !== undefined) return searchCommand(context, options);
  const filter: InstanceFilter = {
    ...(options.workflow !== undefined ? { workflowId: options.workflow } : {}),
    ...(options.state !== undefined ? { stateId: options.state } : {}),
    ...(options.status !== undefined ? { status: options.status } : {}),
    ...(options.subject !== undefined ? { subject: options.subject } : {}),
    ...(options.parent !== undefined ? { parentId: options.parent } : {}),
  };
  const { items, continuationToken } = await readListPages((page) => context.api.listInstances(filter, page), options);

  const { output } = context;
  if (context.json) return output.printJson({ items, ...(continuationToken ? { continuationToken } : {}) });
  if (items.length) {
    output.print(
      output.table(
        ['ID', 'WORKFLOW', 'VERSION', 'STATE', 'STATUS', 'UPDATED'],
        items.map((instance) => [instance.id, instance.workflowId, instance.workflowVersion, instance.stateId, instance.status, instance.updatedAt]),
      ),
    );
  } else output.note('No instances.');
  if (continuationToken) output.note(`More instances: add --all, or --continuation-token '${continuationToken}'`);
}

/**
 * Why a count from the search index says 0 when the workflow has instances: the version they are on
 * declares no `indexes`, so none of them has index rows (until a reindex writes them). Undefined when
 * there is no such instance (0 is then the answer).
 */
async function unindexedReason(context: CommandContext, workflowId: string): Promise<string | undefined> {
  const some = (await context.api.listInstances({ workflowId }, { maxPageSize: 1 })).items[0];
  if (!some) return undefined;
  const version = await context.api.findWorkflow(workflowId, { version: some.workflowVersion });
  if (!version || (version.indexes?.length ?? 0) > 0) return undefined;
  return (
    `0 counted from the search index, but ${workflowId} has instances: version ${some.workflowVersion} declares no \`indexes\`, so its instances have no index rows. ` +
    `Declare indexes, or write their rows with: signalbox bulk reindex --workflow ${workflowId} --workflow-version ${some.workflowVersion} --wait; or list them: signalbox instances --workflow ${workflowId}`
  );
}

/** `--filter`, `--order-by`, `--count`, `--group-by`: a search of one workflow's instances (the server checks the filter). */
async function searchCommand(context: CommandContext, options: InstancesOptions): Promise<void> {
  const { output } = context;
  if (options.workflow === undefined) throw new UsageError('--filter, --order-by, --count and --group-by need --workflow');
  const extra = (['state', 'status', 'subject', 'parent'] as const).find((name) => options[name] !== undefined);
  if (extra) throw new UsageError(`--${extra} cannot be combined with --filter, --order-by, --count or --group-by: write it in the filter (e.g. "stateId = 'review'")`);
  if (options.count || options.groupBy !== undefined) {
    if (options.orderBy !== undefined) throw new UsageError('--order-by does not apply to --count');
    const counts = await context.api.countInstances({
      workflowId: options.workflow,
      ...(options.filter !== undefined ? { filter: options.filter } : {}),
      ...(options.groupBy !== undefined ? { groupBy: options.groupBy } : {}),
    });
    if (context.json) return output.printJson(counts);
    const unindexed = counts.count === 0 && counts.countedFrom === 'index' ? await unindexedReason(context, options.workflow) : undefined;
    if (unindexed) output.note(unindexed);
    if (counts.groups)
      output.print(
        output.table([options.groupBy!.toUpperCase(), 'COUNT'], [...counts.groups.map((group) => [group.key === null ? '(none)' : String(group.key), group.count]), ['total', counts.count]]),
      );
    else output.print(String(counts.count));
    return;
  }
  const search: InstanceSearch = {
    workflowId: options.workflow,
    ...(options.filter !== undefined ? { filter: options.filter } : {}),
    ...(options.orderBy !== undefined ? { orderBy: options.orderBy } : {}),
  };
  const { items, continuationToken } = await readListPages((page) => context.api.searchInstances(search, page), options);
  if (context.json) return output.printJson({ items, ...(continuationToken ? { continuationToken } : {}) });
  if (items.length) {
    output.print(
      output.table(
        ['ID', 'BUSINESS KEY', 'VERSION', 'STATE', 'STATUS', 'UPDATED'],
        items.map((instance) => [instance.id, instance.businessKey ?? '', instance.workflowVersion, instance.stateId, instance.status, instance.updatedAt]),
      ),
    );
  } else output.note('No instances match.');
  if (continuationToken) output.note(`More instances: add --all, or --continuation-token '${continuationToken}'`);
}

/** `signalbox instances`: arguments, options, examples and the action. */
export function defineInstancesCommand(program: Command, contextOf: ContextOf): void {
  program
    .command('instances')
    .description('list instances as a table (one page; --all for every page)')
    .option('--workflow <workflowId>', 'only instances of this workflow')
    .option('--state <stateId>', 'only instances in this state')
    .addOption(new Option('--status <status>', 'only instances with this status').choices(INSTANCE_STATUSES))
    .option('--subject <subject>', 'only instances interested in this subject')
    .option('--parent <instanceId>', 'only children of this instance')
    .option('--filter <filter>', 'only instances matching this filter (needs --workflow): "amount > 1000 and stateId = \'review\'"')
    .option('--order-by <field>', "order by a search field: 'amount desc'")
    .option('--count', 'print how many instances match instead of listing them')
    .option('--group-by <field>', 'count per stateId, status or keyword index')
    .option('--all', 'follow every page')
    .option('--continuation-token <token>', 'start at this page')
    .option('--page-size <n>', 'instances per page (server default 100, at most 1000)', wholeNumber('--page-size'))
    .addHelpText(
      'after',
      examples(
        'signalbox instances --workflow expense-claim --status waiting',
        'signalbox instances --subject claimant:ann --all --json',
        "signalbox instances --workflow expense-claim --filter \"amount > 1000 and stateId = 'review'\" --order-by 'amount desc'",
        'signalbox instances --workflow expense-claim --count --group-by stateId',
      ),
    )
    .action((options, command: Command) => instancesCommand(contextOf(command), options));
}
