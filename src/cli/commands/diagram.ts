/**
 * @module `signalbox diagram <file | workflowId> [--instance <id>] [--version N]`: the Mermaid
 * `stateDiagram-v2` text on stdout. A file is drawn offline by the engine's analysis (the same generator
 * the server uses); a workflow id asks the server's diagram route. `--instance` highlights that
 * instance's current state (read from the server).
 */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import { existsSync } from 'node:fs';
import type { WorkflowDefinition } from '../../engine/definition';
import type { CommandContext } from '../context';
import { checkDefinitionFile, engineAnalysis, printFileChecks } from '../definition-check';
import { UsageError, ValidationFailedError } from '../errors';
import { readDefinitionFile, wholeNumber } from '../inputs';

export interface DiagramOptions {
  readonly instance?: string;
  readonly version?: number;
}

export async function diagramCommand(context: CommandContext, target: string, options: DiagramOptions): Promise<void> {
  const isFile = existsSync(target) || target.endsWith('.json');
  const diagram = isFile ? await diagramOfFile(context, target, options) : await diagramOfWorkflow(context, target, options);
  if (context.json) return context.output.printJson({ [isFile ? 'file' : 'workflowId']: target, diagram });
  context.output.printDocument(diagram);
}

async function diagramOfWorkflow(context: CommandContext, workflowId: string, options: DiagramOptions): Promise<string> {
  return context.api.workflowDiagram(workflowId, {
    ...(options.version !== undefined ? { version: options.version } : {}),
    ...(options.instance !== undefined ? { instanceId: options.instance } : {}),
  });
}

async function diagramOfFile(context: CommandContext, file: string, options: DiagramOptions): Promise<string> {
  if (options.version !== undefined) throw new UsageError('--version applies to a stored workflow, not to a file');
  const input = readDefinitionFile(file);
  const check = checkDefinitionFile(input);
  if (!check.valid) {
    printFileChecks(context.output, [check]);
    throw new ValidationFailedError('');
  }
  const analysis = engineAnalysis();
  const definition: WorkflowDefinition = analysis.validateDefinition(input.definition);
  const highlightStateId = options.instance === undefined ? undefined : (await context.api.getInstance(options.instance)).stateId;
  return analysis.mermaidStateDiagram(analysis.buildDefinitionGraph(definition), highlightStateId === undefined ? {} : { highlightStateId });
}

/** `signalbox diagram`: arguments, options, examples and the action. */
export function defineDiagramCommand(program: Command, contextOf: ContextOf): void {
  program
    .command('diagram')
    .description('print the Mermaid stateDiagram-v2 of a definition file (offline) or of a stored workflow')
    .argument('<file|workflowId>', 'a definition file, or the id of a stored workflow')
    .option('--instance <instanceId>', "highlight this instance's current state")
    .option('--version <n>', 'a given version (default: the latest)', wholeNumber('--version'))
    .addHelpText(
      'after',
      examples(
        'signalbox diagram examples/expense-claim.json > claim.mmd',
        'signalbox diagram expense-claim',
        'signalbox diagram expense-claim --instance claim-42',
        'signalbox diagram expense-claim --version 1',
      ),
    )
    .action((target: string, options, command: Command) => diagramCommand(contextOf(command), target, options));
}
