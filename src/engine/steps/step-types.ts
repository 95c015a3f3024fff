/**
 * @module The contract of a condition or action type: its zod schema and its code. Kept apart from
 * registry.ts so built-ins can import it without a cycle.
 */
import type { z } from 'zod';
import type { Step, WorkflowDefinition } from '../definition/definition';
import type { Effects } from './effects';
import type { ExpressionScope } from '../expressions/expressions';
import type { JsonObject, JsonValue } from '../model/json';
import type { ExternalRequest, StepRetry } from './outbound-port';

/** A nested step (inside `all`, `any`, `not`), with its path relative to the parent step. */
export interface ChildStep {
  readonly step: Step;
  readonly path: readonly (string | number)[];
}

export interface StepContext {
  /** The scope expressions see, reflecting the context as it stands now. */
  readonly scope: ExpressionScope;
  /** For an action, `effects.http` is the journaled client of that step (effects.ts, `actionHttp`). */
  readonly effects: Effects;
  readonly definition: WorkflowDefinition;
  readonly workflowVersion: number;
  /**
   * The step being run: its JSON path in the definition, the attempt its retry policy starts at (more
   * than 1 when a pending retry re-applied the trigger), and where waits in place are reported.
   * Absent when a step runs outside a decision (a library's own use).
   */
  readonly step?: StepOfContext;
}

export interface StepOfContext {
  readonly path: string;
  readonly firstAttempt: number;
  readonly onRetry?: NonNullable<StepRetry['onRetry']>;
  /** Told of each wait for a rate limit's slot (definition/flow-policies.ts). */
  readonly onThrottled?: NonNullable<ExternalRequest['onThrottled']>;
}

export interface ConditionContext extends StepContext {
  /** Evaluates a nested condition (composites). */
  evaluate(condition: Step): Promise<boolean>;
  /** Adds a short detail to this condition's trace entry (the expression's value, the service's answer). */
  note?(detail: string): void;
}

/** A trigger an action raises; its id is assigned by the processor (deterministically). */
export interface TriggerToRaise {
  readonly name: string;
  readonly subjects: readonly string[];
  readonly contentType?: string;
  readonly parameters?: JsonObject;
}

/** A child instance an action starts (`startInstance`); created after the save, from the outbox. */
export interface InstanceToStart {
  readonly workflowId: string;
  /** Absent: derived from the parent, the cause and the action (enter-state.ts). */
  readonly instanceId?: string;
  readonly context: JsonObject;
  readonly returnContextItems?: readonly string[];
}

export interface ActionContext extends StepContext {
  /** Sets (`undefined` removes) keys of the context, then removes `remove`. */
  updateContext(set: Readonly<Record<string, JsonValue | undefined>>, remove?: readonly string[]): void;
  /** Adds a trigger to the change's outbox (delivered after the save). */
  raiseTrigger(trigger: TriggerToRaise): void;
  /** Adds a child instance to start to the change's outbox. */
  startInstance(child: InstanceToStart): void;
  /** Adds a log line to the decision: emitted once, after the change is saved. */
  log(level: 'info' | 'warn' | 'error', message: string, properties?: Readonly<Record<string, unknown>>): void;
}

export interface ConditionType<C = unknown> {
  readonly type: string;
  /** Validates the whole step object (`type`, `id` and the type's fields). */
  readonly schema: z.ZodType<C>;
  evaluate(config: C, context: ConditionContext): boolean | Promise<boolean>;
  /** Interest templates this condition adds to its state (children are added through `children`). */
  interests?(config: C): readonly string[];
  /** Nested conditions, validated and asked for interests recursively. */
  children?(config: C): readonly ChildStep[];
}

export interface ActionType<C = unknown> {
  readonly type: string;
  readonly schema: z.ZodType<C>;
  execute(config: C, context: ActionContext): void | Promise<void>;
}

/** Typed helpers: the config type is inferred from the schema. */
export function defineCondition<S extends z.ZodType>(condition: ConditionType<z.output<S>> & { schema: S }): ConditionType<z.output<S>> {
  return condition;
}
export function defineAction<S extends z.ZodType>(action: ActionType<z.output<S>> & { schema: S }): ActionType<z.output<S>> {
  return action;
}
