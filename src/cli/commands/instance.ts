/**
 * @module `signalbox instance <id> [--history] [--available]`, and the lifecycle commands on one
 * instance: `cancel <id>`, `recover <id> --state <stateId>`, `suspend <id>`, `resume <id>` and
 * `delete <id> [--force]`.
 */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import type { ApiHistoryEntry, ApiInstance, AvailableTriggers } from '../api';
import type { CommandContext } from '../context';
import { jsonObjectArgument } from '../inputs';
import { failingDeliveryLines } from './events';

export interface InstanceOptions {
  readonly history?: boolean;
  readonly available?: boolean;
}

export async function instanceCommand(context: CommandContext, instanceId: string, options: InstanceOptions): Promise<void> {
  const { api, output } = context;
  const instance = await api.getInstance(instanceId);
  const history = options.history ? await allHistory(context, instanceId) : undefined;
  const available = options.available ? await api.availableTriggers(instanceId) : undefined;
  if (context.json) return output.printJson({ ...instance, ...(history ? { history } : {}), ...(available ? { availableTriggers: available } : {}) });

  printInstance(context, instance);
  const failing = await failingDeliveryLines(context, instanceId);
  if (failing.length) output.print('', output.colors.bold('Event deliveries failing'), ...failing);
  if (history) {
    output.print(
      '',
      output.colors.bold('History'),
      output.table(
        ['AT', 'EVENT', 'TRIGGER', 'TRANSITION', 'FROM', 'TO', 'STATUS', 'ACTOR'],
        history.map((entry) => [entry.at, entry.event, entry.triggerId, entry.transitionId, entry.fromStateId, entry.toStateId, entry.status, actorText(entry.actor)]),
      ),
    );
  }
  if (available) printAvailable(context, available);
}

/** `alice (token)`, `system for alice`, `on behalf of` included; empty when the entry names no actor. */
function actorText(actor: ApiHistoryEntry['actor']): string {
  if (!actor) return '';
  if (actor.via === 'system') return actor.cause ? `system for ${actor.cause.name}` : 'system';
  return `${actor.name} (${actor.via})${actor.onBehalfOf ? ` for ${actor.onBehalfOf.id}` : ''}`;
}

async function allHistory(context: CommandContext, instanceId: string): Promise<ApiHistoryEntry[]> {
  const entries: ApiHistoryEntry[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await context.api.instanceHistory(instanceId, continuationToken);
    entries.push(...page.items);
    continuationToken = page.continuationToken;
  } while (continuationToken);
  return entries;
}

function printInstance(context: CommandContext, instance: ApiInstance): void {
  const { output } = context;
  output.print(
    output.details([
      ['id', instance.id],
      ['workflow', `${instance.workflowId} version ${instance.workflowVersion}`],
      ['state', instance.stateId],
      ['status', instance.status],
      ['fault', instance.fault ? `${instance.fault.message} (trigger ${instance.fault.triggerId ?? 'none'}, ${instance.fault.at})` : undefined],
      // The trigger that faulted it can be applied again once its cause is fixed: say how.
      ['retry', instance.fault?.retryable ? `signalbox retry ${instance.id} (applies trigger ${instance.fault.triggerId} again, once)` : undefined],
      ['parent', instance.parent?.instanceId],
      ['timers', instance.timers.length ? instance.timers.map((timer) => `${timer.transitionId} due ${timer.dueAt}`).join(', ') : undefined],
      ['created', instance.createdAt],
      ['updated', instance.updatedAt],
      ['interests', instance.interests.join(', ')],
      ['context', JSON.stringify(instance.context)],
    ]),
  );
}

function printAvailable(context: CommandContext, available: AvailableTriggers): void {
  const { output } = context;
  output.print('', output.colors.bold(`Available triggers (${available.status}${available.actor ? `, for ${available.actor}` : ''})`));
  if (!available.items.length) output.print('none');
  else
    output.print(
      output.table(
        ['TRANSITION', 'TRIGGERS', 'TO', 'PARAMETERS'],
        available.items.map((item) => [item.transitionId, triggersOf(item), item.targetStateId, item.parameters.map(parameterTest).join(', ')]),
      ),
    );
  // Transitions this actor may not take (their `actors` rule), so that nobody wonders where they went.
  if (available.refused?.length)
    output.print(
      output.table(
        ['NOT FOR YOU', 'WHY'],
        available.refused.map((refusal) => [refusal.transitionId, refusal.reason]),
      ),
    );
}

type AvailableTransition = AvailableTriggers['items'][number];

/** `Submit`, `* except Cancel`, or for a timer transition `timer after PT16H, due <time>`. */
function triggersOf(item: AvailableTransition): string {
  if (item.timer) {
    const { after, at, calendar, dueAt } = item.timer;
    return ['timer', after ? `after ${after}` : undefined, at ? `at ${at}` : undefined, calendar ? `(${calendar} calendar)` : undefined, dueAt ? `due ${dueAt}` : undefined].filter(Boolean).join(' ');
  }
  const names = item.triggerNames.join(', ');
  return item.exceptTriggerNames?.length ? `${names} except ${item.exceptTriggerNames.join(', ')}` : names;
}

