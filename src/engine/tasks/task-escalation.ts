/**
 * @module A task's escalation step falling due. Its timer is an ordinary armed timer of the instance
 * (transition id `~task.<step>`, open-task.ts), delivered as a timer trigger through the normal path; the
 * run loop hands it here instead of to the transition decision (no transition has that id). The step is
 * spent (its timer removed, its rung marked fired) and does what it says: `remind` (an event), `reassign`
 * (new assignees, the claim dropped), `escalate` (assignees added, the task marked escalated), `decide`
 * (the task resolved with the step's outcome, its trigger sent as the system actor). A timer of an entry
 * left, a spent step or a task closed since is stale: nothing saved.
 */
import type { WorkflowDefinition } from '../definition/definition';
import { TaskEscalationAction } from '../definition/human-task';
import { unchanged, type Decision } from '../decide/decision';
import { systemActor } from '../model/actor';
import { InstanceStatus, TriggerOutcome } from '../model/enums';
import type { Instance } from '../model/instance';
import { TaskAction, type OpenTask, type TaskHistoryRecord, type TaskResolution } from '../model/task';
import { internalKindOf } from '../model/internal-trigger';
import type { Trigger } from '../model/trigger';
import { taskScope, taskTimerStep } from './open-task';
import { outcomeTriggerRow, taskChange } from './task-commands';
import { mergePrincipals, resolvePrincipals } from './task-principals';

/** Whether `trigger` is the timer of a task's escalation step. */
export function isTaskTimerTrigger(trigger: Trigger): boolean {
  const timer = internalKindOf(trigger, 'timer');
  return timer !== undefined && taskTimerStep(timer.transitionId) !== undefined;
}

export async function decideTaskTimer(definition: WorkflowDefinition, stored: Instance, trigger: Trigger, now: () => Date): Promise<Decision> {
  const timer = internalKindOf(trigger, 'timer')!;
  const step = taskTimerStep(timer.transitionId)!;
  const stale = unchanged({ instanceId: stored.id, outcome: TriggerOutcome.notInterested, fromStateId: stored.stateId });
  if (stored.status !== InstanceStatus.waiting) return unchanged({ instanceId: stored.id, outcome: TriggerOutcome.notActive, fromStateId: stored.stateId });
  const armed = timer.incarnation === stored.incarnation && timer.stateEntry === stored.stateEntry && (stored.timers ?? []).some((entry) => entry.transitionId === timer.transitionId);
  const task = stored.task;
  const rung = task?.escalation?.find((candidate) => candidate.step === step);
  const stepDefinition = task ? definition.states[task.stateId]?.task?.escalation?.[step] : undefined;
  if (!armed || !task || !rung || rung.fired || !stepDefinition) return stale;
  const spent: Instance = { ...stored, timers: (stored.timers ?? []).filter((entry) => entry.transitionId !== timer.transitionId) };
  const fired: OpenTask = { ...task, escalation: task.escalation!.map((candidate) => (candidate.step === step ? { ...candidate, fired: true as const } : candidate)) };
  const at = now();
  const record = (action: TaskHistoryRecord['action'], extra: Partial<TaskHistoryRecord> = {}): TaskHistoryRecord => ({ taskId: task.id, action, ...extra });
  switch (stepDefinition.action) {
    case TaskEscalationAction.remind:
      return taskChange(spent, fired, record(TaskAction.reminded), at);
    case TaskEscalationAction.reassign:
    case TaskEscalationAction.escalate: {
      const { principals } = await resolvePrincipals(stepDefinition.assignees!, taskScope(stored), now);
      if (stepDefinition.action === TaskEscalationAction.escalate)
        return taskChange(spent, { ...fired, assignees: mergePrincipals(fired.assignees, principals), escalated: true }, record(TaskAction.escalated), at);
      const { claimedBy: _claimedBy, delegatedBy: _delegatedBy, ...unclaimed } = fired;
      return taskChange(spent, { ...unclaimed, assignees: principals }, record(TaskAction.reassigned), at);
    }
    case TaskEscalationAction.decide: {
      // Decided by a person meanwhile: the step has nothing left to do but be spent.
      if (task.resolution) return taskChange(spent, fired, record(TaskAction.reminded), at);
      const system = systemActor(trigger.actor);
      const row = outcomeTriggerRow(stored, stored.historyLength, stepDefinition.outcome!, undefined, system);
      const resolution: TaskResolution = { outcome: stepDefinition.outcome!, at: at.toISOString(), by: { id: system.id, name: system.name }, triggerId: row.id, reason: 'escalation' };
      return taskChange(spent, { ...fired, resolution }, record(TaskAction.decided, { resolution }), at, [row]);
    }
  }
}
