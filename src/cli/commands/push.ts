/**
 * @module `signalbox push <file...>`: every file is checked first and nothing is sent if any is invalid;
 * then each workflow is created, or gets a new version with `If-Match` set to its current ETag. A file
 * equal to the latest version is left as it is (`unchanged`), unless `--force`.
 */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import type { CommandContext } from '../context';
import { checkDefinitionFile, printFileChecks } from '../definition-check';
import { ValidationFailedError } from '../errors';
import { readDefinitionFile } from '../inputs';

export interface PushResult {
  readonly file: string;
  readonly workflowId: string;
  readonly version: number;
  readonly created: boolean;
  /** The definition equals the latest version's: no version was added. */
  readonly unchanged: boolean;
  /** Warnings only the server could give (its outbound allow-list, ...), beyond the file's own. */
  readonly warnings?: readonly ServerWarning[];
}

/** A warning of the server's analysis of a stored definition. */
export interface ServerWarning {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

function serverWarningsOf(stored: { readonly warnings?: readonly unknown[] }): ServerWarning[] {
  return (stored.warnings ?? []).filter(
    (warning): warning is ServerWarning =>
      typeof warning === 'object' &&
      warning !== null &&
      typeof (warning as ServerWarning).path === 'string' &&
      typeof (warning as ServerWarning).code === 'string' &&
      typeof (warning as ServerWarning).message === 'string',
  );
}

/** What to do about a host the server will not call: every instance reaching that step would fault. */
function hostHint(warning: ServerWarning): string {
  return warning.code === 'hostNotAllowed' ? ' (every instance reaching this step will fault until the host is allowed: SIGNALBOX_ALLOWED_HOSTS on the server)' : '';
}

export interface PushOptions {
  /** Add a version even when the definition equals the latest one. */
  readonly force?: boolean;
}

export async function pushCommand(context: CommandContext, files: readonly string[], options: PushOptions = {}): Promise<void> {
  const { output } = context;
  const inputs = files.map(readDefinitionFile);
  const checks = inputs.map(checkDefinitionFile);
  if (checks.some((check) => !check.valid)) {
    if (context.json) output.printJson({ valid: false, files: checks });
    else printFileChecks(output, checks);
    throw new ValidationFailedError('invalid definition: nothing was pushed');
  }
  const results: PushResult[] = [];
  for (const [index, input] of inputs.entries()) {
    const workflowId = checks[index]!.workflowId!;
    for (const warning of checks[index]!.warnings) output.note(`${input.file}: ${warning.path}: ${warning.code}: ${warning.message}`);
    const current = await context.api.findWorkflow(workflowId);
    const stored = await context.api.putWorkflow(workflowId, input.definition, current ? { ifMatch: current.etag, ...(options.force ? { force: true } : {}) } : {});
    const created = current === undefined;
    // The server's warnings that the file alone could not give (its allow-list: a host not on it faults every call).
    const seen = new Set(checks[index]!.warnings.map((warning) => `${warning.path}\u0000${warning.code}`));
    // An unchanged file stored nothing: its warnings were given when its version was stored.
    const unchanged = !created && stored.version === current.version;
    const serverWarnings = unchanged ? [] : serverWarningsOf(stored).filter((warning) => !seen.has(`${warning.path}\u0000${warning.code}`));
    const result: PushResult = {
      file: input.file,
      workflowId,
      version: stored.version,
      created,
      unchanged,
      ...(serverWarnings.length ? { warnings: serverWarnings } : {}),
    };
    results.push(result);
    if (!context.json) output.print(`${workflowId}: ${result.created ? 'created, ' : result.unchanged ? 'unchanged, ' : ''}version ${stored.version} (${input.file})`);
    if (!context.json) for (const warning of serverWarnings) output.note(`${input.file}: ${warning.path}: ${warning.code}: ${warning.message}${hostHint(warning)}`);
  }
  if (context.json) output.printJson(results);
}

/** `signalbox push`: arguments, options, examples and the action. */
export function definePushCommand(program: Command, contextOf: ContextOf): void {
  program
    .command('push')
    .description('create each workflow, or add a version to it (If-Match with its current ETag); a file equal to the latest version adds none; invalid files are refused before any request')
    .argument('<file...>', 'workflow definition files (JSON)')
    .option('--force', 'add a version even when the file equals the latest version')
    .addHelpText('after', examples('signalbox push examples/expense-claim.json', 'signalbox push examples/*.json --json', 'signalbox push examples/expense-claim.json --force'))
    .action((files: string[], options: { force?: boolean }, command: Command) => pushCommand(contextOf(command), files, options));
}
