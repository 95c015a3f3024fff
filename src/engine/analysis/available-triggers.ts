/**
 * @module The triggers an instance can act on now: for its current state, every transition (but the
 * automatic ones, which no trigger takes) with the
 * trigger names it answers, the parameters it tests, its target and its timer. Read from the definition
 * graph; what the conditions say about the context is not evaluated (a dry run does that).
 */
import type { WorkflowDefinition } from '../definition/definition';
import { InstanceStatus } from '../model/enums';
import type { Instance } from '../model/instance';
import { buildDefinitionGraph, type ParameterTest, type TimerSpec } from './definition-graph';
import { sortedNames } from './name-set';

export interface AvailableTrigger {
  readonly transitionId: string;
  /** The names it answers; `["*"]` for any name (minus `exceptTriggerNames`); empty for a timer transition. */
  readonly triggerNames: readonly string[];
  readonly exceptTriggerNames?: readonly string[];
  readonly parameters: readonly Omit<ParameterTest, 'path'>[];
  readonly targetStateId: string;
  /** A timer transition's timer, with its due time when the instance shows it armed. */
  readonly timer?: TimerSpec & { readonly dueAt?: string };
}

export interface AvailableTriggers {
  readonly status: InstanceStatus;
  readonly stateId: string;
  readonly items: readonly AvailableTrigger[];
}

/** The instance's armed timers by transition id (their due times). */
function armedTimers(instance: Pick<Instance, 'timers'>): Map<string, string> {
  return new Map((instance.timers ?? []).map((timer) => [timer.transitionId, timer.dueAt]));
}

/** Only a `waiting` instance takes triggers; any other gets an empty list with its status. */
export function availableTriggers(definition: WorkflowDefinition, instance: Pick<Instance, 'status' | 'stateId' | 'timers'>): AvailableTriggers {
  const base = { status: instance.status, stateId: instance.stateId };
  if (instance.status !== InstanceStatus.waiting) return { ...base, items: [] };
  const armed = armedTimers(instance);
  const items = buildDefinitionGraph(definition)
    .transitionsFrom(instance.stateId)
    // Automatic transitions are taken on entering the state, never offered as triggers.
    .filter((edge) => !edge.automatic)
    .map((edge): AvailableTrigger => {
      const names = sortedNames(edge.triggerNames);
      const parameters = edge.parameters.map(({ path: _path, ...parameter }) => parameter);
      const dueAt = armed.get(edge.id);
      return {
        transitionId: edge.id,
        triggerNames: edge.timer ? [] : edge.triggerNames.kind === 'only' ? names : ['*'],
        ...(!edge.timer && edge.triggerNames.kind === 'allExcept' && names.length ? { exceptTriggerNames: names } : {}),
        parameters,
        targetStateId: edge.targetStateId,
        ...(edge.timer ? { timer: { ...edge.timer, ...(dueAt ? { dueAt } : {}) } } : {}),
      };
    });
  return { ...base, items };
}
