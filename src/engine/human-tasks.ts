/**
 * @module The facade's human tasks (issue 39): the inbox (read from the inbox index only: the caller's
 * own partitions, tasks/task-index.ts), one task (read from its instance, the truth), and the commands
 * claim, release, delegate and complete, each one decision under the instance's lease (tasks/task-commands.ts)
 * followed by the relay of what it raised (a completion's outcome trigger, sent through the normal path).
 */
import type { HumanTaskDefinition, TaskOutcomeDefinition, TaskQuorum } from './definition/human-task';
import { unchanged, type Decision } from './decide/decision';
import type { Actor } from './model/actor';
import { TriggerOutcome } from './model/enums';
import { NotFoundError } from './model/errors';
import type { StoredInstance } from './model/instance';
import { parseTaskId, type OpenTask, type TaskPerson } from './model/task';
import { parseWith } from './model/validation';
import type { InstanceStore, OperationOptions } from './ports/ports';
import type { AppliedDecision, Decide } from './runtime/change-types';
import type { InstanceRuntime } from './runtime/instance-runtime';
import type { WorkflowService } from './runtime/workflow-service';
import { completeTaskInputSchema, decideClaim, decideComplete, decideDelegate, decideRelease, mayWorkOn, type CompleteTaskInput } from './tasks/task-commands';
import { actorKeys } from './tasks/task-principals';
import type { TaskInboxPage, TaskInboxQuery, TaskIndex } from './tasks/task-index';

/** A task as the API shows it: the open task, where it is, and what may be decided. */
export interface TaskView extends OpenTask {
  readonly instanceId: string;
  readonly workflowId: string;
  readonly workflowVersion: number;
  readonly status: 'open' | 'claimed' | 'decided';
  readonly overdue: boolean;
  readonly outcomes: readonly TaskOutcomeDefinition[];
  readonly quorum: TaskQuorum;
}

export const MAX_INBOX_PAGE_SIZE = 200;

export class HumanTasks {
  constructor(
    private readonly runtime: InstanceRuntime,
    private readonly instances: Pick<InstanceStore, 'get'>,
    private readonly workflows: WorkflowService,
    private readonly index: TaskIndex | undefined,
    private readonly now: () => Date,
    private readonly relayAfter: (decided: AppliedDecision, options: OperationOptions) => Promise<void>,
  ) {}

  /** The caller's inbox: tasks filed under their id, groups and roles (candidates' too with `includeCandidates`), by due date. */
  async inbox(
    actor: Actor,
    query: TaskInboxQuery & { readonly overdue?: boolean },
    page: { readonly limit?: number; readonly continuationToken?: string } = {},
    options: OperationOptions = {},
  ): Promise<TaskInboxPage> {
    if (!this.index) return { items: [] };
    const { overdue, ...filters } = query;
    const nowText = this.now().toISOString();
    const dueBefore = overdue ? (filters.dueBefore !== undefined && filters.dueBefore < nowText ? filters.dueBefore : nowText) : filters.dueBefore;
    const limit = Math.min(Math.max(page.limit ?? 50, 1), MAX_INBOX_PAGE_SIZE);
    return this.index.list(
      actorKeys(actor),
      { ...filters, ...(dueBefore !== undefined ? { dueBefore } : {}) },
      { limit, ...(page.continuationToken !== undefined ? { continuationToken: page.continuationToken } : {}) },
      options,
    );
  }

  /** One open task, read from its instance; NotFoundError when it is closed or never was. `actor`, when given, must be able to work on it. */
  async get(taskId: string, options: OperationOptions = {}): Promise<TaskView> {
    const { instanceId } = this.parse(taskId);
    const stored = await this.instances.get(instanceId, options);
    if (!stored || stored.deleting || stored.task?.id !== taskId)
      throw new NotFoundError(`Task "${taskId}" is not open${stored && !stored.deleting ? `: instance "${instanceId}" is ${stored.status} in state "${stored.stateId}"` : ''}`);
    return this.view(stored);
  }

  /** Whether the actor is an assignee or candidate of the task (or its claimant): what a read of it needs. */
  mayWorkOn(actor: Actor, task: OpenTask): boolean {
    return mayWorkOn(actor, task);
  }

  claim(taskId: string, actor: Actor, options: OperationOptions = {}): Promise<TaskView> {
    return this.command(taskId, actor, options, async (stored) => decideClaim(stored, taskId, actor, this.now()));
  }

  release(taskId: string, actor: Actor, options: OperationOptions = {}): Promise<TaskView> {
    return this.command(taskId, actor, options, async (stored) => decideRelease(stored, taskId, actor, this.now()));
  }

  delegate(taskId: string, actor: Actor, to: TaskPerson, options: OperationOptions = {}): Promise<TaskView> {
    return this.command(taskId, actor, options, async (stored) => decideDelegate(stored, taskId, actor, to, this.now()));
  }

  /** Records the actor's decision; once the quorum is reached the outcome trigger goes to the instance (as the actor), relayed before this answers. */
  complete(taskId: string, actor: Actor, input: CompleteTaskInput, options: OperationOptions = {}): Promise<TaskView> {
    const parsed = parseWith(completeTaskInputSchema, input, 'The completion is invalid');
    return this.command(taskId, actor, options, (stored, { definition }) => decideComplete(definition, stored, taskId, actor, parsed, this.now));
  }

  private parse(taskId: string): { instanceId: string; stateEntry: number } {
    const parsed = parseTaskId(taskId);
    if (!parsed) throw new NotFoundError(`Task "${taskId}" does not exist (a task id is <instanceId>~<entry>)`);
    return parsed;
  }

  private async command(taskId: string, actor: Actor, options: OperationOptions, decide: (stored: StoredInstance, context: Parameters<Decide>[1]) => Promise<Decision | undefined>): Promise<TaskView> {
    const { instanceId } = this.parse(taskId);
    let before: StoredInstance | undefined;
    const decided = await this.runtime.decideUnderLease(
      instanceId,
      (stored) => ({ kind: 'task', sequence: stored.historyLength }),
      async (stored, context) => {
        before = stored;
        return (await decide(stored, context)) ?? unchanged({ instanceId, outcome: TriggerOutcome.noTransition, fromStateId: stored.stateId });
      },
      { ...options, actor },
    );
    if (!decided.instance) throw new NotFoundError(`Task "${taskId}" does not exist: instance "${instanceId}" does not`);
    // The view of the task as this change left it (its outcome trigger may move the instance on at once).
    const view = await this.view(decided.instance.task ? decided.instance : before!);
    await this.relayAfter(decided, options);
    return view;
  }

  private async view(stored: StoredInstance): Promise<TaskView> {
    const task = stored.task!;
    const version = await this.workflows.versions.get(stored.workflowId, stored.workflowVersion);
    const definition: HumanTaskDefinition | undefined = version.definition.states[task.stateId]?.task;
    return {
      ...task,
      instanceId: stored.id,
      workflowId: stored.workflowId,
      workflowVersion: stored.workflowVersion,
      status: task.resolution ? 'decided' : task.claimedBy ? 'claimed' : 'open',
      overdue: task.dueAt !== undefined && !task.resolution && Date.parse(task.dueAt) < this.now().getTime(),
      outcomes: definition?.outcomes ?? [],
      quorum: definition?.quorum ?? 'any',
    };
  }
}
