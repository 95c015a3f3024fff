/**
 * @module `signalbox retry <instanceId>` and `signalbox retry --operation <operationId>`: apply again,
 * exactly once, the trigger that faulted an instance (or every instance one trigger's operation faulted),
 * once what it faulted on (a service down, say) is fixed. Each is an operation; `--wait` follows it to
 * its end (`watch`'s view). `bulk retry --workflow <id> [--state <stateId>]` retries by filter.
 */
import type { Command } from 'commander';
import { addOperationOptions, examples, type ContextOf } from '../command-options';
import type { CommandContext } from '../context';
import { UsageError } from '../errors';
import { followOperation } from './watch';

export interface RetryOptions {
  readonly operation?: string;
  readonly workflow?: string;
  readonly wait?: boolean;
  readonly results?: number;
  readonly progress?: boolean;
}

export async function retryCommand(context: CommandContext, instanceId: string | undefined, options: RetryOptions): Promise<void> {
  if ((instanceId === undefined) === (options.operation === undefined)) throw new UsageError('retry needs an instance id, or --operation <operationId> (not both)');
  if (options.workflow !== undefined && options.operation === undefined) throw new UsageError('--workflow is only for retry --operation');
  const accepted = instanceId !== undefined ? await context.api.retryInstance(instanceId) : await context.api.retryOperationFaults(options.operation!, options.workflow);
  if (options.wait) return followOperation(context, accepted.operationId, options);
  if (context.json) return context.output.printJson(accepted);
  const what = instanceId !== undefined ? `${instanceId}: retrying the trigger that faulted it` : `retrying the instances operation ${options.operation} faulted`;
  context.output.print(`${what}, as operation ${accepted.operationId} (${accepted.status}); follow it with: signalbox watch ${accepted.operationId}`);
}

/** `signalbox retry`: arguments, options, examples and the action. */
export function defineRetryCommand(program: Command, contextOf: ContextOf): void {
  addOperationOptions(
    program
      .command('retry')
      .description('apply again, exactly once, the trigger that faulted an instance (after fixing what it faulted on), or every instance an operation faulted')
      .argument('[instanceId]', 'the faulted instance')
      .option('--operation <operationId>', "retry every instance this trigger's operation faulted (one bulk retry)")
      .option('--workflow <workflowId>', "with --operation: the workflow whose instances to retry (default: the first faulted instance's)"),
  )
    .addHelpText('after', examples('signalbox retry claim-42 --wait', 'signalbox retry --operation update-7 --wait', 'signalbox bulk retry --workflow expense-claim --state approving'))
    .action((instanceId: string | undefined, options, command: Command) => retryCommand(contextOf(command), instanceId, options));
}
