/**
 * @module The commands on a human task, decided (claim, release, delegate, complete) like any other
 * decision: they write nothing, they return the change the run loop saves under the instance's lease and
 * ETag, one history entry (event `task`) each. Two people claiming at once: the lease orders them and the
 * second meets the first's claim (ConflictError, 409). Completing records the decision and, once one
 * outcome reaches the quorum (quorum.ts), resolves the task: its outcome trigger is an outbox row of the
 * same save, sent to the instance as the deciding person through the normal path.
 */
import { z } from 'zod';
import type { HumanTaskDefinition, TaskOutcomeDefinition } from '../definition/human-task';
import { outcomeParametersSchema } from '../definition/human-task';
import type { WorkflowDefinition } from '../definition/definition';
import type { Decision } from '../decide/decision';
import { plainInstance } from '../decide/instance-changes';
import { evaluateExpression } from '../expressions/expressions';
import { effectiveActor, type Actor } from '../model/actor';
import { TriggerOutcome } from '../model/enums';
import { ConflictError, ForbiddenError, ValidationError } from '../model/errors';
import { HistoryEvent, type Instance } from '../model/instance';
import { jsonObjectSchema, type JsonObject } from '../model/json';
import { OutboxKind, type TriggerOutboxRow } from '../model/outbox';
import { TaskAction, type OpenTask, type TaskDecision, type TaskHistoryRecord, type TaskPerson, type TaskResolution } from '../model/task';
import { raisedTriggerId } from '../model/trigger-ids';
import { issuesFromZod } from '../model/validation';
import { taskScope } from './open-task';
import { isAmong, mergePrincipals } from './task-principals';
import { quorumVerdict } from './quorum';

export const MAX_TASK_COMMENT_LENGTH = 4000;

/** The body of `complete`: checked here as well as by the routes (library callers may pass anything). */
export const completeTaskInputSchema = z.strictObject({
  outcome: z.string().min(1).max(128),
  parameters: jsonObjectSchema.optional(),
  comment: z.string().max(MAX_TASK_COMMENT_LENGTH).optional(),
});
export type CompleteTaskInput = z.infer<typeof completeTaskInputSchema>;

export function personOf(actor: Actor): TaskPerson {
  const who = effectiveActor(actor);
  return { id: who.id, name: who.name };
}

function definitionOf(definition: WorkflowDefinition, task: OpenTask): HumanTaskDefinition {
  const state = Object.hasOwn(definition.states, task.stateId) ? definition.states[task.stateId] : undefined;
  if (!state?.task) throw new ConflictError(`Task "${task.id}": its state "${task.stateId}" has no task in version ${definition.id}`);
  return state.task;
}

/** The instance's open task if it is `taskId` and not yet resolved; a ConflictError naming why otherwise. */
export function openTaskOf(instance: Instance, taskId: string): OpenTask {
  const task = instance.task;
  if (!task || task.id !== taskId) {
    throw new ConflictError(`Task "${taskId}" is closed: the instance is ${instance.status} in state "${instance.stateId}"${task ? `, whose open task is "${task.id}"` : ', with no open task'}`);
  }
  if (task.resolution) throw new ConflictError(`Task "${taskId}" is decided already: ${task.resolution.outcome} (by ${task.resolution.by.id}, ${task.resolution.reason}); its trigger is on its way`);
  return task;
}

/** Whether the actor may work on the task: an assignee, a candidate, or the person it was claimed by or delegated to. */
export function mayWorkOn(actor: Actor, task: OpenTask): boolean {
  return isAmong(actor, task.assignees) || isAmong(actor, task.candidates) || task.claimedBy?.id === effectiveActor(actor).id;
}

function refuseStranger(actor: Actor, task: OpenTask, verb: string): void {
  if (!mayWorkOn(actor, task)) throw new ForbiddenError(`${JSON.stringify(effectiveActor(actor).id)} may not ${verb} task "${task.id}": not an assignee or candidate of it`);
}

