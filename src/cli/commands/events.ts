/**
 * @module Failing lifecycle-event deliveries of one instance, as `instance` and `why` show them (each with
 * its last error, and when the next attempt is due or how to deliver it again), and `signalbox redeliver
 * <instanceId> <eventId>`: a dead-lettered event's deliveries pending again, with the same event id.
 */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import type { CommandContext } from '../context';

/** One line per delivery that failed (pending after an attempt, or dead-lettered), with what to do; none when all went well. */
export async function failingDeliveryLines(context: CommandContext, instanceId: string): Promise<string[]> {
  const { items } = await context.api.instanceEvents(instanceId);
  const lines: string[] = [];
  for (const event of items) {
    for (const delivery of event.deliveries) {
      const failing = delivery.status === 'deadLettered' || (delivery.status === 'pending' && delivery.attempts > 0);
      if (!failing) continue;
      const tries = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
      const error = delivery.lastError ? `: ${delivery.lastError}` : '';
      lines.push(`event ${event.id} (${event.type}) to ${delivery.subscriptionId}: ${delivery.status === 'deadLettered' ? 'dead-lettered' : 'failing'} after ${tries}${error}`);
      if (delivery.status === 'pending') lines.push(`  next attempt ${delivery.nextAttemptAt ? `at ${delivery.nextAttemptAt}` : 'soon'}`);
      else lines.push(`  redeliver: signalbox redeliver ${instanceId} ${event.id}`);
    }
  }
  return lines;
}

export async function redeliverCommand(context: CommandContext, instanceId: string, eventId: string): Promise<void> {
  await context.api.redeliverEvent(instanceId, eventId);
  if (context.json) return context.output.printJson({ instanceId, eventId, redelivered: true });
  context.output.print(`${eventId}: its dead-lettered deliveries are pending again (same event id); see them with: signalbox instance ${instanceId}`);
}

/** `signalbox redeliver`: arguments, examples and the action. */
export function defineRedeliverCommand(program: Command, contextOf: ContextOf): void {
  program
    .command('redeliver')
    .description('deliver a dead-lettered lifecycle event again (its deliveries pending, attempts from zero, the same event id)')
    .argument('<instanceId>', 'the instance')
    .argument('<eventId>', 'the event (signalbox instance <id> lists the failing ones)')
    .addHelpText('after', examples('signalbox redeliver claim-42 claim-42:k3x9:4:faulted'))
    .action((instanceId: string, eventId: string, _options, command: Command) => redeliverCommand(contextOf(command), instanceId, eventId));
}
