/** @module `signalbox delete-workflow <workflowId>`: every version of it; the server refuses (409) while instances of it exist. */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import type { CommandContext } from '../context';

export async function deleteWorkflowCommand(context: CommandContext, workflowId: string): Promise<void> {
  await context.api.deleteWorkflow(workflowId);
  if (context.json) return context.output.printJson({ workflowId, deleted: true });
  context.output.print(`${workflowId}: deleted, with every version`);
}

/** `signalbox delete-workflow`: arguments, options, examples and the action. */
export function defineDeleteWorkflowCommand(program: Command, contextOf: ContextOf): void {
  program
    .command('delete-workflow')
    .description('delete a workflow and every version of it (the server refuses while instances of it exist)')
    .argument('<workflowId>', 'the workflow')
    .addHelpText(
      'after',
      examples('signalbox bulk delete --workflow old-claims --force --dry-run', 'signalbox bulk delete --workflow old-claims --force --expect-count 12 --wait', 'signalbox delete-workflow old-claims'),
    )
    .action((workflowId: string, _options, command: Command) => deleteWorkflowCommand(contextOf(command), workflowId));
}
