/**
 * @module Offline checks of definition files, as a compiler reports them: every schema error and every
 * analysis warning with its file, JSON path and message (`claim.json: states.draft.transitions[1]:
 * shadowedTransition: ...`). The same validation the server runs on PUT, so a file that passes here is
 * not refused there for its shape (custom condition or action types registered only in a server's
 * registry are the exception: offline, only the built-in types are known).
 */
import type { DefinitionCheck } from '../engine/analysis';
import type { DefinitionFile } from './inputs';
import type { Output } from './output';

/** The engine's check of one file (types only: the engine itself loads on first use, below). */
export interface FileCheck extends DefinitionCheck {
  readonly file: string;
  /** The definition's id, when it has a string one. */
  readonly workflowId?: string;
}

/**
 * The engine's validation and analysis (zod schemas, JSONata, every step type, the definition graph) are
 * most of the CLI's start-up time, and only the commands that read definitions need them: they are
 * loaded on first use, not when the CLI starts. (A `require`, since `import()` of TypeScript source does
 * not go through the require hook.)
 */
export function engineAnalysis(): typeof import('../engine/analysis') {
  return require('../engine/analysis') as typeof import('../engine/analysis');
}

/** Schema errors, or, for a valid definition, the analysis' warnings (the same as the server's). */
export function checkDefinitionFile(input: DefinitionFile): FileCheck {
  if (input.parseError !== undefined) return { file: input.file, valid: false, errors: [{ path: '$', message: input.parseError }], warnings: [] };
  const workflowId = idOf(input.definition);
  const { valid, errors, warnings } = engineAnalysis().checkDefinition(input.definition);
  return { file: input.file, valid, errors, warnings, ...(workflowId ? { workflowId } : {}) };
}

function idOf(definition: unknown): string | undefined {
  const id = (definition as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : undefined;
}

/** Prints each problem on its own line, errors first, then a one-line total. */
export function printFileChecks(output: Output, checks: readonly FileCheck[]): void {
  const { colors } = output;
  for (const check of checks) {
    for (const error of check.errors) output.print(`${check.file}: ${error.path}: ${colors.red('error')}: ${error.message}`);
    for (const warning of check.warnings) output.print(`${check.file}: ${warning.path}: ${colors.yellow(warning.code)}: ${warning.message}`);
  }
  const errors = checks.reduce((sum, check) => sum + check.errors.length, 0);
  const warnings = checks.reduce((sum, check) => sum + check.warnings.length, 0);
  const files = `${checks.length} file${checks.length === 1 ? '' : 's'}`;
  const totals = `${plural(errors, 'error')}, ${plural(warnings, 'warning')}`;
  output.print(errors ? colors.red(`${files}: ${totals}`) : warnings ? colors.yellow(`${files}: ${totals}`) : colors.green(`${files}: ${totals}`));
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
