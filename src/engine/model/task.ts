/**
 * @module The open human task of an instance (issue 39; src/engine/tasks): kept on the instance itself,
 * so it is saved in the instance's own ETag-fenced save, atomic with the state change that opens or closes
 * it. At most one: the task of the state the instance is in, for that entry into it.
 */

/** Users, groups and app roles, each list without repeats. */
export interface TaskPrincipals {
  readonly users: readonly string[];
  readonly groups: readonly string[];
  readonly roles: readonly string[];
}

/** Someone named on a task (a claimant, a decider): the effective actor's id and display name. */
export interface TaskPerson {
  readonly id: string;
  readonly name: string;
}

/** One person's decision (the record kept in the history too: who, when, outcome, comment). */
export interface TaskDecision {
  readonly by: TaskPerson;
  readonly at: string;
  readonly outcome: string;
  readonly comment?: string;
  readonly parameters?: import('./json').JsonObject;
}

/** A rung of the escalation ladder as armed for this task: when it falls due, and whether it has. */
export interface TaskEscalationRung {
  readonly step: number;
  readonly dueAt: string;
  readonly fired?: true;
}

/** The outcome the task reached (the quorum, a `decide` step, or an unreachable quorum): its trigger is on its way. */
export interface TaskResolution {
  readonly outcome: string;
  readonly at: string;
  /** Who decided it: the person whose decision reached the quorum, or `system`. */
  readonly by: TaskPerson;
  /** The id of the outcome trigger sent to the instance. */
  readonly triggerId: string;
  readonly reason: 'quorum' | 'escalation' | 'unreachable';
}

export interface OpenTask {
  /** `<instanceId>~<stateEntry>`: names the instance (so a read needs no index) and the entry into the state. */
  readonly id: string;
  readonly stateId: string;
  readonly stateEntry: number;
  readonly title: string;
  readonly description?: string;
  readonly createdAt: string;
  readonly dueAt?: string;
  readonly assignees: TaskPrincipals;
  readonly candidates?: TaskPrincipals;
  readonly claimedBy?: TaskPerson & { readonly at: string };
  /** Set by an `escalate` step. */
  readonly escalated?: true;
  readonly escalation?: readonly TaskEscalationRung[];
  readonly decisions: readonly TaskDecision[];
  readonly resolution?: TaskResolution;
  /** The person whose turn it is because someone delegated the task to them. */
  readonly delegatedBy?: TaskPerson;
}

/** What a task change did, on the history entry it writes (event `task`). */
export const TaskAction = {
  claimed: 'claimed',
  released: 'released',
  delegated: 'delegated',
  decided: 'decided',
  reminded: 'reminded',
  reassigned: 'reassigned',
  escalated: 'escalated',
} as const;
export type TaskAction = (typeof TaskAction)[keyof typeof TaskAction];

/** The `task` part of a history entry. */
export interface TaskHistoryRecord {
  readonly taskId: string;
  readonly action: TaskAction;
  /** `decided`: the decision. */
  readonly decision?: TaskDecision;
  /** `delegated`: to whom. */
  readonly to?: TaskPerson;
  /** Set when this change resolved the task (its outcome trigger is sent). */
  readonly resolution?: TaskResolution;
}

/** Separates the instance id from the entry in a task id: no instance id contains it. */
export const TASK_ID_SEPARATOR = '~';

export function taskIdOf(instanceId: string, stateEntry: number): string {
  return `${instanceId}${TASK_ID_SEPARATOR}${stateEntry}`;
}

/** The instance id and state entry of a task id (undefined when it is none). */
export function parseTaskId(taskId: string): { instanceId: string; stateEntry: number } | undefined {
  const at = taskId.lastIndexOf(TASK_ID_SEPARATOR);
  if (at <= 0) return undefined;
  const entry = taskId.slice(at + 1);
  if (!/^\d{1,10}$/.test(entry)) return undefined;
  return { instanceId: taskId.slice(0, at), stateEntry: Number(entry) };
}
