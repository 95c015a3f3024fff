/**
 * @module Opening and closing human tasks, whatever moved the instance: the run loop passes every change
 * through `withTask` before it is saved (change-under-lease.ts, instance-creation.ts), so a task is created
 * when a change leaves the instance waiting in a state with a `task`, and closed by any change that takes
 * it out of that state, re-enters it (a self-transition, a recovery), or ends or faults the instance:
 * a timer, a cancel, a migration alike. The task rides on the instance (Instance.task) and its escalation
 * steps are ordinary armed timers (Instance.timers, transition ids `~task.<step>`), so both are written in
 * the instance's own ETag-fenced save, atomic with the state change.
 *
 * Nothing here faults an instance: a title template or an assignee expression that fails renders empty or
 * adds nobody (the listed assignees remain), and a `due.at` that gives no instant leaves the task without
 * a due date; the change's log lines say so.
 */
import { DateTime } from 'luxon';
import type { StateDefinition, WorkflowDefinition } from '../definition/definition';
import type { HumanTaskDefinition } from '../definition/human-task';
import type { Decision, LogLine } from '../decide/decision';
import { timerOutboxRows } from '../decide/timers';
import { evaluateExpression, renderTemplate, type ExpressionScope } from '../expressions/expressions';
import { InstanceStatus } from '../model/enums';
import { HistoryEvent, type ArmedTimer, type HistoryEntry, type Instance } from '../model/instance';
import { taskIdOf, type OpenTask, type TaskEscalationRung } from '../model/task';
import { addWorkingTime } from '../timers/business-calendar';
import { parseIsoDuration } from '../timers/timer-definition';
import { resolvePrincipals } from './task-principals';

/** The transition id of a task's escalation timer: `~` is in no definition's transition id, so no transition can be chosen by it. */
export const TASK_TIMER_PREFIX = '~task.';

export function taskTimerId(step: number): string {
  return `${TASK_TIMER_PREFIX}${step}`;
}

/** The escalation step a timer's transition id names, or undefined when it is no task timer. */
export function taskTimerStep(transitionId: string): number | undefined {
  if (!transitionId.startsWith(TASK_TIMER_PREFIX)) return undefined;
  const step = Number(transitionId.slice(TASK_TIMER_PREFIX.length));
  return Number.isInteger(step) && step >= 0 ? step : undefined;
}

/** History events that enter a state afresh: a task open before them is closed, and the state's own opened. */
const ENTERING: ReadonlySet<string> = new Set([HistoryEvent.created, HistoryEvent.transitioned, HistoryEvent.recovered, HistoryEvent.errorHandled]);

/** Statuses a task stays open in (a suspended instance keeps its task; its timers wait with it). */
const OPEN_IN: ReadonlySet<InstanceStatus> = new Set([InstanceStatus.waiting, InstanceStatus.suspended]);

export function taskScope(instance: Instance, extra: Record<string, unknown> = {}): ExpressionScope {
  return { trigger: null, actor: null, context: instance.context, instance: { id: instance.id, workflowId: instance.workflowId, stateId: instance.stateId, status: instance.status }, ...extra };
}

function stateOf(definition: WorkflowDefinition, stateId: string): StateDefinition | undefined {
  return Object.hasOwn(definition.states, stateId) ? definition.states[stateId] : undefined;
}

/** `after` from `start`: working time in `calendar` when the workflow has it, else elapsed time. Undefined for a malformed duration. */
export function instantAfter(definition: WorkflowDefinition, start: Date, after: string, calendar: string | undefined): Date | undefined {
  const duration = parseIsoDuration(after);
  if (typeof duration === 'string') return undefined;
  const days = calendar !== undefined ? definition.calendars?.[calendar] : undefined;
  if (days) return addWorkingTime(start, duration.as('milliseconds'), days);
  return DateTime.fromJSDate(start, { zone: 'utc' }).plus(duration).toJSDate();
}

async function dueAtOf(definition: WorkflowDefinition, task: HumanTaskDefinition, instance: Instance, createdAt: Date, now: () => Date, logs: LogLine[]): Promise<string | undefined> {
  const due = task.due;
  if (!due) return undefined;
  if (due.after !== undefined) return instantAfter(definition, createdAt, due.after, due.calendar ?? task.calendar)?.toISOString();
  try {
    const value = await evaluateExpression(due.at!, taskScope(instance), { now });
    const parsed = typeof value === 'string' ? DateTime.fromISO(value, { zone: 'utc' }) : undefined;
    if (parsed?.isValid) return parsed.toUTC().toISO()!;
    logs.push({ level: 'warn', message: 'A task’s due.at gave no instant: the task has no due date', properties: { instanceId: instance.id, stateId: instance.stateId } });
  } catch (error) {
    logs.push({ level: 'warn', message: 'A task’s due.at failed: the task has no due date', properties: { instanceId: instance.id, stateId: instance.stateId, error: String(error) } });
  }
  return undefined;
}

