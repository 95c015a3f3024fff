/**
 * @module A state's human `task` (issue 39): what a person is asked to decide while the instance waits in
 * the state. Created when the instance enters the state and closed when it leaves it (src/engine/tasks);
 * this is its schema. `title` and `description` are `{{...}}` templates over the instance; `assignees` and
 * `candidates` name users, groups and app roles (or a JSONata expression yielding them); `outcomes` are
 * the trigger names that complete it, each with an optional JSON Schema of its parameters (the form,
 * checked with zod's `fromJSONSchema`: one validator for the whole project); `due` is when it is due;
 * `escalation` a ladder of steps at durations after it was created; `quorum` how many decisions one
 * outcome needs; `fourEyes` who must not decide.
 */
import { z } from 'zod';
import { compileExpression, parseTemplate } from '../expressions/expressions';
import { parseIsoDuration, timerSchema } from '../timers/timer-definition';

const principals = z.array(z.string().min(1).max(256)).max(100);

export const taskAssigneesSchema = z
  .strictObject({
    users: principals.optional().meta({ description: "User ids (the token's `oid`, else `sub`)." }),
    groups: principals.optional().meta({ description: 'Group object ids (the token `groups` claim).' }),
    roles: principals.optional().meta({ description: 'App roles (the token `roles` claim).' }),
    expression: z.string().min(1).max(4096).optional().meta({
      description:
        'JSONata over `context` and `instance` yielding more of them: `"user:<id>"`, `"group:<id>"`, `"role:<name>"` (a bare text is a user id), a list of those, or `{ users, groups, roles }`.',
    }),
  })
  .superRefine((assignees, context) => {
    if (!assignees.users?.length && !assignees.groups?.length && !assignees.roles?.length && assignees.expression === undefined) {
      context.addIssue({ code: 'custom', message: 'name at least one user, group, role or an expression' });
    }
    checkExpression(assignees.expression, ['expression'], context);
  });
export type TaskAssigneesDefinition = z.infer<typeof taskAssigneesSchema>;

export const taskOutcomeSchema = z.strictObject({
  /** The trigger name sent to the instance when this outcome is decided (a transition of the state tests it). */
  name: z.string().min(1).max(128),
  displayName: z.string().max(256).optional(),
  /** A JSON Schema (draft 2020-12 subset zod reads) of the outcome's parameters: the form a person fills in. */
  parameters: z
    .record(z.string(), z.unknown())
    .optional()
    .superRefine((schema, context) => {
      if (schema === undefined) return;
      const problem = jsonSchemaProblem(schema);
      if (problem) context.addIssue({ code: 'custom', message: `not a JSON Schema the engine can check: ${problem}` });
    })
    .meta({ description: 'JSON Schema of the parameters (the form); parameters that do not match it are refused (400 naming the field).' }),
});
export type TaskOutcomeDefinition = z.infer<typeof taskOutcomeSchema>;

export const TaskEscalationAction = { remind: 'remind', reassign: 'reassign', escalate: 'escalate', decide: 'decide' } as const;
export type TaskEscalationAction = (typeof TaskEscalationAction)[keyof typeof TaskEscalationAction];

export const taskEscalationStepSchema = z
  .strictObject({
    /** ISO 8601 duration after the task was created (working time when a calendar applies). */
    after: z.string().min(1).max(64),
    /** A calendar of the workflow's `calendars`; default: the task's `calendar`. */
    calendar: z.string().min(1).max(128).optional(),
    action: z.enum(Object.values(TaskEscalationAction) as [TaskEscalationAction, ...TaskEscalationAction[]]),
    /** `reassign`: the assignees that replace the task's; `escalate`: the assignees added to them. */
    assignees: taskAssigneesSchema.optional(),
    /** `decide`: the outcome the system decides. */
    outcome: z.string().min(1).max(128).optional(),
  })
  .superRefine((step, context) => {
    const duration = parseIsoDuration(step.after);
    if (typeof duration === 'string') context.addIssue({ code: 'custom', path: ['after'], message: duration });
    const needsAssignees = step.action === TaskEscalationAction.reassign || step.action === TaskEscalationAction.escalate;
    if (needsAssignees && !step.assignees)
      context.addIssue({ code: 'custom', path: ['assignees'], message: `a "${step.action}" step names the assignees it ${step.action === 'reassign' ? 'hands the task to' : 'adds'}` });
    if (!needsAssignees && step.assignees) context.addIssue({ code: 'custom', path: ['assignees'], message: `a "${step.action}" step names no assignees` });
    if (step.action === TaskEscalationAction.decide && step.outcome === undefined) context.addIssue({ code: 'custom', path: ['outcome'], message: 'a "decide" step names the outcome it decides' });
    if (step.action !== TaskEscalationAction.decide && step.outcome !== undefined) context.addIssue({ code: 'custom', path: ['outcome'], message: `only a "decide" step names an outcome` });
  });
