/**
 * @module `signalbox bulk <cancel|recover|suspend|resume|delete|retry|reindex> --workflow <id> [filters]`: one operation
 * that acts on every instance the filter matches (each under its lease, the filter checked again), with
 * `--wait` followed to its end (`watch`'s view). `--dry-run` says how many instances the filter matches; a
 * delete must name that number (`--expect-count N`), so a filter wider than meant deletes nothing.
 */
import { Argument, Option, type Command } from 'commander';
import { examples, INSTANCE_STATUSES, addOperationOptions, type ContextOf } from '../command-options';
import { wholeNumber } from '../inputs';
import type { BulkAction, BulkRequest, InstanceStatusName } from '../api';
import type { CommandContext } from '../context';
import { plural } from '../definition-check';
import { UsageError } from '../errors';
import { followOperation } from './watch';

export const BULK_ACTIONS: readonly BulkAction[] = ['cancel', 'recover', 'suspend', 'resume', 'delete', 'retry', 'reindex'];

export interface BulkOptions {
  readonly workflow: string;
  readonly state?: string;
  readonly status?: InstanceStatusName;
  readonly subject?: string;
  readonly updatedBefore?: string;
  readonly faultTrigger?: string;
  readonly workflowVersion?: number;
  readonly toState?: string;
  readonly force?: boolean;
  readonly dryRun?: boolean;
  readonly expectCount?: number;
  readonly wait?: boolean;
  readonly results?: number;
  readonly progress?: boolean;
}

export async function bulkCommand(context: CommandContext, action: BulkAction, options: BulkOptions): Promise<void> {
  // What the server would refuse with a 400 is a usage mistake here, caught before any request.
  if (action === 'recover' && options.toState === undefined) throw new UsageError('bulk recover needs --to-state <stateId> (the state whose entry runs again)');
  if (action !== 'recover' && options.toState !== undefined) throw new UsageError('--to-state is only for bulk recover');
  if (action !== 'delete' && options.force) throw new UsageError('--force is only for bulk delete');
  if (options.dryRun && options.wait) throw new UsageError('--dry-run changes nothing, so there is nothing to --wait for');
  if (action !== 'delete' && options.expectCount !== undefined) throw new UsageError('--expect-count is only for bulk delete');
  const request: Omit<BulkRequest, 'dryRun' | 'expectedCount'> = {
    action,
    filter: {
      workflowId: options.workflow,
      ...(options.state !== undefined ? { stateId: options.state } : {}),
      ...(options.status !== undefined ? { status: options.status } : {}),
      ...(options.subject !== undefined ? { subject: options.subject } : {}),
      ...(options.updatedBefore !== undefined ? { updatedBefore: options.updatedBefore } : {}),
      ...(options.faultTrigger !== undefined ? { faultTriggerId: options.faultTrigger } : {}),
      ...(options.workflowVersion !== undefined ? { workflowVersion: options.workflowVersion } : {}),
    },
    ...(options.toState !== undefined ? { stateId: options.toState } : {}),
    ...(options.force ? { force: true } : {}),
  };
  if (options.dryRun || (action === 'delete' && options.expectCount === undefined)) {
    const { matched } = await context.api.bulkDryRun(request);
    if (!options.dryRun) {
      throw new UsageError(`bulk delete needs --expect-count: the filter matches ${plural(matched, 'instance')} now; to delete them, add --expect-count ${matched}`);
    }
    if (context.json) return context.output.printJson({ action, filter: request.filter, matched });
    return context.output.print(`Dry run: bulk ${action} would act on ${plural(matched, 'instance')} of ${options.workflow} now; nothing was changed`);
  }
  const accepted = await context.api.bulk({ ...request, ...(options.expectCount !== undefined ? { expectedCount: options.expectCount } : {}) });
  if (options.wait) return followOperation(context, accepted.operationId, options);
  if (context.json) return context.output.printJson(accepted);
  context.output.print(`Bulk ${action} ${accepted.operationId} ${accepted.status}; follow it with: signalbox watch ${accepted.operationId}`);
}

/** `signalbox bulk`: arguments, options, examples and the action. */
export function defineBulkCommand(program: Command, contextOf: ContextOf): void {
  addOperationOptions(
    program
      .command('bulk')
      .description('act on every instance of a workflow that the filter matches, as one operation (each instance under its lease)')
      .addArgument(new Argument('<action>', 'what to do to each instance').choices(BULK_ACTIONS))
      .requiredOption('--workflow <workflowId>', 'the workflow whose instances to act on')
      .option('--state <stateId>', 'only instances in this state')
      .addOption(new Option('--status <status>', 'only instances with this status').choices(INSTANCE_STATUSES))
      .option('--subject <subject>', 'only instances interested in this subject')
      .option('--updated-before <time>', 'only instances last changed before this moment (ISO 8601, e.g. 2026-11-01T00:00:00Z)')
      .option('--workflow-version <n>', 'only instances of this version (e.g. reindex the instances of a version that declared no indexes)', wholeNumber('--workflow-version'))
      .option('--fault-trigger <triggerId>', 'only instances whose fault came from this trigger (e.g. retry what one operation faulted)')
      .option('--to-state <stateId>', 'recover: the state whose entry runs again (required for recover)')
      .option('--force', 'delete: waiting and initializing instances too')
      .option('--expect-count <n>', 'delete (required): how many instances the filter matches, as --dry-run tells; refused if it matches another number', wholeNumber('--expect-count'))
      .option('--dry-run', 'change nothing: say how many instances the filter matches now'),
  )
    .addHelpText(
      'after',
      examples(
        'signalbox bulk cancel --workflow expense-claim --state awaiting-receipts --wait',
        'signalbox bulk recover --workflow expense-claim --status faulted --to-state draft',
        'signalbox bulk retry --workflow expense-claim --state approving --wait',
        'signalbox bulk delete --workflow expense-claim --updated-before 2026-01-01T00:00:00Z --force --dry-run',
        'signalbox bulk delete --workflow expense-claim --updated-before 2026-01-01T00:00:00Z --force --expect-count 42 --wait',
      ),
    )
    .action((action: BulkAction, options, command: Command) => bulkCommand(contextOf(command), action, options));
}
