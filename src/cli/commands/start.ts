/** @module `signalbox start <workflowId> [--id] [--context]`: a new instance of the workflow's latest version. */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import type { CommandContext } from '../context';
import { InstancesFaultedError } from '../errors';
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
  if (context.json) context.output.printJson(instance);
  else context.output.print(`${instance.id}: started ${instance.workflowId} version ${instance.workflowVersion}, state ${instance.stateId} (${instance.status})`);
  // Created, but faulted at once (an initial entry condition, an entry action): say why, and exit 5.
  if (instance.status === 'faulted') throw new InstancesFaultedError(`${instance.id} faulted${instance.fault ? `: ${instance.fault.message}` : ''}`);
}

/** `signalbox start`: arguments, options, examples and the action. */
export function defineStartCommand(program: Command, contextOf: ContextOf): void {
  program
    .command('start')
    .description("start an instance of a workflow's latest version")
    .argument('<workflowId>', 'the workflow')
    .option('--id <instanceId>', 'the instance id (default: generated)')
    .option('--context <json|@file>', 'the initial context, a JSON object inline or @file.json')
    .addHelpText('after', examples('signalbox start expense-claim --id claim-42 --context \'{"claimantId":"ann"}\'', 'signalbox start expense-claim --context @claim-context.json'))
    .action((workflowId: string, options, command: Command) => startCommand(contextOf(command), workflowId, options));
}
