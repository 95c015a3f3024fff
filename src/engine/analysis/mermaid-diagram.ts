/**
 * @module A Mermaid `stateDiagram-v2` of a definition graph: every state by its display name, the
 * initial and final states, every transition labelled with the trigger names it answers (or its timer, or
 * `auto`/`otherwise` for an automatic one),
 * and optionally one state highlighted (an instance's current state).
 */
import type { DefinitionGraph, TransitionEdge } from './definition-graph';
import { sortedNames } from './name-set';
import type { OnErrorDefinition } from '../definition/error-handling';

export interface DiagramOptions {
  /** The state to highlight (an instance's current state). */
  readonly highlightStateId?: string;
}

/** Control characters (a label is one line): drawn as one space. */
const CONTROL_CHARACTERS = /[\p{Cc}\u2028\u2029]+/gu;
/**
 * What a label may hold as it is: letters, marks, digits, spaces and punctuation that is neither markup
 * (`<`, `>`, `&`), Mermaid syntax (`"`, `#`, `;`, `%`, `:`-free...) nor Markdown (`` ` ``, `*`, `_`).
 */
const NOT_PLAIN = /[^\p{L}\p{M}\p{N} \-.,:()/'!?+=@$~]/gu;

/**
 * Text that Mermaid draws as the text it is, whatever it holds: every character outside a small plain
 * set becomes a Mermaid entity code (`#60;` for `<`), which Mermaid turns into an HTML character
 * reference, so names from a definition never become elements (links, forms, inputs, scripts), Mermaid
 * syntax or Markdown. Control characters and line breaks become a space, since a label ends at the end
 * of its line.
 */
export function mermaidLabel(text: string): string {
  return text
    .replace(CONTROL_CHARACTERS, ' ')
    .trim()
    .replace(NOT_PLAIN, (character) => `#${character.codePointAt(0)};`);
}

/**
 * What a transition's arrow says: its timer, its trigger names, "any trigger", or "no trigger"; an
 * automatic transition says `auto` (with its display name) or `otherwise`, since a state diagram
 * cannot dash an arrow.
 */
export function transitionLabel(edge: TransitionEdge): string {
  if (edge.automatic === 'otherwise') return 'otherwise';
  if (edge.automatic) return edge.displayName ? `auto: ${edge.displayName}` : 'auto';
  if (edge.timer) {
    const when = edge.timer.after !== undefined ? `after ${edge.timer.after}` : `at ${edge.timer.at}`;
    return `timer: ${when}${edge.timer.calendar ? ` (${edge.timer.calendar} calendar)` : ''}`;
  }
  const names = sortedNames(edge.triggerNames);
  if (edge.triggerNames.kind === 'only') return names.length ? names.join(', ') : 'no trigger';
  return names.length ? `any trigger except ${names.join(', ')}` : 'any trigger';
}

/** `error in Pay by bank transfer: timeout, http:5xx` (a state's: `error: ...`). */
export function onErrorLabel(onError: OnErrorDefinition, transitionName?: string): string {
  return `error${transitionName ? ` in ${transitionName}` : ''}: ${onError.when ? onError.when.join(', ') : 'any'}`;
}

export function mermaidStateDiagram(graph: DefinitionGraph, options: DiagramOptions = {}): string {
  // States are drawn under generated ids (s0, s1, ...): state ids may hold any character.
  const alias = new Map(graph.states.map((state, index) => [state.id, `s${index}`]));
  const lines = ['stateDiagram-v2'];
  for (const state of graph.states) lines.push(`    state "${mermaidLabel(state.displayName)}" as ${alias.get(state.id)}`);
  lines.push(`    [*] --> ${alias.get(graph.initialStateId)}`);
  for (const edge of graph.transitions) {
    lines.push(`    ${alias.get(edge.stateId)} --> ${alias.get(edge.targetStateId)}: ${mermaidLabel(transitionLabel(edge))}`);
  }
  // Where errors go (onError): one edge per transition's and per state's, labelled with what it handles.
  for (const [stateId, state] of Object.entries(graph.definition.states)) {
    for (const transition of state.transitions) {
      if (transition.onError)
        lines.push(`    ${alias.get(stateId)} --> ${alias.get(transition.onError.targetStateId)}: ${mermaidLabel(onErrorLabel(transition.onError, transition.displayName ?? transition.id))}`);
    }
    if (state.onError) lines.push(`    ${alias.get(stateId)} --> ${alias.get(state.onError.targetStateId)}: ${mermaidLabel(onErrorLabel(state.onError))}`);
  }
  for (const state of graph.states) if (state.final) lines.push(`    ${alias.get(state.id)} --> [*]`);
  const highlighted = options.highlightStateId === undefined ? undefined : alias.get(options.highlightStateId);
  if (highlighted) {
    lines.push('    classDef current fill:#fde68a,stroke:#b45309,stroke-width:3px');
    lines.push(`    class ${highlighted} current`);
  }
  return `${lines.join('\n')}\n`;
}
