/** @module What the command modules share when they define themselves: the context, examples, and common options. */
import type { Command } from 'commander';
import { instanceStatuses } from '../client';
import type { CommandContext } from './context';
import { wholeNumber } from './inputs';

/** The context of the command being run (global options may follow the command: `signalbox instances --json`). */
export type ContextOf = (command: Command) => CommandContext;

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

/** The statuses `--status` accepts: the API's own (src/client checks the list against the generated types). */
export const INSTANCE_STATUSES: readonly string[] = instanceStatuses;

/** `--wait`, `--results` and `--no-progress` of a command that starts an operation (migrate, bulk). */
export function addOperationOptions(command: Command): Command {
  return command
    .option('--wait', 'follow the operation to its end: a progress bar on a terminal, then the summary and outcomes')
    .option('--results <n>', 'per-instance outcomes to show after --wait', wholeNumber('--results'), 10)
    .option('--no-progress', 'no progress bar, even on a terminal');
}
