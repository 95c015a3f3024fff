/**
 * @module `signalbox diagram <file | workflowId> [--instance <id>] [--version N]`: the Mermaid
 * `stateDiagram-v2` text on stdout, from the server's diagram route for a stored workflow.
 */
import type { CommandContext } from '../context';

export interface DiagramOptions {
  readonly instance?: string;
  readonly version?: number;
}

export async function diagramCommand(context: CommandContext, target: string, options: DiagramOptions): Promise<void> {
  const diagram = await context.api.workflowDiagram(target, {
    ...(options.version !== undefined ? { version: options.version } : {}),
    ...(options.instance !== undefined ? { instanceId: options.instance } : {}),
  });
  if (context.json) return context.output.printJson({ workflowId: target, diagram });
  context.output.stdout.write(diagram.endsWith('\n') ? diagram : `${diagram}\n`);
}
