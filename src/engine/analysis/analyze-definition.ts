/**
 * @module Warnings about a valid definition: things that are allowed but are probably mistakes. They never
 * block storing a definition. Each is decided on the definition graph alone (no I/O), conservatively:
 * a warning is given only when the definition proves it.
 */
import type { Step, WorkflowDefinition } from '../definition/definition';
import { formatPath } from '../model/validation';
import { buildDefinitionGraph, type DefinitionGraph, type TransitionEdge } from './definition-graph';
import { isEmpty, isSubset, sortedNames } from './name-set';
import { refusesEveryone } from '../definition/actors-rule';
import { undefinedContextKeys } from './context-warnings';
import { automaticLoops, nothingWaits, selfStarts, timerLoops } from './loop-warnings';
import { WarningCode, pathOf, type DefinitionWarning } from './warnings';

export { WarningCode, type DefinitionWarning } from './warnings';

/** Every warning about a valid definition, in the order of the definition's states and transitions. */
export function analyzeDefinition(definition: WorkflowDefinition): DefinitionWarning[] {
  const graph = buildDefinitionGraph(definition);
  return [
    ...stateWarnings(graph),
    ...transitionWarnings(graph),
    ...undefinedContextKeys(graph),
    ...selfStarts(graph),
    ...timerLoops(graph),
    ...automaticLoops(graph),
    ...nothingWaits(graph),
    ...actorlessTransitions(definition),
  ];
}

function stateWarnings(graph: DefinitionGraph): DefinitionWarning[] {
  const warnings: DefinitionWarning[] = [];
  // A workflow without any final state is a long-lived entity by design (a counter, a catalog entry):
  // nothing in it is meant to finish, so noWayToFinish is only said where finishing is possible at all.
  const canFinish = graph.states.some((state) => state.final);
  for (const state of graph.states) {
    if (!graph.reachableStateIds.has(state.id)) {
      warnings.push({ path: state.path, code: WarningCode.unreachableState, message: `state "${state.id}" cannot be reached from the initial state "${graph.initialStateId}" by any transition` });
    } else if (canFinish && !graph.finishingStateIds.has(state.id)) {
      warnings.push({
        path: state.path,
        code: WarningCode.noWayToFinish,
        message: `no path of transitions leads from state "${state.id}" to a final state: an instance that gets there never completes`,
      });
    }
  }
  return warnings;
}

// Conditions that give the same answer every time they are asked about the same trigger and context.
const deterministicTypes = new Set(['triggerName', 'triggerContentType', 'triggerParameter', 'expression', 'all', 'any', 'not']);
const clockOrRandom = /\$(now|millis|random)\s*\(/;

function isDeterministic(step: Step): boolean {
  if (!deterministicTypes.has(step.type)) return false;
  const record = step as Record<string, unknown>;
  if (step.type === 'expression') return typeof record.expression === 'string' && !clockOrRandom.test(record.expression);
  if (step.type === 'all' || step.type === 'any') return Array.isArray(record.conditions) && (record.conditions as Step[]).every(isDeterministic);
  if (step.type === 'not') return record.condition !== null && typeof record.condition === 'object' && isDeterministic(record.condition as Step);
  return true;
}

/** A condition's meaning as a string: its JSON with keys sorted and the `id` label left out. */
function canonical(value: unknown, isCondition = true): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item, isCondition)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([key]) => !(isCondition && key === 'id'))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item, key === 'conditions' || key === 'condition')}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Why `earlier` always matches whenever `later` would, or undefined if that is not certain. */
function shadowReason(earlier: TransitionEdge, later: TransitionEdge): string | undefined {
  if (!isEmpty(later.triggerNames) && isSubset(later.triggerNames, earlier.alwaysMatchedNames)) {
    const names =
      later.triggerNames.kind === 'only'
        ? sortedNames(later.triggerNames)
            .map((name) => `"${name}"`)
            .join(', ')
        : 'any trigger';
    return `every trigger it could take (${names}) is taken first by transitions[${earlier.index}] ("${earlier.id}"), whose conditions hold for it whatever else it carries`;
  }
  const earlierConditions = earlier.definition.conditions;
  if (!earlierConditions.every(isDeterministic)) return undefined;
  const laterConditions = new Set(later.definition.conditions.map((condition) => canonical(condition)));
  if (earlierConditions.every((condition) => laterConditions.has(canonical(condition)))) {
    return earlierConditions.length === 0
      ? `transitions[${earlier.index}] ("${earlier.id}") has no conditions, so it is always chosen first`
      : `transitions[${earlier.index}] ("${earlier.id}") is chosen first whenever this one would be: its conditions are a subset of this one's`;
  }
  return undefined;
}

function transitionWarnings(graph: DefinitionGraph): DefinitionWarning[] {
  const warnings: DefinitionWarning[] = [];
  for (const state of graph.states) {
    const edges = graph.transitionsFrom(state.id);
    const stateDefinition = graph.definition.states[state.id]!;
    for (const edge of edges) {
      if (edge.timer) {
        // A timer trigger carries no ordinary trigger name, so a timer transition that asks for one never fires.
        if (edge.triggerNames.kind === 'only') {
          const names = sortedNames(edge.triggerNames)
            .map((name) => `"${name}"`)
            .join(', ');
          const why = names ? `its conditions ask for the trigger name ${names}, which a timer trigger never has` : 'its conditions ask for trigger names no trigger can have at once';
          warnings.push({ path: formatPath([...pathOf(edge), 'timer']), code: WarningCode.unusedTimer, message: `the timer of transition "${edge.id}" can never choose it: ${why}` });
        }
      } else {
        for (const earlier of edges.slice(0, edge.index)) {
          if (earlier.timer) continue; // a timer transition is only considered when its own timer fires
          // Automatic transitions are chosen among themselves on entry, triggered ones by triggers; `otherwise` comes last.
          if (Boolean(earlier.automatic) !== Boolean(edge.automatic) || earlier.automatic === 'otherwise' || edge.automatic === 'otherwise') continue;
          const reason = shadowReason(earlier, edge);
          if (reason) {
            warnings.push({ path: edge.path, code: WarningCode.shadowedTransition, message: `transition "${edge.id}" can never be chosen: ${reason}` });
            break;
          }
        }
      }
      if (edge.targetStateId === state.id && edge.definition.actions.length === 0 && stateDefinition.entryActions.length === 0 && stateDefinition.exitActions.length === 0) {
        warnings.push({
          path: edge.path,
          code: WarningCode.selfLoopWithoutActions,
          message: `transition "${edge.id}" leads back to state "${state.id}" and runs no actions (no transition, exit or entry actions): it only records a transition`,
        });
      }
    }
  }
  return warnings;
}

/** Transitions whose `actors` rule lists an empty set of roles, groups or users: no actor can take them. */
function actorlessTransitions(definition: WorkflowDefinition): DefinitionWarning[] {
  return Object.entries(definition.states).flatMap(([stateId, state]) =>
    state.transitions.flatMap((transition, index) => {
      const part = transition.actors && refusesEveryone(transition.actors);
      if (!part) return [];
      return [
        {
          path: formatPath(['states', stateId, 'transitions', index, 'actors', part]),
          code: WarningCode.noActorCanTake,
          message: `no actor can take transition "${transition.id}" of state "${stateId}": its actors.${part} is empty, so no role, group or user qualifies`,
        },
      ];
    }),
  );
}
