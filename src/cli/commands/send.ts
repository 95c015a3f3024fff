/**
 * @module `signalbox send <name> --subject ...` and `signalbox send-to <instanceId> <name>`: submit a
 * trigger (202, an operation); with `--wait`, follow the operation to its end (`watch`'s view); with
 * `--dry-run`, show what it would do to each instance and change nothing.
 */
import type { JsonObject } from '../../engine/json';
import type { TriggerToSend } from '../api';
import type { CommandContext } from '../context';
import { printDryRun } from '../dry-run-view';
import { UsageError } from '../errors';
import { jsonObjectArgument, parseParameter } from '../inputs';
import { followOperation } from './watch';

export interface SendOptions {
  readonly subject?: readonly string[];
  readonly param?: readonly string[];
  readonly parameters?: string;
  readonly contentType?: string;
  readonly id?: string;
  readonly wait?: boolean;
  readonly dryRun?: boolean;
  readonly results?: number;
  readonly progress?: boolean;
}

function triggerFrom(name: string, options: SendOptions): TriggerToSend {
  const parameters: JsonObject = options.parameters === undefined ? {} : { ...jsonObjectArgument(options.parameters, '--parameters') };
  for (const argument of options.param ?? []) {
    const [key, value] = parseParameter(argument);
    parameters[key] = value;
  }
  return {
    name,
    ...(options.id !== undefined ? { id: options.id } : {}),
    ...(options.subject?.length ? { subjects: [...options.subject] } : {}),
    ...(options.contentType !== undefined ? { contentType: options.contentType } : {}),
    ...(Object.keys(parameters).length ? { parameters } : {}),
  };
}

export async function sendCommand(context: CommandContext, name: string, options: SendOptions): Promise<void> {
  if (!options.subject?.length) throw new UsageError('send needs at least one --subject (or use send-to <instanceId> <name>)');
  await submit(context, triggerFrom(name, options), options);
}

export async function sendToCommand(context: CommandContext, instanceId: string, name: string, options: SendOptions): Promise<void> {
  await submit(context, triggerFrom(name, options), options, instanceId);
}

async function submit(context: CommandContext, trigger: TriggerToSend, options: SendOptions, instanceId?: string): Promise<void> {
  if (options.dryRun) {
    if (options.wait) throw new UsageError('--dry-run sends nothing, so there is nothing to --wait for');
    const dryRun = await context.api.dryRunTrigger(trigger, instanceId === undefined ? {} : { instanceId });
    if (context.json) return context.output.printJson(dryRun);
    return printDryRun(context.output, trigger.name, dryRun, options.results !== undefined ? { results: options.results } : {});
  }
  const accepted = await context.api.sendTrigger(trigger, instanceId === undefined ? {} : { instanceId });
  if (options.wait) return followOperation(context, accepted.operationId, options);
  if (context.json) return context.output.printJson(accepted);
  context.output.print(`Operation ${accepted.operationId} ${accepted.status}; follow it with: signalbox watch ${accepted.operationId}`);
}
