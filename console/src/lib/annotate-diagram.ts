/**
 * @module Draws instance counts onto the server's Mermaid stateDiagram-v2 text: each state that has
 * instances gets a description line (`id : 3 waiting · 1 faulted`), which Mermaid renders inside the
 * state's box, and states holding faulted instances get a class that colours them. The diagram's own
 * lines are kept as they are; only lines are added.
 */
import { describeCounts, type StatusCounts } from './state-counts';

const FAULTED_CLASS = 'signalboxHasFaulted';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The id the diagram uses for a workflow state: the state id itself when the text uses it, else the
 * state id with characters Mermaid ids cannot hold replaced by `_`. Undefined when neither appears.
 */
export function diagramStateId(diagram: string, stateId: string): string | undefined {
  const candidates = [stateId, stateId.replace(/[^A-Za-z0-9_]/g, '_')];
  return candidates.find((candidate) => new RegExp(`(^|[^\\w-])${escapeRegExp(candidate)}(?![\\w-])`, 'm').test(diagram));
}

/** Mermaid descriptions end at the line; colons and the like would start new syntax. */
function safeLabel(text: string): string {
  return text.replace(/[\r\n:;#"{}<>]/g, ' ');
}

export function annotateDiagram(diagram: string, countsByState: Record<string, StatusCounts>): string {
  const lines: string[] = [];
  const faulted: string[] = [];
  for (const [stateId, counts] of Object.entries(countsByState)) {
    const label = describeCounts(counts);
    const id = diagramStateId(diagram, stateId);
    if (!label || !id) continue;
    lines.push(`    ${id} : ${safeLabel(label)}`);
    if ((counts.faulted ?? 0) > 0) faulted.push(id);
  }
  if (faulted.length) {
    lines.push(`    classDef ${FAULTED_CLASS} stroke:#b00020,stroke-width:3px`);
    for (const id of faulted) lines.push(`    class ${id} ${FAULTED_CLASS}`);
  }
  return lines.length ? `${diagram.trimEnd()}\n${lines.join('\n')}\n` : diagram;
}
