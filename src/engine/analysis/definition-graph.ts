/**
 * @module A graph of a workflow definition: its states, its transitions as edges, and what each
 * transition answers (trigger names, the parameters it tests, its timer). Pure and synchronous, with no
 * registry and no I/O, so the analysis, the diagrams, the available triggers, the CLI and the console
 * all read one description of a definition, offline or in the server.
 */
import { isFinalState, type Step, type TransitionDefinition, type WorkflowDefinition } from '../definition/definition';
import type { JsonValue } from '../model/json';
import { formatPath } from '../model/validation';
import { complement, everyName, intersection, noNames, onlyNames, union, type NameSet } from './name-set';

/** A transition's timer (`transition.timer`), as the definition states it. */
export interface TimerSpec {
  readonly after?: string;
  readonly at?: string;
  readonly calendar?: string;
}

/** The timer of a transition (`transition.timer`), as the analysis and the diagram show it. */
export function transitionTimer(transition: TransitionDefinition): TimerSpec | undefined {
  const timer = transition.timer;
  if (!timer) return undefined;
  return {
    ...(timer.after !== undefined ? { after: timer.after } : {}),
    ...(timer.at !== undefined ? { at: timer.at } : {}),
    ...(timer.calendar !== undefined ? { calendar: timer.calendar } : {}),
  };
}

/** A `triggerParameter` condition of a transition, with how it counts. */
export interface ParameterTest {
  readonly name: string;
  readonly test: 'equals' | 'notEquals' | 'exists' | 'notExists';
  readonly value?: JsonValue;
  /** Under an odd number of `not`s: the trigger must make this test false. */
  readonly negated?: true;
  /** Inside an `any`: one alternative among others, not required on its own. */
  readonly alternative?: true;
  /** Its JSON path in the definition. */
  readonly path: string;
}

export interface StateNode {
  readonly id: string;
  readonly displayName: string;
  readonly initial: boolean;
  /** No transitions: entering it completes the instance. */
  readonly final: boolean;
  readonly path: string;
}

export interface TransitionEdge {
  readonly stateId: string;
  /** Its position among the state's transitions (the order they are tried in). */
  readonly index: number;
  readonly id: string;
  readonly displayName?: string;
  readonly targetStateId: string;
  readonly path: string;
  readonly timer?: TimerSpec;
  /** An automatic transition (taken without a trigger on entering the state; `otherwise`: when no other automatic one holds). */
  readonly automatic?: 'conditional' | 'otherwise';
  /** The trigger names for which its conditions may hold (`allExcept` with no names: any trigger; none for an automatic transition). */
  readonly triggerNames: NameSet;
  /** The trigger names for which its conditions hold whatever else the trigger or context holds. */
  readonly alwaysMatchedNames: NameSet;
  readonly parameters: readonly ParameterTest[];
  readonly definition: TransitionDefinition;
}

export interface DefinitionGraph {
  readonly definition: WorkflowDefinition;
  readonly initialStateId: string;
  readonly states: readonly StateNode[];
  readonly transitions: readonly TransitionEdge[];
  state(stateId: string): StateNode | undefined;
  /** A state's transitions in the order they are tried. */
  transitionsFrom(stateId: string): readonly TransitionEdge[];
  /** States some path of transitions leads to from the initial state (the initial one included). */
  readonly reachableStateIds: ReadonlySet<string>;
  /** States from which some path of transitions leads to a final state (the final ones included). */
  readonly finishingStateIds: ReadonlySet<string>;
}

interface NameAnalysis {
  /** Names for which the condition may hold. */
  readonly may: NameSet;
  /** Names for which it holds regardless of anything but the name. */
  readonly must: NameSet;
}

function stringField(step: Step, field: string): string | undefined {
  const value = (step as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}

function stepList(step: Step, field: string): Step[] {
  const value = (step as Record<string, unknown>)[field];
  return Array.isArray(value) ? (value as Step[]) : [];
}

function childStep(step: Step): Step | undefined {
  const value = (step as Record<string, unknown>).condition;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Step) : undefined;
}

/**
 * What a condition says about the trigger's name. Built-in types only: `triggerName` decides on the name
 * alone; `all`, `any` and `not` combine; anything else (expressions, external services, custom types)
 * may hold for any name and holds for none for certain.
 */
export function analyzeTriggerNames(conditions: readonly Step[]): NameAnalysis {
  let may = everyName;
  let must = everyName;
  for (const condition of conditions) {
    const one = conditionNames(condition);
    may = intersection(may, one.may);
    must = intersection(must, one.must);
  }
  return { may, must };
}

function conditionNames(step: Step): NameAnalysis {
  switch (step.type) {
    case 'triggerName': {
      const name = stringField(step, 'name');
      return name === undefined ? { may: everyName, must: noNames } : { may: onlyNames(name), must: onlyNames(name) };
    }
    case 'all':
      return analyzeTriggerNames(stepList(step, 'conditions'));
    case 'any':
      return stepList(step, 'conditions')
        .map(conditionNames)
        .reduce((a, b) => ({ may: union(a.may, b.may), must: union(a.must, b.must) }), { may: noNames, must: noNames });
    case 'not': {
      const inner = childStep(step);
      if (!inner) return { may: everyName, must: noNames };
      const names = conditionNames(inner);
      return { may: complement(names.must), must: complement(names.may) };
    }
    default:
      return { may: everyName, must: noNames };
  }
}

