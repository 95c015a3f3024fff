/**
 * @module The typed registry of condition and action types. Definitions hold steps as data
 * (`{ type, id?, ...fields }`); the registry binds each type to its zod schema and its code, as XState's
 * `setup()` binds named guards and actions. Built-ins are always included; code may add more.
 */
import type { z } from 'zod';
import type { Step } from '../definition/definition';
import { builtInActions } from './actions';
import { builtInConditions } from './conditions';
import type { ActionType, ConditionType } from './step-types';

export type { ActionContext, ActionType, ChildStep, ConditionContext, ConditionType, StepContext, TriggerToRaise } from './step-types';
export { defineAction, defineCondition } from './step-types';

export interface Registry {
  condition(type: string): ConditionType<unknown> | undefined;
  action(type: string): ActionType<unknown> | undefined;
  conditionTypes(): string[];
  actionTypes(): string[];
  /** The parsed config of a condition step (parsed once per step object); throws if unknown or invalid. */
  parseCondition(step: Step): { type: ConditionType<unknown>; config: unknown };
  parseAction(step: Step): { type: ActionType<unknown>; config: unknown };
}

export interface RegistryOptions {
  // `any` here lets callers pass conditions with their own config types; each is checked by defineCondition.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  conditions?: readonly ConditionType<any>[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  actions?: readonly ActionType<any>[];
}

/** Builds a registry of the built-ins plus `options`; a repeated type throws a RangeError. */
export function createRegistry(options: RegistryOptions = {}): Registry {
  const conditions = new Map<string, ConditionType<unknown>>();
  const actions = new Map<string, ActionType<unknown>>();
  for (const condition of [...builtInConditions, ...(options.conditions ?? [])]) {
    if (conditions.has(condition.type)) throw new RangeError(`condition type "${condition.type}" is registered twice`);
    conditions.set(condition.type, condition as ConditionType<unknown>);
  }
  for (const action of [...builtInActions, ...(options.actions ?? [])]) {
    if (actions.has(action.type)) throw new RangeError(`action type "${action.type}" is registered twice`);
    actions.set(action.type, action as ActionType<unknown>);
  }
  // Steps are parsed once: definitions are immutable and cached, so the step object identifies the parse.
  const parsedConditions = new WeakMap<Step, { type: ConditionType<unknown>; config: unknown }>();
  const parsedActions = new WeakMap<Step, { type: ActionType<unknown>; config: unknown }>();

  function parse<T extends { schema: z.ZodType }>(kind: string, map: Map<string, T>, cache: WeakMap<Step, { type: T; config: unknown }>, step: Step) {
    const hit = cache.get(step);
    if (hit) return hit;
    const type = map.get(step.type);
    if (!type) throw new Error(`unknown ${kind} type "${step.type}"`);
    const result = type.schema.safeParse(step);
    if (!result.success) throw new Error(`invalid ${kind} "${step.type}": ${result.error.issues.map((issue) => issue.message).join('; ')}`);
    const parsed = { type, config: result.data };
    cache.set(step, parsed);
    return parsed;
  }

  return {
    condition: (type) => conditions.get(type),
    action: (type) => actions.get(type),
    conditionTypes: () => [...conditions.keys()],
    actionTypes: () => [...actions.keys()],
    parseCondition: (step) => parse('condition', conditions, parsedConditions, step),
    parseAction: (step) => parse('action', actions, parsedActions, step),
  };
}

let defaultRegistry: Registry | undefined;
/** The registry of the built-ins alone (created on first use). */
export function builtInRegistry(): Registry {
  return (defaultRegistry ??= createRegistry());
}
