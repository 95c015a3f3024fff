/**
 * @module The workflow definition format (shared/design/workflow-model.md). This is the structural
 * schema: conditions and actions are `{ type, id?, ...fields }` objects whose fields are checked by the
 * schema of their registered type in `validateDefinition` (definition-validation.ts), so custom types
 * registered in code are first-class.
 */
import { z } from 'zod';
import { subscriptionsSchema } from './subscriptions';
import { calendarsSchema, timerSchema } from '../timers/timer-definition';
import { onErrorSchema, retryPolicySchema } from './error-handling';
import { actorsRuleSchema } from './actors-rule';

export const workflowIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._-]+$/, 'must be 1-128 characters of A-Z a-z 0-9 . _ -');

export const stateIdSchema = z.string().min(1).max(128);

/** A condition or action before its type's own schema has checked it. */
export const stepSchema = z.looseObject({ type: z.string().min(1), id: z.string().min(1).max(128).optional() });
export type Step = z.infer<typeof stepSchema>;
export type ConditionConfig = Step;
export type ActionConfig = Step;

export const transitionSchema = z.strictObject({
  id: z.string().min(1).max(128),
  displayName: z.string().max(256).optional(),
  targetStateId: stateIdSchema,
  conditions: z.array(stepSchema).default([]),
  actions: z.array(stepSchema).default([]),
  /** Makes this a timer transition: chosen only when its timer fires, never by an ordinary trigger. */
  timer: timerSchema.optional(),
  /** Where to go when one of its conditions or actions (or the target's entry steps) fails: before the state's `onError`. */
  onError: onErrorSchema.optional(),
  /** Who may take it (actors-rule.ts): checked first, before `conditions`. */
  actors: actorsRuleSchema.optional(),
});
export type TransitionDefinition = z.infer<typeof transitionSchema>;

export const stateSchema = z.strictObject({
  displayName: z.string().max(256).optional(),
  description: z.string().max(4096).optional(),
  /** Subjects this state is interested in; `{{...}}` templates are filled from the instance. */
  interests: z.array(z.string().min(1).max(1024)).default([]),
  entryConditions: z.array(stepSchema).default([]),
  entryActions: z.array(stepSchema).default([]),
  exitConditions: z.array(stepSchema).default([]),
  exitActions: z.array(stepSchema).default([]),
  transitions: z.array(transitionSchema).default([]),
  /** Where to go when a step of this state fails (exit steps, transition steps, entry steps), unless the transition's `onError` handles it. */
  onError: onErrorSchema.optional(),
});
export type StateDefinition = z.infer<typeof stateSchema>;

export const workflowDefinitionSchema = z.strictObject({
  /** Optional: where present, JSON Schema `$schema` pointer for editors. */
  $schema: z.string().optional(),
  id: workflowIdSchema,
  displayName: z.string().min(1).max(256),
  description: z.string().max(4096).optional(),
  initialStateId: stateIdSchema,
  states: z
    .record(stateIdSchema, stateSchema)
    .refine((states) => Object.keys(states).length > 0, 'a workflow needs at least one state')
    .meta({ minProperties: 1 }), // the refinement, for JSON Schema readers
  /** Who hears the instances' lifecycle events (at most 10). */
  subscriptions: subscriptionsSchema.optional(),
  /** Business calendars timers may count working time in (`timer.calendar`). */
  calendars: calendarsSchema.optional(),
  /** The retry policy of every `invokeExternalService` step without its own (error-handling.ts). */
  retry: retryPolicySchema.optional(),
});
export type WorkflowDefinition = z.infer<typeof workflowDefinitionSchema>;
/** What a user writes: defaults (empty lists) may be left out. */
export type WorkflowDefinitionInput = z.input<typeof workflowDefinitionSchema>;

/** A stored version of a definition. Versions are immutable once written. */
export interface WorkflowVersion {
  readonly definition: WorkflowDefinition;
  /** 1, 2, 3, ... */
  readonly version: number;
  readonly createdAt: string;
  /** Opaque; changes with every new version. */
  readonly etag: string;
}

export function isFinalState(state: StateDefinition): boolean {
  return state.transitions.length === 0;
}

/** A transition its timer chooses (never an ordinary trigger). */
export function isTimerTransition(transition: TransitionDefinition): transition is TransitionDefinition & { timer: NonNullable<TransitionDefinition['timer']> } {
  return transition.timer !== undefined;
}
