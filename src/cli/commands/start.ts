/** @module `signalbox start <workflowId> [--id] [--context]`: a new instance of the workflow's latest version. */
import type { CommandContext } from '../context';
import { jsonObjectArgument } from '../inputs';

export interface StartOptions {
  readonly id?: string;
  readonly context?: string;
}

export async function startCommand(context: CommandContext, workflowId: string, options: StartOptions): Promise<void> {
  const instanceContext = options.context === undefined ? undefined : jsonObjectArgument(options.context, '--context');
  const instance = await context.api.createInstance({
    workflowId,
    ...(options.id !== undefined ? { instanceId: options.id } : {}),
    ...(instanceContext ? { context: instanceContext } : {}),
  });
  if (context.json) return context.output.printJson(instance);
  context.output.print(`${instance.id}: started ${instance.workflowId} version ${instance.workflowVersion}, state ${instance.stateId} (${instance.status})`);
}
