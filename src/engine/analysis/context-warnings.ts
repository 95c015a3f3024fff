/**
 * @module `undefinedContextKey`: a step reads a context key that every path to it has removed and nothing
 * set again (analyze-definition.ts gathers every warning).
 */
import type { Step } from '../definition/definition';
import { formatPath } from '../model/validation';
import { contextEffectOfAction, contextKeysReadByCondition, contextKeysReadByTemplate } from './context-keys';
import type { DefinitionGraph } from './definition-graph';
import { WarningCode, type DefinitionWarning } from './warnings';

/**
 * Keys known to be absent from the context. The creation context is open (a definition does not declare
 * what it accepts), so a key no action sets may still come from it: that is not decidable. What is
 * decidable is a key that every path to a step has removed (setContext `remove`) and nothing set again.
 */
type Absent = ReadonlySet<string>;

function afterActions(absent: Absent, actions: readonly Step[]): Absent {
  let out = new Set(absent);
  for (const action of actions) {
    const effect = contextEffectOfAction(action);
    if (effect.setsUnknownKeys) out = new Set();
    for (const key of effect.sets) out.delete(key);
    for (const key of effect.removes) out.add(key);
  }
  return out;
}

function intersect(a: Absent | undefined, b: Absent): Absent {
  return a === undefined ? b : new Set([...a].filter((key) => b.has(key)));
}

export function undefinedContextKeys(graph: DefinitionGraph): DefinitionWarning[] {
  const { definition } = graph;
  // Absent keys just before a state's entry actions; undefined: not reached (yet).
  const atEntry = new Map<string, Absent>([[graph.initialStateId, new Set()]]);
  const restingIn = (stateId: string) => afterActions(atEntry.get(stateId)!, definition.states[stateId]!.entryActions);
  const queue = [graph.initialStateId];
  while (queue.length) {
    const stateId = queue.shift()!;
    const state = definition.states[stateId]!;
    const afterExit = afterActions(restingIn(stateId), state.exitActions);
    for (const edge of graph.transitionsFrom(stateId)) {
      const before = atEntry.get(edge.targetStateId);
      const next = intersect(before, afterActions(afterExit, edge.definition.actions));
      if (before === undefined || next.size !== before.size) {
        atEntry.set(edge.targetStateId, next);
        queue.push(edge.targetStateId);
      }
    }
  }

  const warnings: DefinitionWarning[] = [];
  const check = (keys: readonly string[], absent: Absent, path: (string | number)[]) => {
    for (const key of new Set(keys)) {
      if (absent.has(key))
        warnings.push({
          path: formatPath(path),
          code: WarningCode.undefinedContextKey,
          message: `reads context.${key}, which every path to here has removed (setContext "remove") and nothing sets again`,
        });
    }
  };
  const checkActions = (actions: readonly Step[], absent: Absent, path: (string | number)[]) => {
    let current = absent;
    actions.forEach((action, index) => {
      check(contextEffectOfAction(action).reads, current, [...path, index]);
      current = afterActions(current, [action]);
    });
    return current;
  };
  for (const [stateId, state] of Object.entries(definition.states)) {
    const entry = atEntry.get(stateId);
    if (!entry) continue; // unreachable: reported as such
    const statePath = ['states', stateId];
    // Entry conditions are asked before the exit and transition actions run: against the states before.
    const incoming = graph.transitions.filter((edge) => edge.targetStateId === stateId && atEntry.has(edge.stateId));
    let beforeEntryConditions: Absent | undefined = stateId === graph.initialStateId ? new Set() : undefined;
    for (const edge of incoming) beforeEntryConditions = intersect(beforeEntryConditions, restingIn(edge.stateId));
    state.entryConditions.forEach((condition, index) => check(contextKeysReadByCondition(condition), beforeEntryConditions ?? new Set(), [...statePath, 'entryConditions', index]));
    const resting = checkActions(state.entryActions, entry, [...statePath, 'entryActions']);
    state.interests.forEach((interest, index) => check(contextKeysReadByTemplate(interest), resting, [...statePath, 'interests', index]));
    state.exitConditions.forEach((condition, index) => check(contextKeysReadByCondition(condition), resting, [...statePath, 'exitConditions', index]));
    state.transitions.forEach((transition, index) => {
      transition.conditions.forEach((condition, conditionIndex) => check(contextKeysReadByCondition(condition), resting, [...statePath, 'transitions', index, 'conditions', conditionIndex]));
    });
    const afterExit = checkActions(state.exitActions, resting, [...statePath, 'exitActions']);
    state.transitions.forEach((transition, index) => checkActions(transition.actions, afterExit, [...statePath, 'transitions', index, 'actions']));
  }
  return warnings;
}
