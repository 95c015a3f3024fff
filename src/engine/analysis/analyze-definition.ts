/**
 * @module Warnings about a valid definition: things that are allowed but are probably mistakes. They never
 * block storing a definition. Each is decided on the definition graph alone (no I/O), conservatively:
 * a warning is given only when the definition proves it.
 */
import { MAX_AUTOMATIC_STEPS, type Step, type WorkflowDefinition } from '../definition/definition';
import { formatPath } from '../model/validation';
import { MAX_CAUSAL_DEPTH } from '../model/trigger';
import { MAX_CAUSAL_BUDGET } from '../decide/causal-budget';
import { contextEffectOfAction, contextKeysReadByCondition, contextKeysReadByTemplate } from './context-keys';
import { buildDefinitionGraph, type DefinitionGraph, type TransitionEdge } from './definition-graph';
import { isEmpty, isSubset, sortedNames } from './name-set';
import { refusesEveryone } from '../definition/actors-rule';

export const WarningCode = {
  unreachableState: 'unreachableState',
  noWayToFinish: 'noWayToFinish',
  shadowedTransition: 'shadowedTransition',
  unusedTimer: 'unusedTimer',
  undefinedContextKey: 'undefinedContextKey',
  selfLoopWithoutActions: 'selfLoopWithoutActions',
  startsItself: 'startsItself',
  timerLoop: 'timerLoop',
  /** A transition whose `actors` rule lists no role, group or user: nobody can take it. */
  noActorCanTake: 'noActorCanTake',
  /** Automatic transitions that lead back to their own state through automatic transitions. */
  automaticLoop: 'automaticLoop',
  /** A state its automatic transitions always leave, which has transitions or interests only a waiting instance uses. */
  nothingWaits: 'nothingWaits',
  /** A URL the host's outbound client refuses (outbound-hosts.ts): decided with the host's configuration. */
  hostNotAllowed: 'hostNotAllowed',
  /** A sensitive index on a host without an index key (index-key.ts): decided with the host's configuration. */
  sensitiveIndexUnkeyed: 'sensitiveIndexUnkeyed',
} as const;
export type WarningCode = (typeof WarningCode)[keyof typeof WarningCode];

export interface DefinitionWarning {
  /** JSON path in the definition, as validation errors use. */
  readonly path: string;
  readonly code: WarningCode;
  readonly message: string;
}

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

function pathOf(edge: TransitionEdge): (string | number)[] {
  return ['states', edge.stateId, 'transitions', edge.index];
}

// ---- undefinedContextKey --------------------------------------------------------------------------

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

