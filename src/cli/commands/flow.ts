/**
 * @module `signalbox flow <workflowId> <key>`: one key's flow control (what runs, what waits in admission
 * order, when the next slot frees, the newest limit overrides; per state with `capacity`, its members and
 * the triggers waiting for room, with their deadlines). Everything printed goes through Output,
 * which escapes control characters: keys and ids come from the server.
 */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import type { CommandContext } from '../context';

export async function flowCommand(context: CommandContext, workflowId: string, key: string): Promise<void> {
  const view = await context.api.flowKey(workflowId, key);
  if (context.json) return context.output.printJson(view);
  const { output } = context;
  if (view.limit === null) output.print(`${view.workflowId}: no concurrency policy`);
  else printConcurrency(context, view);
  // Each state with `capacity`: who is counted in it under this key, and who waits for room there.
  for (const state of view.capacity) {
    output.print(`state ${state.stateId}, key ${output.colors.bold(view.key)}: ${state.members.length}/${state.limit} in it, ${state.queued.length} waiting for room`);
    for (const member of state.members) output.print(`  in it: ${member.instanceId} since ${member.since}`);
    state.queued.forEach((waiter, index) =>
      output.print(`  waiting ${index + 1}: ${waiter.instanceId} trigger ${waiter.triggerId} priority ${waiter.priority} since ${waiter.arrivedAt} until ${waiter.deadline}`),
    );
  }
}

function printConcurrency(context: CommandContext, view: FlowKeyView): void {
  const { output } = context;
  const limit = view.override ? `${view.limit} (override by ${view.override.by} at ${view.override.at}; the definition says ${view.definedLimit})` : String(view.limit);
  output.print(`${view.workflowId} key ${output.colors.bold(view.key)}: ${view.running.length}/${view.limit} running, ${view.queued.length} queued; limit ${limit}`);
  for (const holder of view.running) output.print(`  running: ${holder.instanceId} trigger ${holder.triggerId} since ${holder.since}`);
  view.queued.forEach((waiter, index) => output.print(`  queued ${index + 1}: ${waiter.instanceId} trigger ${waiter.triggerId} priority ${waiter.priority} since ${waiter.arrivedAt}`));
  if (view.nextRelease) output.print(`  next release: ${view.nextRelease === 'now' ? 'now (a slot is free)' : `by ${view.nextRelease}`}`);
  for (const entry of view.audit) output.print(`  limit ${entry.old ?? '-'} -> ${entry.new ?? "the definition's"} by ${entry.by} at ${entry.at}`);
}

type FlowKeyView = Awaited<ReturnType<CommandContext['api']['flowKey']>>;

export function defineFlowCommand(program: Command, contextOf: ContextOf): void {
  program
    .command('flow')
    .description(
      "one key's flow control: under the concurrency policy running, queued (in admission order), next release, limit overrides; per state with capacity, the instances in it and the triggers waiting for room",
    )
    .argument('<workflowId>', 'the workflow')
    .argument('<key>', 'the key as the policy computes it, e.g. customer:42')
    .addHelpText('after', examples('signalbox flow orders customer:42', 'signalbox flow orders customer:42 --json'))
    .action((workflowId: string, key: string, _options, command: Command) => flowCommand(contextOf(command), workflowId, key));
}
