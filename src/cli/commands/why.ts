/**
 * @module `signalbox why <instanceId>`: why one instance is not moving, every reason with what to do;
 * `signalbox stuck <workflowId>`: its instances that are not final, counted per class and state
 * ("312 waiting for Approve, oldest 9 days"). Everything printed goes through Output, which escapes
 * control characters (terminal-text.ts): causes, names and ids come from the server.
 */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import type { WaitingAnswer, WaitingSummary } from '../api';
import type { CommandContext } from '../context';
import { failingDeliveryLines } from './events';

type Reason = WaitingAnswer['reasons'][number];
type Group = WaitingSummary['groups'][number];

/** `9 days`, `3 h`, `5 min`, `40 s`: how long ago `since` was. */
export function age(since: string, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - Date.parse(since)) / 1000));
  if (seconds >= 2 * 86_400) return `${Math.floor(seconds / 86_400)} days`;
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min`;
  return `${seconds} s`;
}

const names = (triggerNames: readonly string[], except?: readonly string[]): string => `${triggerNames.join(' or ')}${except?.length ? ` except ${except.join(', ')}` : ''}`;

/** One reason as lines: what it is, then what to do or know. */
function reasonLines(reason: Reason, now: Date): string[] {
  switch (reason.class) {
    case 'final':
      return [`final: ${reason.status} since ${reason.at}; it will not move again`];
    case 'faulted':
      return [
        `faulted since ${reason.at} (${age(reason.at, now)})${reason.triggerId ? ` applying trigger ${reason.triggerId}` : ''}: ${reason.cause}`,
        // A fault of a trigger it recorded: retrying applies that trigger again, once the cause is fixed.
        ...(reason.retry ? [`  retry (once what failed is fixed): ${reason.retry.cli}`, `       or: ${reason.retry.http.method} ${reason.retry.http.path}`] : []),
        `  recover: ${reason.recover.cli}`,
        `       or: ${reason.recover.http.method} ${reason.recover.http.path} ${JSON.stringify(reason.recover.http.body)}`,
      ];
    case 'suspended':
      return [`suspended since ${reason.since} (${age(reason.since, now)})${reason.by ? ` by ${reason.by}` : ''}`, `  resume: ${reason.resume.cli}`];
    case 'leaseHeld': {
      const holder = reason.heldByThisProcess ? `held by the answering process${reason.since ? ` since ${reason.since}` : ''}` : 'held by another worker (working, or crashed)';
      const expiry = reason.infinite ? 'an infinite lease: it never expires, only breaking it frees the instance' : reason.expiresBy ? `expires by ${reason.expiresBy} unless renewed` : '';
      return [`lease held: ${holder}`, ...(expiry ? [`  ${expiry}`] : [])];
    }
    case 'queuedForSlot':
      return [
        'queued for a concurrency slot',
        ...reason.queued.map(
          (place) =>
            `  trigger ${place.triggerId} on key ${place.key}: ${place.position} of ${place.queuedOnKey} waiting, ${place.running}/${place.limit} running (priority ${place.priority}, since ${place.arrivedAt})`,
        ),
        `  see the key: ${reason.view.cli}`,
      ];
    case 'waitingForRetry':
      return [
        `waiting for retry: attempt ${reason.attempt} of trigger ${reason.triggerName} (${reason.triggerId}) next at ${reason.nextAttemptAt}`,
        `  ${reason.stepPath} failed: ${reason.lastError.message}`,
      ];
    case 'waitingForRoom':
      return [
        'waiting for room: an automatic transition of its state is not taken while its target is full',
        ...reason.waits.map(
          (wait) =>
            `  into ${wait.stateId} on key ${wait.key}: ${wait.position} of ${wait.queuedOnKey} waiting, ${wait.members}/${wait.limit} in the state (since ${wait.arrivedAt}, until ${wait.deadline})`,
        ),
        `  see the key: ${reason.view.cli}`,
      ];
    case 'debounced':
      return [
        'debounced: triggers held back, applied once the burst is quiet',
        ...reason.bursts.map(
          (burst) =>
            `  ${burst.coalesced} ${burst.triggerName} trigger(s) since ${burst.firstAt}: applied at ${burst.dueAt} unless another comes first${burst.latestAt ? `, at the latest ${burst.latestAt}` : ''}${burst.overdue ? ' (overdue: is the timer host running?)' : ''}`,
        ),
      ];
    case 'waitingForChildren':
      return [
        `waiting for ${reason.children.length + reason.moreChildren} child instance(s)`,
        ...reason.children.map((child) => `  ${child.instanceId} (${child.workflowId}) ${child.status} in state ${child.stateId}`),
        ...(reason.moreChildren ? [`  and ${reason.moreChildren} more`] : []),
      ];
    case 'waitingForTimer':
      return [
        'waiting for a timer',
        ...reason.timers.map((timer) => `  ${timer.transitionId} to ${timer.targetStateId}, due ${timer.dueAt}${timer.overdue ? ' (overdue: is the timer host running?)' : ''}`),
      ];
    case 'waitingForTrigger':
      return [
        'waiting for a trigger',
        ...reason.triggers.map((trigger) => `  ${names(trigger.triggerNames, trigger.exceptTriggerNames)} to ${trigger.targetStateId}${trigger.who ? ` (sent by ${trigger.who.join(', ')})` : ''}`),
        `  reached by subjects: ${reason.subjects.join(', ')}`,
      ];
    case 'heldNotifications':
      return [`${reason.count} notification(s) held until it is resumed or recovered: ${reason.triggers.map((trigger) => trigger.name).join(', ')}`];
    case 'stranded':
      return [`stranded in state ${reason.stateId}: it answers no trigger and no timer is armed; recover, migrate or cancel it`];
  }
}

export async function whyCommand(context: CommandContext, instanceId: string): Promise<void> {
  const answer = await context.api.whyWaiting(instanceId);
  if (context.json) return context.output.printJson(answer);
  const { output } = context;
  const now = new Date();
  output.print(`${answer.instanceId} (${answer.workflowId} version ${answer.workflowVersion}): ${output.colors.bold(answer.class)}, ${answer.status} in state ${answer.stateId} since ${answer.since}`);
  for (const reason of answer.reasons) output.print(...reasonLines(reason, now));
  // Deliveries of its lifecycle events that fail do not hold the instance, but someone is not hearing of it.
  const failing = await failingDeliveryLines(context, instanceId);
  if (failing.length) output.print('', output.colors.bold('Event deliveries failing'), ...failing);
}

/** `312 waiting for Approve in state submitted, oldest 9 days (claim-7)`. */
function groupLine(group: Group, now: Date): string {
  const what =
    group.class === 'waitingForTrigger' && group.triggerNames?.length
      ? `waiting for ${group.triggerNames.join(' or ')}`
      : group.class === 'faulted' && group.causes?.length
        ? `faulted: ${group.causes.map((cause) => `${cause.cause} (${cause.count})`).join('; ')}${group.otherCauses ? `; ${group.otherCauses} more` : ''}`
        : group.class;
  return `${group.count} ${what} in state ${group.stateId}, oldest ${age(group.oldest.since, now)} (${group.oldest.instanceId})`;
}

export async function stuckCommand(context: CommandContext, workflowId: string): Promise<void> {
  const summary = await context.api.waitingSummary(workflowId);
  if (context.json) return context.output.printJson(summary);
  const { output } = context;
  const now = new Date();
  output.print(`${summary.workflowId}: ${summary.notFinal} instance(s) not final${summary.truncated ? ` (counted among the first ${summary.scanned} read: there are more)` : ''}`);
  for (const group of summary.groups) output.print(`  ${groupLine(group, now)}`);
}

/** `signalbox why` and `signalbox stuck`. */
export function defineWhyCommands(program: Command, contextOf: ContextOf): void {
  program
    .command('why')
    .description('why an instance is not moving: every reason (trigger, timer, children, retry, suspended, faulted, lease, ...) and what to do')
    .argument('<instanceId>', 'the instance')
    .addHelpText('after', examples('signalbox why claim-42', 'signalbox why claim-42 --json'))
    .action((instanceId: string, _options, command: Command) => whyCommand(contextOf(command), instanceId));

  program
    .command('stuck')
    .description("a workflow's instances that are not final, counted per reason and state, with the oldest of each")
    .argument('<workflowId>', 'the workflow')
    .addHelpText('after', examples('signalbox stuck expense-claim', 'signalbox stuck expense-claim --json'))
    .action((workflowId: string, _options, command: Command) => stuckCommand(contextOf(command), workflowId));
}
