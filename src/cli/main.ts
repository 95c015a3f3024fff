/**
 * @module The `signalbox` command line (bin/signalbox.js runs it): parses the arguments, runs the command
 * and turns whatever ended it into a message on stderr and an exit code (see ExitCode).
 */
import { CommanderError } from 'commander';
import { ApiError, CliError, ExitCode, type Problem } from './errors';
import { Output, type OutputOptions } from './output';
import { buildProgram } from './program';

/** Runs one command line (without `node` and the script); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: OutputOptions = {}): Promise<ExitCode> {
  const output = new Output(io);
  try {
    await buildProgram(output).parseAsync([...argv], { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    return report(output, error);
  }
}

function report(output: Output, error: unknown): ExitCode {
  const colors = output.errorColors;
  if (error instanceof CommanderError) {
    // commander has printed its message (or the help) already.
    return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  }
  if (error instanceof ApiError) {
    output.note(...problemLines(error.status, error.problem, error.message).map((line, index) => (index === 0 ? `${colors.red('error')}: ${line}` : line)));
    return error.exitCode;
  }
  if (error instanceof CliError) {
    if (error.exitCode !== ExitCode.validation || error.message) output.note(`${colors.red('error')}: ${error.message}`);
    return error.exitCode;
  }
  // A bug: say so plainly, with the stack, rather than pretend it was the user's or the server's fault.
  output.note(...`${colors.red('internal error')}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`.split('\n'));
  return ExitCode.api;
}

/** A problem+json answer as lines: `title (HTTP status)`, the detail, then each field error by path. */
export function problemLines(status: number, problem: Problem | undefined, fallback: string): string[] {
  const lines = [`${problem?.title ?? fallback} (HTTP ${status})`];
  if (problem?.detail) lines.push(`  ${problem.detail}`);
  for (const issue of problem?.errors ?? []) lines.push(`  ${issue.path}: ${issue.message}`);
  return lines;
}