/** `amount exists`, `kind = "train"`, `not by = "ann"`; `or` marks one alternative among others. */
function parameterTest(parameter: AvailableTransition['parameters'][number]): string {
  const operator = { equals: '=', notEquals: '!=', exists: 'exists', notExists: 'does not exist' }[parameter.test];
  const test = parameter.value === undefined ? `${parameter.name} ${operator}` : `${parameter.name} ${operator} ${JSON.stringify(parameter.value)}`;
  return `${parameter.alternative ? 'or ' : ''}${parameter.negated ? 'not ' : ''}${test}`;
}

export async function cancelCommand(context: CommandContext, instanceId: string): Promise<void> {
  const instance = await context.api.cancelInstance(instanceId);
  if (context.json) return context.output.printJson(instance);
  context.output.print(`${instance.id}: ${instance.status} in state ${instance.stateId}`);
}

export async function recoverCommand(context: CommandContext, instanceId: string, options: { state: string; context?: string }): Promise<void> {
  const contextPatch = options.context === undefined ? undefined : jsonObjectArgument(options.context, '--context');
  const instance = await context.api.recoverInstance(instanceId, options.state, contextPatch);
  if (context.json) return context.output.printJson(instance);
  // A recovery that faults again is not a recovery: say so, with the fault.
  if (instance.status === 'faulted') context.output.print(`${instance.id}: still faulted in state ${instance.stateId}: ${instance.fault?.message ?? 'no message'}`);
  else context.output.print(`${instance.id}: recovered to state ${instance.stateId} (${instance.status})`);
}

export async function suspendCommand(context: CommandContext, instanceId: string): Promise<void> {
  const instance = await context.api.suspendInstance(instanceId);
  if (context.json) return context.output.printJson(instance);
  context.output.print(`${instance.id}: suspended in state ${instance.stateId} (triggers answer notActive until resumed)`);
}

export async function resumeCommand(context: CommandContext, instanceId: string): Promise<void> {
  const instance = await context.api.resumeInstance(instanceId);
  if (context.json) return context.output.printJson(instance);
  context.output.print(`${instance.id}: resumed, ${instance.status} in state ${instance.stateId}`);
}

export async function deleteCommand(context: CommandContext, instanceId: string, options: { force?: boolean }): Promise<void> {
  await context.api.deleteInstance(instanceId, options.force ? { force: true } : {});
  if (context.json) return context.output.printJson({ instanceId, deleted: true });
  context.output.print(`${instanceId}: deleted, with its history`);
}

/** `signalbox instance`, `cancel`, `recover`, `suspend`, `resume` and `delete`: arguments, options, examples and the action. */
export function defineInstanceCommands(program: Command, contextOf: ContextOf): void {
  program
    .command('instance')
    .description('show one instance')
    .argument('<instanceId>', 'the instance')
    .option('--history', 'with its history')
    .option('--available', 'with the triggers its current state answers')
    .addHelpText('after', examples('signalbox instance claim-42 --history', 'signalbox instance claim-42 --json'))
    .action((instanceId: string, options, command: Command) => instanceCommand(contextOf(command), instanceId, options));

  program
    .command('cancel')
    .description('cancel an instance')
    .argument('<instanceId>', 'the instance')
    .addHelpText('after', examples('signalbox cancel claim-42'))
    .action((instanceId: string, _options, command: Command) => cancelCommand(contextOf(command), instanceId));

  program
    .command('recover')
    .description('recover a faulted instance into a state (its entry conditions and actions run again)')
    .argument('<instanceId>', 'the instance')
    .requiredOption('--state <stateId>', 'the state to recover to')
    .option('--context <json|@file>', 'repair the context first: a JSON Merge Patch (RFC 7386; null removes a key), inline or @file.json')
    .addHelpText('after', examples('signalbox recover claim-42 --state draft', `signalbox recover claim-42 --state submitted --context '{"amount":120}'`))
    .action((instanceId: string, options, command: Command) => recoverCommand(contextOf(command), instanceId, options));

  program
    .command('suspend')
    .description('suspend a waiting instance: it takes no triggers (notActive) and its timers wait until it is resumed')
    .argument('<instanceId>', 'the instance')
    .addHelpText('after', examples('signalbox suspend claim-42'))
    .action((instanceId: string, _options, command: Command) => suspendCommand(contextOf(command), instanceId));

  program
    .command('resume')
    .description('resume a suspended instance (waiting again; timers that fell due meanwhile fire at once)')
    .argument('<instanceId>', 'the instance')
    .addHelpText('after', examples('signalbox resume claim-42'))
    .action((instanceId: string, _options, command: Command) => resumeCommand(contextOf(command), instanceId));

  program
    .command('delete')
    .description('delete an instance with its history (the server refuses a waiting or initializing one without --force)')
    .argument('<instanceId>', 'the instance')
    .option('--force', 'delete it even while it is waiting or initializing')
    .addHelpText('after', examples('signalbox delete claim-42', 'signalbox delete claim-43 --force'))
    .action((instanceId: string, options, command: Command) => deleteCommand(contextOf(command), instanceId, options));
}
