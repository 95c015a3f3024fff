/**
 * @module Warnings about loops of follow-up work: an instance that starts itself, timers due at once that
 * lead back to their state, automatic transitions that lead back, and states their automatic transitions
 * always leave (analyze-definition.ts gathers every warning).
 */
import { MAX_AUTOMATIC_STEPS, type Step } from '../definition/definition';
import { formatPath } from '../model/validation';
import { MAX_CAUSAL_DEPTH } from '../model/trigger';
import { MAX_CAUSAL_BUDGET } from '../decide/causal-budget';
import type { DefinitionGraph } from './definition-graph';
import { WarningCode, pathOf, type DefinitionWarning } from './warnings';

/**
 * `startsItself`: a `startInstance` of the workflow's own id. From the initial state's entry actions every
 * creation starts another (the causal depth limit faults the last of a chain); elsewhere it recurses when
 * the new instance gets there too.
 */
export function selfStarts(graph: DefinitionGraph): DefinitionWarning[] {
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
export function timerLoops(graph: DefinitionGraph): DefinitionWarning[] {
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

/**
 * `automaticLoop`: an automatic transition from which automatic transitions lead back to its own state.
 * Its conditions may stop it; if they do not, the chain runs in one change until the limit of
 * ${MAX_AUTOMATIC_STEPS} steps faults the instance.
 */
export function automaticLoops(graph: DefinitionGraph): DefinitionWarning[] {
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
export function nothingWaits(graph: DefinitionGraph): DefinitionWarning[] {
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
