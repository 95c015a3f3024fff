/** @module `signalbox instances [filters] [--all]`: instances as a table, one page or all of them. */
import { Option, type Command } from 'commander';
import { examples, INSTANCE_STATUSES, readListPages, type ContextOf } from '../command-options';
import { wholeNumber } from '../inputs';
import type { InstanceFilter, InstanceStatusName } from '../api';
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
}

export async function instancesCommand(context: CommandContext, options: InstancesOptions): Promise<void> {
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
    .option('--all', 'follow every page')
    .option('--continuation-token <token>', 'start at this page')
    .option('--page-size <n>', 'instances per page (server default 100, at most 1000)', wholeNumber('--page-size'))
    .addHelpText('after', examples('signalbox instances --workflow expense-claim --status waiting', 'signalbox instances --subject claimant:ann --all --json'))
    .action((options, command: Command) => instancesCommand(contextOf(command), options));
}