/** The task `definition` opens for `instance` (already in its state) at `createdAt`. */
export async function openTask(definition: WorkflowDefinition, task: HumanTaskDefinition, instance: Instance, createdAt: Date, now: () => Date, logs: LogLine[]): Promise<OpenTask> {
  const scope = taskScope(instance);
  const stateEntry = instance.stateEntry ?? Math.max(0, instance.historyLength - 1);
  const render = async (template: string) => {
    try {
      return (await renderTemplate(template, scope, 'empty', { now })) ?? template;
    } catch (error) {
      logs.push({ level: 'warn', message: 'A task’s template failed: shown as written', properties: { instanceId: instance.id, error: String(error) } });
      return template;
    }
  };
  const assignees = await resolvePrincipals(task.assignees, scope, now);
  const candidates = task.candidates ? await resolvePrincipals(task.candidates, scope, now) : undefined;
  for (const problem of [assignees.problem, candidates?.problem])
    if (problem) logs.push({ level: 'warn', message: `A task’s ${problem}`, properties: { instanceId: instance.id, stateId: instance.stateId } });
  const dueAt = await dueAtOf(definition, task, instance, createdAt, now, logs);
  const escalation: TaskEscalationRung[] = (task.escalation ?? []).flatMap((step, index) => {
    const at = instantAfter(definition, createdAt, step.after, step.calendar ?? task.calendar);
    return at ? [{ step: index, dueAt: at.toISOString() }] : [];
  });
  return {
    id: taskIdOf(instance.id, stateEntry),
    stateId: instance.stateId,
    stateEntry,
    title: await render(task.title),
    ...(task.description !== undefined ? { description: await render(task.description) } : {}),
    createdAt: createdAt.toISOString(),
    ...(dueAt !== undefined ? { dueAt } : {}),
    assignees: assignees.principals,
    ...(candidates ? { candidates: candidates.principals } : {}),
    ...(escalation.length ? { escalation } : {}),
    decisions: [],
  };
}

function withoutTask(instance: Instance): Instance {
  const { task: _task, ...rest } = instance;
  const timers = rest.timers?.filter((timer) => taskTimerStep(timer.transitionId) === undefined);
  return timers && timers.length !== rest.timers!.length ? { ...rest, timers } : rest;
}

/** The instance with the timers of the task's unfired escalation steps armed, and the timer rows of those it lacked. */
function armEscalation(instance: Instance & { task: OpenTask }): { instance: Instance; armed: ArmedTimer[] } {
  const present = new Set((instance.timers ?? []).map((timer) => timer.transitionId));
  const armed = (instance.task.escalation ?? []).filter((rung) => !rung.fired && !present.has(taskTimerId(rung.step))).map((rung) => ({ transitionId: taskTimerId(rung.step), dueAt: rung.dueAt }));
  if (armed.length === 0) return { instance, armed };
  return { instance: { ...instance, timers: [...(instance.timers ?? []), ...armed] }, armed };
}

/** Whether `change` keeps the instance's task open: no fresh entry, the same state, a status that keeps it. */
function keepsTask(entries: readonly HistoryEntry[], next: Instance): next is Instance & { task: OpenTask } {
  const task = next.task;
  return task !== undefined && next.stateId === task.stateId && OPEN_IN.has(next.status) && !entries.some((entry) => ENTERING.has(entry.event));
}

/**
 * The decision with the instance's task opened, kept (its escalation timers re-armed where a change such
 * as a migration re-armed the state's timers without them) or closed, as its change leaves the instance.
 */
export async function withTask(definition: WorkflowDefinition, decision: Decision, now: () => Date): Promise<Decision> {
  const change = decision.change;
  if (!change) return decision;
  const entries = [...(change.precedingEntries ?? []), ...(change.historyEntry ? [change.historyEntry] : [])];
  const next = change.instance;
  const logs: LogLine[] = [];
  let instance: Instance;
  if (keepsTask(entries, next)) instance = next;
  else {
    instance = next.task ? withoutTask(next) : next;
    const task = stateOf(definition, instance.stateId)?.task;
    if (task && instance.status === InstanceStatus.waiting && entries.length > 0) {
      const createdAt = new Date(entries[entries.length - 1]!.at);
      instance = { ...instance, task: await openTask(definition, task, instance, createdAt, now, logs) };
    }
  }
  if (!instance.task) return instance === next ? decision : { ...decision, change: { ...change, instance } };
  const { instance: armedInstance, armed } = armEscalation(instance as Instance & { task: OpenTask });
  if (armedInstance === next && logs.length === 0) return decision;
  const outbox = armed.length && armedInstance.stateEntry !== undefined ? timerOutboxRows(armedInstance, armedInstance.stateEntry, armed) : [];
  // Timer rows are listed on the instance like every row its save writes (a crash then relays them again).
  const listed = outbox.length ? { ...armedInstance, outbox: [...armedInstance.outbox, ...outbox.map((row) => row.id)] } : armedInstance;
  return { ...decision, change: { ...change, instance: listed, outbox: [...change.outbox, ...outbox] }, logs: [...decision.logs, ...logs] };
}
