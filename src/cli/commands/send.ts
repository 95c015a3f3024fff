/**
 * @module `signalbox send <name> --subject ...` and `signalbox send-to <instanceId> <name>`: submit a
 * trigger (202, an operation); with `--wait`, follow the operation to its end (`watch`'s view); with
 * `--dry-run`, show what it would do to each instance and change nothing.
 */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import type { JsonObject } from '../../engine/model';
import type { TriggerToSend } from '../api';
import type { CommandContext } from '../context';
import { printDryRun } from '../dry-run-view';
import { UsageError } from '../errors';
import { collect, jsonObjectArgument, parseParameter, wholeNumber } from '../inputs';
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

/** `signalbox send` and `signalbox send-to`: arguments, options, examples and the action. */
export function defineSendCommands(program: Command, contextOf: ContextOf): void {
  const addTriggerOptions = (command: Command) =>
    command
      .option('--param <name=value>', 'a trigger parameter (repeatable); the value is JSON when it parses, else a string', collect)
      .option('--parameters <json|@file>', 'all parameters as a JSON object (inline or @file); --param adds to them')
      .option('--content-type <type>', 'the trigger content type')
      .option('--id <triggerId>', 'the trigger id (makes the send idempotent)')
      .option('--wait', 'follow the operation to its end: a progress bar on a terminal, then the summary and outcomes')
      .option('--dry-run', 'change nothing: show what the trigger would do to each instance (outcome, trace of conditions, context after, actions)')
      .option('--results <n>', 'per-instance outcomes to show after --wait (instances detailed by --dry-run)', wholeNumber('--results'), 10)
      .option('--no-progress', 'no progress bar, even on a terminal');

  addTriggerOptions(
    program
      .command('send')
      .description('send a trigger to every instance interested in one of its subjects')
      .argument('<name>', 'the trigger name')
      .option('--subject <subject>', 'a subject (repeatable, at least one)', collect),
  )
    .addHelpText(
      'after',
      examples(
        'signalbox send Update --subject claimant:ann --param amount=120 --param description=Train --wait',
        'signalbox send Approve --subject approvers --dry-run',
        'signalbox send Approve --subject approvers --id approve-2026-11 --json',
      ),
    )
    .action((name: string, options, command: Command) => sendCommand(contextOf(command), name, options));

  addTriggerOptions(
    program.command('send-to').description('send a trigger to one instance (the instance id is the subject)').argument('<instanceId>', 'the instance').argument('<name>', 'the trigger name'),
  )
    .addHelpText(
      'after',
      examples('signalbox send-to claim-42 Submit --param at=2026-11-22 --wait', 'signalbox send-to claim-42 Submit --dry-run', 'signalbox send-to claim-42 Submit --dry-run --json'),
    )
    .action((instanceId: string, name: string, options, command: Command) => sendToCommand(contextOf(command), instanceId, name, options));
}