export type TaskEscalationStep = z.infer<typeof taskEscalationStepSchema>;

export const taskQuorumSchema = z.union([z.enum(['any', 'all', 'majority']), z.strictObject({ count: z.number().int().min(1).max(100) })]).meta({
  description: '`any` (default): the first decision; `all`: every user assignee the same outcome; `majority`: more than half of the user assignees; `{ count }`: that many decisions of one outcome.',
});
export type TaskQuorum = z.infer<typeof taskQuorumSchema>;

export const MAX_TASK_ESCALATION_STEPS = 10;

export const humanTaskSchema = z
  .strictObject({
    title: z.string().min(1).max(512).meta({ description: 'A `{{...}}` template over the instance, e.g. `Approve the claim of {{context.claimantName}}`.' }),
    description: z.string().max(8192).optional(),
    assignees: taskAssigneesSchema,
    /** Who else may claim it (it is not in their inbox until they look for claimable tasks). */
    candidates: taskAssigneesSchema.optional(),
    outcomes: z.array(taskOutcomeSchema).min(1).max(20),
    /** When it is due: `after` (ISO 8601 duration, working time with `calendar`) or `at` (JSONata giving an instant). */
    due: timerSchema.optional(),
    /** The calendar `due.after` and the escalation steps count working time in, unless they name their own. */
    calendar: z.string().min(1).max(128).optional(),
    escalation: z.array(taskEscalationStepSchema).max(MAX_TASK_ESCALATION_STEPS).optional(),
    quorum: taskQuorumSchema.optional(),
    /** The outcome decided when no outcome can reach the quorum any more (with `all`, `majority` or `count`). */
    unreachableOutcome: z.string().min(1).max(128).optional(),
    /** JSONata over `context`, `instance`, `task` and `actor` yielding who must not decide (an id or a list of ids), e.g. `context.claimantId`. */
    fourEyes: z.string().min(1).max(4096).optional(),
  })
  .superRefine((task, context) => {
    try {
      parseTemplate(task.title);
      if (task.description !== undefined) parseTemplate(task.description);
    } catch (error) {
      context.addIssue({ code: 'custom', path: ['title'], message: (error as Error).message });
    }
    checkExpression(task.fourEyes, ['fourEyes'], context);
    const names = new Map<string, number>();
    task.outcomes.forEach((outcome, index) => {
      const first = names.get(outcome.name);
      if (first !== undefined) context.addIssue({ code: 'custom', path: ['outcomes', index, 'name'], message: `outcome "${outcome.name}" repeats outcomes[${first}]` });
      else names.set(outcome.name, index);
    });
    const known = (name: string, path: (string | number)[]) => {
      if (!names.has(name)) context.addIssue({ code: 'custom', path, message: `"${name}" is not one of the task's outcomes (${[...names.keys()].join(', ')})` });
    };
    if (task.unreachableOutcome !== undefined) known(task.unreachableOutcome, ['unreachableOutcome']);
    if (task.unreachableOutcome !== undefined && (task.quorum ?? 'any') === 'any') {
      context.addIssue({ code: 'custom', path: ['unreachableOutcome'], message: 'with quorum "any" the first decision completes the task: no outcome can become unreachable' });
    }
    task.escalation?.forEach((step, index) => {
      if (step.outcome !== undefined) known(step.outcome, ['escalation', index, 'outcome']);
    });
  });
export type HumanTaskDefinition = z.infer<typeof humanTaskSchema>;

function checkExpression(expression: string | undefined, path: (string | number)[], context: z.RefinementCtx): void {
  if (expression === undefined) return;
  try {
    compileExpression(expression);
  } catch (error) {
    context.addIssue({ code: 'custom', path, message: (error as Error).message });
  }
}

/** Why `schema` cannot be used to check parameters (undefined: it can). */
export function jsonSchemaProblem(schema: Record<string, unknown>): string | undefined {
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const compiledSchemas = new WeakMap<object, z.ZodType>();

/** The zod schema of an outcome's parameters (compiled once per definition object). */
export function outcomeParametersSchema(outcome: TaskOutcomeDefinition): z.ZodType | undefined {
  if (!outcome.parameters) return undefined;
  let compiled = compiledSchemas.get(outcome.parameters);
  if (!compiled) {
    compiled = z.fromJSONSchema(outcome.parameters as Parameters<typeof z.fromJSONSchema>[0]);
    compiledSchemas.set(outcome.parameters, compiled);
  }
  return compiled;
}