function collectParameters(steps: readonly Step[], path: (string | number)[], flags: { negated: boolean; alternative: boolean }, into: ParameterTest[]): void {
  steps.forEach((step, index) => {
    const here = [...path, index];
    switch (step.type) {
      case 'triggerParameter': {
        const name = stringField(step, 'parameter');
        const test = stringField(step, 'test') as ParameterTest['test'] | undefined;
        if (name === undefined || test === undefined) return;
        const value = (step as Record<string, unknown>).value as JsonValue | undefined;
        into.push({
          name,
          test,
          ...(value !== undefined ? { value } : {}),
          ...(flags.negated ? { negated: true as const } : {}),
          ...(flags.alternative ? { alternative: true as const } : {}),
          path: formatPath(here),
        });
        return;
      }
      // Under an odd number of `not`s, `all` means "one of these fails" and `any` means "all of these fail".
      case 'all':
      case 'any': {
        const children = stepList(step, 'conditions');
        const alternatives = children.length > 1 && (step.type === 'any') !== flags.negated;
        collectParameters(children, [...here, 'conditions'], { ...flags, alternative: flags.alternative || alternatives }, into);
        return;
      }
      case 'not': {
        const inner = childStep(step);
        if (inner) collectParameters([inner], [...here, 'condition'], { ...flags, negated: !flags.negated }, into);
        return;
      }
      default:
        return;
    }
  });
}

// Graphs are built once per definition object (definitions are immutable once validated).
const graphs = new WeakMap<WorkflowDefinition, DefinitionGraph>();

export function buildDefinitionGraph(definition: WorkflowDefinition): DefinitionGraph {
  const cached = graphs.get(definition);
  if (cached) return cached;
  const states: StateNode[] = [];
  const transitions: TransitionEdge[] = [];
  const outgoing = new Map<string, TransitionEdge[]>();
  for (const [stateId, state] of Object.entries(definition.states)) {
    states.push({ id: stateId, displayName: state.displayName ?? stateId, initial: stateId === definition.initialStateId, final: isFinalState(state), path: formatPath(['states', stateId]) });
    const edges: TransitionEdge[] = state.transitions.map((transition, index) => {
      const path = ['states', stateId, 'transitions', index];
      // An automatic transition is never chosen by a trigger: it answers no name.
      const names = transition.automatic ? { may: noNames, must: noNames } : analyzeTriggerNames(transition.conditions);
      const parameters: ParameterTest[] = [];
      collectParameters(transition.conditions, [...path, 'conditions'], { negated: false, alternative: false }, parameters);
      const timer = transitionTimer(transition);
      return {
        stateId,
        index,
        id: transition.id,
        ...(transition.displayName ? { displayName: transition.displayName } : {}),
        targetStateId: transition.targetStateId,
        path: formatPath(path),
        ...(timer ? { timer } : {}),
        ...(transition.automatic ? { automatic: transition.otherwise ? ('otherwise' as const) : ('conditional' as const) } : {}),
        triggerNames: names.may,
        alwaysMatchedNames: names.must,
        parameters,
        definition: transition,
      };
    });
    outgoing.set(stateId, edges);
    transitions.push(...edges);
  }
  // Where an `onError` may lead (a state's, or one of its transitions'): reachable, though by no trigger.
  const errorTargets = new Map<string, string[]>();
  for (const [stateId, state] of Object.entries(definition.states)) {
    const targets = [state.onError?.targetStateId, ...state.transitions.map((transition) => transition.onError?.targetStateId)].filter((target): target is string => target !== undefined);
    errorTargets.set(stateId, targets);
  }
  const graph: DefinitionGraph = {
    definition,
    initialStateId: definition.initialStateId,
    states,
    transitions,
    state: (stateId) => states.find((state) => state.id === stateId),
    transitionsFrom: (stateId) => outgoing.get(stateId) ?? [],
    reachableStateIds: closure([definition.initialStateId], (stateId) => [...(outgoing.get(stateId) ?? []).map((edge) => edge.targetStateId), ...(errorTargets.get(stateId) ?? [])]),
    finishingStateIds: closure(
      states.filter((state) => state.final).map((state) => state.id),
      (stateId) => [
        ...transitions.filter((edge) => edge.targetStateId === stateId).map((edge) => edge.stateId),
        ...[...errorTargets].filter(([, targets]) => targets.includes(stateId)).map(([source]) => source),
      ],
    ),
  };
  graphs.set(definition, graph);
  return graph;
}

function closure(start: readonly string[], next: (id: string) => readonly string[]): Set<string> {
  const seen = new Set<string>(start);
  const queue = [...start];
  while (queue.length) {
    for (const id of next(queue.shift()!)) {
      if (seen.has(id)) continue;
      seen.add(id);
      queue.push(id);
    }
  }
  return seen;
}
