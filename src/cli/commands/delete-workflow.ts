/** @module `signalbox delete-workflow <workflowId>`: every version of it; the server refuses (409) while instances of it exist. */
import type { CommandContext } from '../context';

export async function deleteWorkflowCommand(context: CommandContext, workflowId: string): Promise<void> {
  await context.api.deleteWorkflow(workflowId);
  if (context.json) return context.output.printJson({ workflowId, deleted: true });
  context.output.print(`${workflowId}: deleted, with every version`);
}
