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
import { indexesSchema } from './search-indexes';
import { flowSchema } from './flow-policies';
import { flowConcurrencyShape } from './flow-concurrency';
import { stateCapacitySchema } from './state-capacity';
import { historyPolicySchema } from './history-policy';
import { humanTaskSchema } from './human-task';

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

export const transitionSchema = z
  .strictObject({
    id: z.string().min(1).max(128),
    displayName: z.string().max(256).optional(),
    targetStateId: stateIdSchema,
    conditions: z.array(stepSchema).default([]),
    actions: z.array(stepSchema).default([]),
    /** Makes this a timer transition: chosen only when its timer fires, never by an ordinary trigger. */
    timer: timerSchema.optional(),
    /** Taken without a trigger, as soon as the state is entered and its conditions hold (never offered as a trigger). */
    automatic: z.boolean().optional(),
    /** An automatic transition taken when no other automatic transition of the state holds (at most one per state; no conditions). */
    otherwise: z.boolean().optional(),
    /** Where to go when one of its conditions or actions (or the target's entry steps) fails: before the state's `onError`. */
    onError: onErrorSchema.optional(),
    /** Who may take it (actors-rule.ts): checked first, before `conditions`. */
    actors: actorsRuleSchema.optional(),
  })
  .superRefine((transition, context) => {
    if (transition.otherwise && !transition.automatic) context.addIssue({ code: 'custom', path: ['otherwise'], message: '`otherwise` needs `"automatic": true`' });
    if (!transition.automatic) return;
    if (transition.timer) context.addIssue({ code: 'custom', path: ['timer'], message: 'an automatic transition has no timer: it is taken as soon as the state is entered' });
    if (transition.otherwise && transition.conditions.length > 0) {
      context.addIssue({ code: 'custom', path: ['conditions'], message: 'an `otherwise` transition has no conditions: it is taken when no other automatic transition holds' });
    }
    transition.conditions.forEach((condition, index) => {
      if (testsTriggerName(condition)) {
        context.addIssue({ code: 'custom', path: ['conditions', index], message: 'an automatic transition is taken without a trigger: it cannot test a trigger name' });
      }
    });
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
  transitions: z
    .array(transitionSchema)
    .default([])
    .superRefine((transitions, context) => {
      const first = transitions.findIndex((transition) => transition.otherwise);
      transitions.forEach((transition, index) => {
        if (transition.otherwise && index > first) {
          context.addIssue({ code: 'custom', path: [index, 'otherwise'], message: `a state has at most one \`otherwise\` transition: transitions[${first}] is one already` });
        }
      });
    }),
  /** Where to go when a step of this state fails (exit steps, transition steps, entry steps), unless the transition's `onError` handles it. */
  onError: onErrorSchema.optional(),
  /** At most `limit` instances per key in this state; triggers into it wait in order (state-capacity.ts). */
  capacity: stateCapacitySchema.optional(),
  /** A human task, open while the instance is in this state (human-task.ts; src/engine/tasks). */
  task: humanTaskSchema.optional(),
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
  /** What instances are searched by besides the built-in fields (definition/search-indexes.ts; at most 16). */
  indexes: indexesSchema.optional(),
  /** Instances' `businessKey` is unique within the workflow: a second one is refused (409 naming the first). */
  uniqueBusinessKey: z.boolean().optional(),
  /** Flow control: a unique key per non-final instance, debounce, rate limits on outbound calls (flow-policies.ts), concurrency per key (flow-concurrency.ts). */
  flow: flowSchema.extend(flowConcurrencyShape).optional(),
  /** What each history entry records, and for how long (history-policy.ts). */
  history: historyPolicySchema.optional(),
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

/**
 * How many automatic transitions one change may take, one after the other; the next one faults the
 * instance, naming the loop (enter-state.ts). A chain is one change: it spends no causal depth or budget.
 */
export const MAX_AUTOMATIC_STEPS = 32;

/** A transition taken without a trigger when its state is entered (workflow-model: automatic transitions). */
export function isAutomaticTransition(transition: TransitionDefinition): boolean {
  return transition.automatic === true;
}

/**
 * Whether a condition, or one nested in it (`all`, `any`, `not`), is a `triggerName`: read from the
 * step as written, since its type's own schema has not parsed it yet.
 */
function testsTriggerName(step: unknown): boolean {
  if (step === null || typeof step !== 'object') return false;
  if (Array.isArray(step)) return step.some(testsTriggerName);
  const { type, condition, conditions } = step as Record<string, unknown>;
  return type === 'triggerName' || testsTriggerName(condition) || testsTriggerName(conditions);
}

/** A transition its timer chooses (never an ordinary trigger). */
export function isTimerTransition(transition: TransitionDefinition): transition is TransitionDefinition & { timer: NonNullable<TransitionDefinition['timer']> } {
  return transition.timer !== undefined;
}
