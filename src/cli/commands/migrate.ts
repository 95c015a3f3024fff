/**
 * @module `signalbox migrate <workflowId> --from N [--to M] [--map old=new]... [--state s] [--status st]`:
 * with `--dry-run`, the server's report (what would move where, what cannot move and why) as two tables;
 * otherwise a migration operation, followed to its end with `--wait` (`watch`'s view).
 */
import { Option, type Command } from 'commander';
import { examples, INSTANCE_STATUSES, addOperationOptions, type ContextOf } from '../command-options';
import { collect, wholeNumber } from '../inputs';
import type { InstanceStatusName, MigrationReport, MigrationRequest } from '../api';
import type { CommandContext } from '../context';
import { UsageError } from '../errors';
import { followOperation } from './watch';

export interface MigrateOptions {
  readonly from: number;
  readonly to?: number;
  readonly map?: readonly string[];
  readonly state?: string;
  readonly status?: InstanceStatusName;
  readonly dryRun?: boolean;
  readonly wait?: boolean;
  readonly results?: number;
  readonly progress?: boolean;
}

export async function migrateCommand(context: CommandContext, workflowId: string, options: MigrateOptions): Promise<void> {
  if (options.dryRun && options.wait) throw new UsageError('--dry-run changes nothing, so there is nothing to --wait for');
  const stateMap = stateMapOf(options.map ?? []);
  const toVersion = options.to ?? (await latestVersion(context, workflowId));
  const filter = {
    ...(options.state !== undefined ? { stateId: options.state } : {}),
    ...(options.status !== undefined ? { status: options.status } : {}),
  };
  const request: Omit<MigrationRequest, 'dryRun'> = { fromVersion: options.from, toVersion, stateMap, ...(Object.keys(filter).length ? { filter } : {}) };
  const { output } = context;
  if (options.dryRun) {
    const report = await context.api.migrationReport(workflowId, request);
    if (context.json) return output.printJson(report);
    return printMigrationReport(context, workflowId, report);
  }
  const accepted = await context.api.migrate(workflowId, request);
  if (options.wait) return followOperation(context, accepted.operationId, options);
  if (context.json) return output.printJson(accepted);
  output.print(`Migration ${accepted.operationId} ${accepted.status}; follow it with: signalbox watch ${accepted.operationId}`);
}

/** `--map review=checking` (repeatable) as the request's `stateMap`. */
function stateMapOf(pairs: readonly string[]): Record<string, string> {
  const stateMap: Record<string, string> = {};
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    if (separator <= 0 || separator === pair.length - 1) throw new UsageError(`--map "${pair}" is not oldState=newState`);
    const from = pair.slice(0, separator);
    if (from in stateMap) throw new UsageError(`--map maps "${from}" twice`);
    stateMap[from] = pair.slice(separator + 1);
  }
  return stateMap;
}

async function latestVersion(context: CommandContext, workflowId: string): Promise<number> {
  const workflow = await context.api.findWorkflow(workflowId);
  if (!workflow) throw new UsageError(`workflow "${workflowId}" does not exist, so --to has no latest version to default to`);
  return workflow.version;
}

function printMigrationReport(context: CommandContext, workflowId: string, report: MigrationReport): void {
  const { output } = context;
  const moving = report.rows.reduce((sum, row) => sum + row.count, 0);
  const blocked = report.blocked.reduce((sum, row) => sum + row.count, 0);
  output.print(
    `Dry run: migrating ${workflowId} from version ${report.fromVersion} to ${report.toVersion} would move ${moving} and leave ${blocked} instance${blocked === 1 ? '' : 's'}; nothing was changed`,
  );
  if (report.rows.length) {
    output.print(
      '',
      output.colors.bold('Would move'),
      output.table(
        ['FROM', 'TO', 'COUNT', 'SAMPLE'],
        report.rows.map((row) => [row.fromStateId, row.toStateId, row.count, row.sample.join(', ')]),
      ),
    );
  }
  if (report.blocked.length) {
    output.print(
      '',
      output.colors.bold('Cannot move'),
      output.table(
        ['FROM', 'COUNT', 'REASON', 'SAMPLE'],
        report.blocked.map((row) => [row.fromStateId, row.count, row.reason, row.sample.join(', ')]),
      ),
    );
  }
}

/** `signalbox migrate`: arguments, options, examples and the action. */
export function defineMigrateCommand(program: Command, contextOf: ContextOf): void {
  addOperationOptions(
    program
      .command('migrate')
      .description("move a workflow's instances from one version to another (relabels them: no actions run); --dry-run reports what would move")
      .argument('<workflowId>', 'the workflow')
      .requiredOption('--from <n>', 'the version the instances are on', wholeNumber('--from'))
      .option('--to <n>', 'the version to move them to (default: the latest)', wholeNumber('--to'))
      .option('--map <old=new>', 'a state of --from and the state of --to it becomes (repeatable); a state not mapped keeps its id', collect)
      .option('--state <stateId>', 'only instances in this state')
      .addOption(new Option('--status <status>', 'only instances with this status').choices(INSTANCE_STATUSES))
      .option('--dry-run', 'change nothing: report what would move where, and what cannot move and why'),
  )
    .addHelpText(
      'after',
      examples(
        'signalbox migrate expense-claim --from 1 --to 2 --map review=checking --dry-run',
        'signalbox migrate expense-claim --from 1 --map review=checking --wait',
        'signalbox migrate expense-claim --from 1 --to 2 --state draft --json',
      ),
    )
    .action((workflowId: string, options, command: Command) => migrateCommand(contextOf(command), workflowId, options));
}
