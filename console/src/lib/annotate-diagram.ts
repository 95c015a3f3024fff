/**
 * @module Draws instance counts onto the server's Mermaid stateDiagram-v2 text: each state that has
 * instances gets a description line (`s1 : 3 waiting · 1 faulted`), which Mermaid renders inside the
 * state's box under its name, and states holding faulted instances get a class that outlines them in
 * red. The server's lines are kept as they are; lines are only added.
 */
import { describeCounts, type StatusCounts } from './state-counts';

const FAULTED_CLASS = 'signalboxHasFaulted';

export interface DiagramState {
  displayName?: string;
}

interface Declaration {
  readonly alias: string;
  readonly label: string;
}

/** Mermaid entity codes (`#quot;`, `#35;`) back to characters. */
function decodeEntities(text: string): string {
  const named: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', semi: ';' };
  return text.replace(/#(\d+|[a-z]+);/g, (whole, code: string) => (/^\d+$/.test(code) ? codePoint(Number(code), whole) : (named[code] ?? whole)));
}

function codePoint(code: number, whole: string): string {
  return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
}

function declarations(diagram: string): Declaration[] {
  return [...diagram.matchAll(/^\s*state\s+"([^"]*)"\s+as\s+(\S+)\s*$/gm)].map((match) => ({ label: decodeEntities(match[1]!).trim(), alias: match[2]! }));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The id the diagram gives each workflow state. The server draws states as `state "<display name>" as
 * <alias>` (aliases, since state ids may hold any character), so a state is found by its label, in
 * definition order when two share one; a diagram that uses the state id itself is matched directly.
 */
export function diagramStateIds(diagram: string, states: Record<string, DiagramState>): Map<string, string> {
  const declared = declarations(diagram);
  const used = new Set<number>();
  const ids = new Map<string, string>();
  for (const [stateId, state] of Object.entries(states)) {
    // As the server writes it (mermaidLabel): control characters and line breaks drawn as a space.
    const label = (state.displayName ?? stateId).replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();
    const index = declared.findIndex((declaration, position) => !used.has(position) && declaration.label === label);
    if (index >= 0) {
      used.add(index);
      ids.set(stateId, declared[index]!.alias);
    } else if (new RegExp(`(^|[^\\w-])${escapeRegExp(stateId)}(?![\\w-])`, 'm').test(diagram)) {
      ids.set(stateId, stateId);
    }
  }
  return ids;
}

/** Mermaid descriptions end at the line; characters that start other syntax are dropped. */
function safeLabel(text: string): string {
  return text.replace(/[\r\n:;#"{}<>]/g, ' ');
}

export function annotateDiagram(diagram: string, states: Record<string, DiagramState>, countsByState: Record<string, StatusCounts>): string {
  const ids = diagramStateIds(diagram, states);
  const lines: string[] = [];
  const faulted: string[] = [];
  for (const [stateId, counts] of Object.entries(countsByState)) {
    const label = describeCounts(counts);
    const id = ids.get(stateId);
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