/** One change of the task: the instance with `task`, one history entry (event `task`), and any outbox rows. */
export function taskChange(stored: Instance, task: OpenTask, record: TaskHistoryRecord, now: Date, outbox: TriggerOutboxRow[] = []): Decision {
  const instance = plainInstance(stored);
  const at = now.toISOString();
  return {
    result: { instanceId: instance.id, outcome: TriggerOutcome.noTransition, fromStateId: instance.stateId },
    change: {
      instance: { ...instance, task, updatedAt: at, historyLength: instance.historyLength + 1, outbox: [...instance.outbox, ...outbox.map((row) => row.id)] },
      historyEntry: {
        sequence: instance.historyLength,
        at,
        event: HistoryEvent.task,
        triggerId: null,
        transitionId: null,
        fromStateId: instance.stateId,
        toStateId: instance.stateId,
        status: instance.status,
        task: record,
      },
      outbox,
    },
    logs: [],
  };
}

export function decideClaim(stored: Instance, taskId: string, actor: Actor, now: Date): Decision | undefined {
  const task = openTaskOf(stored, taskId);
  refuseStranger(actor, task, 'claim');
  const me = personOf(actor);
  if (task.claimedBy?.id === me.id) return undefined; // claimed by them already: nothing to save
  if (task.claimedBy) throw new ConflictError(`Task "${taskId}" is claimed by ${JSON.stringify(task.claimedBy.id)} since ${task.claimedBy.at}`);
  return taskChange(stored, { ...task, claimedBy: { ...me, at: now.toISOString() } }, { taskId, action: TaskAction.claimed }, now);
}

export function decideRelease(stored: Instance, taskId: string, actor: Actor, now: Date): Decision {
  const task = openTaskOf(stored, taskId);
  const me = personOf(actor);
  if (!task.claimedBy) throw new ConflictError(`Task "${taskId}" is not claimed`);
  if (task.claimedBy.id !== me.id) throw new ForbiddenError(`Task "${taskId}" is claimed by ${JSON.stringify(task.claimedBy.id)}: only they may release it`);
  const { claimedBy: _claimedBy, delegatedBy: _delegatedBy, ...released } = task;
  return taskChange(stored, released, { taskId, action: TaskAction.released }, now);
}

/** Hands the task to `to` (claimed for them, and in their inbox): the claimant, or any assignee of an unclaimed task, may. */
export function decideDelegate(stored: Instance, taskId: string, actor: Actor, to: TaskPerson, now: Date): Decision {
  const task = openTaskOf(stored, taskId);
  const me = personOf(actor);
  if (task.claimedBy && task.claimedBy.id !== me.id) throw new ConflictError(`Task "${taskId}" is claimed by ${JSON.stringify(task.claimedBy.id)}: only they may delegate it`);
  if (!task.claimedBy) refuseStranger(actor, task, 'delegate');
  const delegated: OpenTask = {
    ...task,
    assignees: mergePrincipals(task.assignees, { users: [to.id], groups: [], roles: [] }),
    claimedBy: { ...to, at: now.toISOString() },
    delegatedBy: me,
  };
  return taskChange(stored, delegated, { taskId, action: TaskAction.delegated, to }, now);
}

/** The ids the four-eyes expression names (who must not decide). */
async function excludedBy(expression: string, stored: Instance, task: OpenTask, actor: Actor, now: () => Date): Promise<string[]> {
  const value = await evaluateExpression(expression, taskScope(stored, { task, actor: effectiveActor(actor) }), { now });
  const list = Array.isArray(value) ? value : [value];
  return list.filter((id): id is string => typeof id === 'string');
}

