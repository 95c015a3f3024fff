/**
 * @module Human tasks from the command line (issue 39): `signalbox tasks` (the caller's inbox, by due date),
 * `signalbox task <taskId>`, `signalbox claim <taskId>`, `signalbox complete <taskId> --outcome Approve
 * --param reason=ok --comment "…"`. Everything printed goes through Output, which escapes control characters.
 */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import type { CommandContext } from '../context';
import { collect, parseParameter } from '../inputs';

export interface TasksOptions {
  readonly workflow?: string;
  readonly overdue?: boolean;
  readonly escalated?: boolean;
}

export async function tasksCommand(context: CommandContext, options: TasksOptions): Promise<void> {
  const page = await context.api.listTasks({
    ...(options.workflow !== undefined ? { workflowId: options.workflow } : {}),
    ...(options.overdue ? { overdue: 'true' as const } : {}),
    ...(options.escalated ? { escalated: 'true' as const } : {}),
  });
  if (context.json) return context.output.printJson(page);
  if (page.items.length === 0) return context.output.print('no open tasks for you');
  for (const row of page.items) {
    const marks = [row.overdue ? 'OVERDUE' : undefined, row.escalated ? 'escalated' : undefined, row.claimedBy !== undefined ? `claimed by ${row.claimedBy}` : undefined].filter(Boolean).join(', ');
    context.output.print(`${row.taskId}  ${row.title}  (due ${row.dueAt ?? 'never'}${marks ? `; ${marks}` : ''})`);
  }
}

type TaskAnswer = Awaited<ReturnType<CommandContext['api']['task']>>;

function printTask(context: CommandContext, task: TaskAnswer): void {
  if (context.json) return context.output.printJson(task);
  context.output.print(`${task.id}: ${task.title} [${task.status}] in state ${task.stateId} of ${task.instanceId}`);
  if (task.dueAt) context.output.print(`  due ${task.dueAt}${task.overdue ? ' (overdue)' : ''}`);
  if (task.claimedBy) context.output.print(`  claimed by ${task.claimedBy.id} since ${task.claimedBy.at}`);
  context.output.print(`  outcomes: ${task.outcomes.map((outcome) => outcome.name).join(', ')}`);
  for (const decision of task.decisions) context.output.print(`  ${decision.at} ${decision.by.id}: ${decision.outcome}${decision.comment ? ` (${decision.comment})` : ''}`);
  if (task.resolution) context.output.print(`  decided: ${task.resolution.outcome} by ${task.resolution.by.id} (trigger ${task.resolution.triggerId})`);
}

/** `signalbox tasks`, `task`, `claim`, `complete`. */
export function defineTaskCommands(program: Command, contextOf: ContextOf): void {
  program
    .command('tasks')
    .description('your inbox of human tasks: assigned to you, your groups or your roles, by due date')
    .option('--workflow <workflowId>', 'only tasks of this workflow')
    .option('--overdue', 'only tasks past their due date')
    .option('--escalated', 'only escalated tasks')
    .addHelpText('after', examples('signalbox tasks', 'signalbox tasks --overdue --workflow expense-claim'))
    .action((options: TasksOptions, command: Command) => tasksCommand(contextOf(command), options));
  program
    .command('task')
    .description('one open task: assignees, claim, decisions, outcomes')
    .argument('<taskId>')
    .action(async (taskId: string, _options, command: Command) => printTask(contextOf(command), await contextOf(command).api.task(taskId)));
  program
    .command('claim')
    .description('claim a task (409 if someone else has)')
    .argument('<taskId>')
    .action(async (taskId: string, _options, command: Command) => printTask(contextOf(command), await contextOf(command).api.task(taskId, 'claim')));
  program
    .command('complete')
    .description("decide a task: its outcome trigger goes to the instance as you once the task's quorum is reached")
    .argument('<taskId>')
    .requiredOption('--outcome <name>', 'the outcome, e.g. Approve')
    .option('--param <name=value>', "a parameter of the outcome's form (repeatable); the value is JSON when it parses, else a string", collect)
    .option('--comment <text>', 'a comment kept with the decision')
    .addHelpText('after', examples('signalbox complete claim-42~1 --outcome Reject --param reason="no receipts"'))
    .action(async (taskId: string, options: { outcome: string; param?: string[]; comment?: string }, command: Command) => {
      const parameters = Object.fromEntries((options.param ?? []).map(parseParameter));
      const body = { outcome: options.outcome, ...(options.param?.length ? { parameters } : {}), ...(options.comment !== undefined ? { comment: options.comment } : {}) };
      printTask(contextOf(command), await contextOf(command).api.task(taskId, 'complete', body));
    });
}