function undefinedContextKeys(graph: DefinitionGraph): DefinitionWarning[] {
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

// ---- loops of follow-up work ---------------------------------------------------------------------

/**
 * `startsItself`: a `startInstance` of the workflow's own id. From the initial state's entry actions every
 * creation starts another (the causal depth limit faults the last of a chain); elsewhere it recurses when
 * the new instance gets there too.
 */
function selfStarts(graph: DefinitionGraph): DefinitionWarning[] {
  const { definition } = graph;
  const warnings: DefinitionWarning[] = [];
  const check = (actions: readonly Step[], path: (string | number)[], atCreation: boolean) => {
    actions.forEach((action, index) => {
      if (action.type !== 'startInstance' || (action as { workflowId?: unknown }).workflowId !== definition.id) return;
      const message = atCreation
        ? `starts an instance of this workflow ("${definition.id}") on entering the initial state, so every instance starts another: a chain (a tree, if it starts more than one) that only the causal depth limit (${MAX_CAUSAL_DEPTH}) and budget (${MAX_CAUSAL_BUDGET}) end, faulting its last instances`
        : `starts an instance of this workflow ("${definition.id}"): when that instance gets here too, it starts another, a chain that only the causal depth limit (${MAX_CAUSAL_DEPTH}) and budget (${MAX_CAUSAL_BUDGET}) end`;
      warnings.push({ path: formatPath([...path, index]), code: WarningCode.startsItself, message });
    });
  };
  for (const [stateId, state] of Object.entries(definition.states)) {
    check(state.entryActions, ['states', stateId, 'entryActions'], stateId === definition.initialStateId);
    check(state.exitActions, ['states', stateId, 'exitActions'], false);
    state.transitions.forEach((transition, index) => check(transition.actions, ['states', stateId, 'transitions', index, 'actions'], false));
  }
  return warnings;
}

/** Whether an `after` duration (already valid) is zero: every number in it is 0 (PT0S, P0D, PT0.0S). */
function isZeroDuration(after: string): boolean {
  const numbers = after.match(/\d+(?:[.,]\d+)?/g) ?? [];
  return numbers.every((number) => Number(number.replace(',', '.')) === 0);
}

/** Whether an `at` is a constant instant (a string literal) or the moment of entry itself (`$now()`): due at once, now or once it has passed. */
function isConstantOrNow(at: string): boolean {
  return /^\s*(?:"[^"]*"|'[^']*')\s*$/.test(at) || /^\s*\$now\(\s*\)\s*$/.test(at);
}

/**
 * `timerLoop`: a timer transition that fires at once (a zero `after`, a constant or `$now()` `at`) and,
 * through such timers only, leads back to its own state, with nothing that could stop it (no conditions
 * on the transitions, no exit or entry conditions on the way). Each turn is one step deeper, so the
 * causal depth limit faults the instance after a few dozen turns.
 */
function timerLoops(graph: DefinitionGraph): DefinitionWarning[] {
  const { definition } = graph;
  const atOnce = graph.transitions.filter((edge) => {
    const timer = edge.timer;
    if (!timer || edge.definition.conditions.length > 0) return false;
    if (definition.states[edge.stateId]!.exitConditions.length > 0 || (definition.states[edge.targetStateId]?.entryConditions.length ?? 1) > 0) return false;
    return timer.at !== undefined ? isConstantOrNow(timer.at) : timer.after !== undefined && isZeroDuration(timer.after);
  });
  const leadsBack = (from: string, to: string): boolean => {
    const seen = new Set<string>([from]);
    const queue = [from];
    while (queue.length) {
      const stateId = queue.shift()!;
      if (stateId === to) return true;
      for (const edge of atOnce) {
        if (edge.stateId === stateId && !seen.has(edge.targetStateId)) {
          seen.add(edge.targetStateId);
          queue.push(edge.targetStateId);
        }
      }
    }
    return false;
  };
  return atOnce
    .filter((edge) => leadsBack(edge.targetStateId, edge.stateId))
    .map((edge) => {
      const due = edge.timer!.at !== undefined ? `"at": ${edge.timer!.at}` : `"after": "${edge.timer!.after}"`;
      const back = edge.targetStateId === edge.stateId ? `re-enters its own state "${edge.stateId}"` : `leads back to state "${edge.stateId}" through timers due at once`;
      return {
        path: formatPath([...pathOf(edge), 'timer']),
        code: WarningCode.timerLoop,
        message: `the timer of transition "${edge.id}" (${due}) is due at once and ${back}, so it fires again at once on every entry: a loop that only the causal depth limit (${MAX_CAUSAL_DEPTH}) ends, faulting the instance`,
      };
    });
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

/**
 * `automaticLoop`: an automatic transition from which automatic transitions lead back to its own state.
 * Its conditions may stop it; if they do not, the chain runs in one change until the limit of
 * ${MAX_AUTOMATIC_STEPS} steps faults the instance.
 */
function automaticLoops(graph: DefinitionGraph): DefinitionWarning[] {
  const automatic = graph.transitions.filter((edge) => edge.automatic);
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>([from]);
    const queue = [from];
    while (queue.length) {
      const stateId = queue.shift()!;
      if (stateId === to) return true;
      for (const edge of automatic) {
        if (edge.stateId === stateId && !seen.has(edge.targetStateId)) {
          seen.add(edge.targetStateId);
          queue.push(edge.targetStateId);
        }
      }
    }
    return false;
  };
  return automatic
    .filter((edge) => reaches(edge.targetStateId, edge.stateId))
    .map((edge) => ({
      path: edge.path,
      code: WarningCode.automaticLoop,
      message: `transition "${edge.id}" is automatic and ${edge.targetStateId === edge.stateId ? `re-enters its own state "${edge.stateId}"` : `leads back to state "${edge.stateId}" through automatic transitions`}: unless a condition on the way stops it, the chain runs until the limit of ${MAX_AUTOMATIC_STEPS} steps in one change faults the instance`,
    }));
}

/**
 * `nothingWaits`: a state that its automatic transitions always leave (no exit conditions, an `otherwise`
 * or an automatic transition without conditions, and no entry conditions at any automatic target), yet
 * which has what only a waiting instance uses: triggered or timer transitions, or declared interests.
 */
function nothingWaits(graph: DefinitionGraph): DefinitionWarning[] {
  const warnings: DefinitionWarning[] = [];
  for (const state of graph.states) {
    const definition = graph.definition.states[state.id]!;
    const edges = graph.transitionsFrom(state.id);
    const automatic = edges.filter((edge) => edge.automatic);
    const always = automatic.find((edge) => edge.automatic === 'otherwise' || edge.definition.conditions.length === 0);
    if (!always || definition.exitConditions.length > 0) continue;
    if (automatic.some((edge) => (graph.definition.states[edge.targetStateId]?.entryConditions.length ?? 0) > 0)) continue;
    const waiting = edges.filter((edge) => !edge.automatic).map((edge) => `"${edge.id}"`);
    if (waiting.length === 0 && definition.interests.length === 0) continue;
    const unused = waiting.length ? `its transitions ${waiting.join(', ')} are never taken` : 'its interests are never used';
    warnings.push({
      path: state.path,
      code: WarningCode.nothingWaits,
      message: `state "${state.id}" is always left at once by its automatic transition "${always.id}" (${always.automatic === 'otherwise' ? 'an `otherwise`' : 'no conditions'}): nothing can wait there, so ${unused}`,
    });
  }
  return warnings;
}