function outcomeOf(definition: HumanTaskDefinition, name: string): TaskOutcomeDefinition {
  const outcome = definition.outcomes.find((candidate) => candidate.name === name);
  if (!outcome) throw new ValidationError(`"${name}" is not an outcome of this task`, [{ path: 'outcome', message: `must be one of ${definition.outcomes.map((known) => known.name).join(', ')}` }]);
  return outcome;
}

function checkedParameters(outcome: TaskOutcomeDefinition, parameters: JsonObject | undefined): JsonObject | undefined {
  const schema = outcomeParametersSchema(outcome);
  if (!schema) return parameters;
  const parsed = schema.safeParse(parameters ?? {});
  if (!parsed.success) throw new ValidationError(`The parameters do not match the form of outcome "${outcome.name}"`, issuesFromZod(parsed.error, ['parameters']));
  return parameters;
}

/** The outcome trigger a resolution sends: to this incarnation of the instance, as `actor`, with the deciding parameters. */
export function outcomeTriggerRow(instance: Instance, sequence: number, outcome: string, parameters: JsonObject | undefined, actor: Actor): TriggerOutboxRow {
  const id = raisedTriggerId(instance.id, `ht${sequence}`, 0, instance.incarnation);
  return {
    id,
    kind: OutboxKind.trigger,
    payload: {
      id,
      name: outcome,
      subjects: [instance.id],
      recipient: { instanceId: instance.id, ...(instance.incarnation !== undefined ? { incarnation: instance.incarnation } : {}) },
      ...(parameters ? { parameters } : {}),
      actor,
    },
  };
}

/**
 * Records the actor's decision. Refused: a closed or decided task (409), an outcome the task does not
 * have or parameters its form refuses (400 naming the field), someone who is not an assignee or
 * candidate, or whom the four-eyes rule names (403), a task claimed by another (409), a second decision
 * of the same person (409).
 */
export async function decideComplete(definition: WorkflowDefinition, stored: Instance, taskId: string, actor: Actor, input: CompleteTaskInput, now: () => Date): Promise<Decision> {
  const task = openTaskOf(stored, taskId);
  const taskDefinition = definitionOf(definition, task);
  const outcome = outcomeOf(taskDefinition, input.outcome);
  const parameters = checkedParameters(outcome, input.parameters as JsonObject | undefined);
  refuseStranger(actor, task, 'decide');
  const me = personOf(actor);
  if (task.claimedBy && task.claimedBy.id !== me.id) throw new ConflictError(`Task "${taskId}" is claimed by ${JSON.stringify(task.claimedBy.id)}: only they may decide it`);
  if (taskDefinition.fourEyes !== undefined && (await excludedBy(taskDefinition.fourEyes, stored, task, actor, now)).includes(me.id)) {
    throw new ForbiddenError(`Four eyes: ${JSON.stringify(me.id)} may not decide task "${taskId}" (fourEyes: ${taskDefinition.fourEyes})`);
  }
  if (task.decisions.some((decision) => decision.by.id === me.id)) throw new ConflictError(`${JSON.stringify(me.id)} has decided task "${taskId}" already`);
  const at = now();
  const decision: TaskDecision = { by: me, at: at.toISOString(), outcome: outcome.name, ...(input.comment !== undefined ? { comment: input.comment } : {}), ...(parameters ? { parameters } : {}) };
  const decisions = [...task.decisions, decision];
  const verdict = quorumVerdict(taskDefinition, task, decisions);
  const sequence = stored.historyLength;
  if (!verdict) return taskChange(stored, { ...task, decisions }, { taskId, action: TaskAction.decided, decision }, at);
  const trigger = outcomeTriggerRow(stored, sequence, verdict.outcome, verdict.reason === 'quorum' ? parameters : undefined, actor);
  const resolution: TaskResolution = { outcome: verdict.outcome, at: decision.at, by: me, triggerId: trigger.id, reason: verdict.reason };
  return taskChange(stored, { ...task, decisions, resolution }, { taskId, action: TaskAction.decided, decision, resolution }, at, [trigger]);
}
