/**
 * @module The working copy of an instance while conditions and actions run: context changes are
 * copy-on-write, raised triggers and log lines are collected (never sent), and every failure is wrapped
 * with where it happened (`exit action [1] (setContext) of state "a"`), because that message is what
 * users see.
 */
import type { Step, WorkflowDefinition } from './definition';
import type { LogLine } from './decision';
import type { Effects } from './effects';
import type { InstanceStatus } from './enums';
import type { ExpressionScope } from './expressions';
import type { JsonObject, JsonValue } from './json';
import type { Registry } from './registry';
import type { ActionContext, ConditionContext, InstanceToStart, TriggerToRaise } from './step-types';
import type { Trigger } from './trigger';

export class StepFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StepFailure';
  }
}

function describe(step: Step, index: number, where: string): string {
  return `${where} [${index}] (${step.type}${step.id ? ` "${step.id}"` : ''})`;
}

export class Draft {
  context: JsonObject;
  stateId: string;
  status: InstanceStatus;
  readonly raised: TriggerToRaise[] = [];
  /** Children to start, with the step that started each (it keys a derived child id). */
  readonly started: Array<{ readonly child: InstanceToStart; readonly location: string }> = [];
  readonly logs: LogLine[] = [];

  constructor(
    readonly definition: WorkflowDefinition,
    readonly workflowVersion: number,
    readonly instanceId: string,
    readonly trigger: Trigger | null,
    readonly effects: Effects,
    readonly registry: Registry,
    start: { context: JsonObject; stateId: string; status: InstanceStatus },
  ) {
    this.context = start.context;
    this.stateId = start.stateId;
    this.status = start.status;
  }

  scope(): ExpressionScope {
    return {
      trigger: this.trigger,
      context: this.context,
      instance: { id: this.instanceId, workflowId: this.definition.id, stateId: this.stateId, status: this.status },
    };
  }

  private conditionContext(): ConditionContext {
    return {
      scope: this.scope(),
      effects: this.effects,
      definition: this.definition,
      workflowVersion: this.workflowVersion,
      evaluate: (condition) => this.evaluateOne(condition),
    };
  }

  private async evaluateOne(step: Step): Promise<boolean> {
    const { type, config } = this.registry.parseCondition(step);
    return type.evaluate(config, this.conditionContext());
  }

  /** Index of the first condition that is false, or -1 when all hold (short-circuit). Throws StepFailure. */
  async firstFalse(conditions: readonly Step[], where: string): Promise<number> {
    for (let index = 0; index < conditions.length; index++) {
      const step = conditions[index]!;
      let holds: boolean;
      try {
        holds = await this.evaluateOne(step);
      } catch (error) {
        throw new StepFailure(`${describe(step, index, where)}: ${(error as Error).message ?? String(error)}`, { cause: error });
      }
      if (!holds) return index;
    }
    return -1;
  }

  async runActions(actions: readonly Step[], where: string): Promise<void> {
    for (let index = 0; index < actions.length; index++) {
      const step = actions[index]!;
      const location = describe(step, index, where);
      try {
        const { type, config } = this.registry.parseAction(step);
        await type.execute(config, this.actionContext(location));
      } catch (error) {
        throw new StepFailure(`${location}: ${(error as Error).message ?? String(error)}`, { cause: error });
      }
    }
  }

  private actionContext(location: string): ActionContext {
    const http = this.effects.actionHttp?.(location);
    return {
      scope: this.scope(),
      effects: http ? { ...this.effects, http } : this.effects,
      definition: this.definition,
      workflowVersion: this.workflowVersion,
      updateContext: (set, remove) => this.updateContext(set, remove),
      raiseTrigger: (trigger) => {
        this.raised.push(trigger);
      },
      startInstance: (child) => {
        this.started.push({ child, location });
      },
      log: (level, message, properties = {}) => {
        this.logs.push({ level, message, properties });
      },
    };
  }

  private updateContext(set: Readonly<Record<string, JsonValue | undefined>>, remove: readonly string[] = []): void {
    const next: JsonObject = { ...this.context };
    for (const [key, value] of Object.entries(set)) {
      if (value === undefined) delete next[key];
      else next[key] = value;
    }
    for (const key of remove) delete next[key];
    this.context = next;
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
