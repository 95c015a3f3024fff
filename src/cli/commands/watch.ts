/** @module `signalbox watch <operationId>`: the progress view of an operation until it finishes. */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import { wholeNumber } from '../inputs';
import type { CommandContext } from '../context';
import { noteNoCandidates } from '../no-candidates';
import { failIfFailed, printOperation, waitForOperation } from '../operation-view';
import { outcomeReasons } from '../outcome-reasons';

export interface WatchCommandOptions {
  readonly results?: number;
  readonly progress?: boolean;
}

export async function followOperation(context: CommandContext, operationId: string, options: WatchCommandOptions): Promise<void> {
  const operation = await waitForOperation(context.api, operationId, context.output, {
    progress: options.progress !== false && !context.json,
    ...(options.results !== undefined ? { results: options.results } : {}),
  });
  if (context.json) context.output.printJson(operation);
  else {
    const reasons = await outcomeReasons(context.api, operation.instances.slice(0, options.results ?? 10));
    printOperation(context.output, operation, { reasons, ...(options.results !== undefined ? { results: options.results } : {}) });
  }
  noteNoCandidates(context.output, operation);
  failIfFailed(operation);
}

export async function watchCommand(context: CommandContext, operationId: string, options: WatchCommandOptions): Promise<void> {
  await followOperation(context, operationId, options);
}

/** `signalbox watch`: arguments, options, examples and the action. */
export function defineWatchCommand(program: Command, contextOf: ContextOf): void {
  program
    .command('watch')
    .description('follow an operation: a progress bar on a terminal, then the summary and the first per-instance outcomes')
    .argument('<operationId>', 'the operation (a trigger id)')
    .option('--results <n>', 'per-instance outcomes to show', wholeNumber('--results'), 10)
    .option('--no-progress', 'no progress bar, even on a terminal')
    .addHelpText('after', examples('signalbox watch update-1', 'signalbox watch update-1 --json'))
    .action((operationId: string, options, command: Command) => watchCommand(contextOf(command), operationId, options));
}
