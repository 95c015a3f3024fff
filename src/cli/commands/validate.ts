/** @module `signalbox validate <file...>`: offline, like a compiler; exit 1 on errors (or warnings with --strict). */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import type { CommandContext } from '../context';
import { checkDefinitionFile, printFileChecks } from '../definition-check';
import { ValidationFailedError } from '../errors';
import { readDefinitionFile } from '../inputs';

export interface ValidateOptions {
  readonly strict?: boolean;
}

export async function validateCommand(context: CommandContext, files: readonly string[], options: ValidateOptions): Promise<void> {
  const checks = files.map((file) => checkDefinitionFile(readDefinitionFile(file)));
  const valid = checks.every((check) => check.valid);
  const passes = valid && (!options.strict || checks.every((check) => check.warnings.length === 0));
  if (context.json) context.output.printJson({ valid, passes, files: checks });
  else printFileChecks(context.output, checks);
  // Every problem is printed already; the exit code says the rest.
  if (!passes) throw new ValidationFailedError('');
}

/** `signalbox validate`: arguments, options, examples and the action. */
export function defineValidateCommand(program: Command, contextOf: ContextOf): void {
  program
    .command('validate')
    .description('check definition files offline: schema errors and analysis warnings, by file and JSON path')
    .argument('<file...>', 'workflow definition files (JSON)')
    .option('--strict', 'warnings fail the check too (exit 1)')
    .addHelpText('after', examples('signalbox validate examples/*.json', 'signalbox validate --strict claim.json', 'signalbox validate claim.json --json'))
    .action((files: string[], options, command: Command) => validateCommand(contextOf(command), files, options));
}
