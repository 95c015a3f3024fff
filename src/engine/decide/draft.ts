/**
 * @module The working copy of an instance while conditions and actions run: context changes are
 * copy-on-write, raised triggers and log lines are collected (never sent), and every failure is wrapped
 * with where it happened (`exit action [1] (setContext) of state "a"`), because that message is what
 * users see.
 */
import type { Step, WorkflowDefinition } from '../definition/definition';
import type { LogLine } from './decision';
import { shortDetail, type TraceEntry } from './decision-trace';
import { redactSecrets } from '../model/redaction';
import type { Effects } from '../steps/effects';
import type { InstanceStatus } from '../model/enums';
import type { ExpressionScope } from '../expressions/expressions';
import type { JsonObject, JsonValue } from '../model/json';
import type { Registry } from '../steps/registry';
import type { ActionContext, ChildStep, ConditionContext, ConditionType, InstanceToStart, StepContext, TriggerToRaise } from '../steps/step-types';
import type { StepError } from '../model/step-error';
import { classifyError } from '../steps/step-errors';
import type { Trigger } from '../model/trigger';
import { effectiveActor, type Actor } from '../model/actor';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class StepFailure extends Error {
  /** What failed, typed (error-handling.ts): what `onError.when` matches and JSONata sees as `error`. */
  readonly error: StepError;
  constructor(message: string, options: { cause?: unknown; stepPath: string }) {
    super(message, { cause: options.cause });
    this.name = 'StepFailure';
    this.error = { ...classifyError(options.cause), message, stepPath: options.stepPath };
  }
}

/** Where a re-applied trigger resumes its retries: the step that asked for them, and the attempt it makes next. */
export interface RetryStart {
  readonly stepPath: string;
  readonly attempt: number;
}

function describe(step: Step, index: number, where: string): string {
  return `${where} [${index}] (${step.type}${step.id ? ` "${step.id}"` : ''})`;
}

/** A condition as a fault names it: with its expression too, when it has one (the id alone may say little). */
function describeCondition(step: Step, index: number, where: string): string {
  const expression = typeof step.expression === 'string' ? `: ${shortDetail(step.expression)}` : '';
  return `${where} [${index}] (${step.type}${step.id ? ` "${step.id}"` : ''}${expression})`;
}

export class Draft {
  context: JsonObject;
  stateId: string;
  status: InstanceStatus;
  readonly raised: TriggerToRaise[] = [];
  /** Children to start, with the step that started each (it keys a derived child id). */
  readonly started: Array<{ readonly child: InstanceToStart; readonly location: string }> = [];
  readonly logs: LogLine[] = [];
  /** The instance's incarnation (instance.ts): part of every id derived from what the draft raises or starts. */
  readonly incarnation?: string;
  /** Every action run so far, in order, with where it is (a dry run lists them: dry-run.ts). */
  readonly actionsRun: { readonly location: string; readonly type: string; readonly logsBefore: number; readonly raisedBefore: number }[] = [];
  /** Who the change is for, as rules see them (actor.ts effectiveActor): JSONata's `actor`. */
  readonly actor?: Actor;
  /** Every condition evaluated so far, in order (decision-trace.ts), and every retry and handled error. */
  readonly trace: Mutable<TraceEntry>[] = [];
  /** Set when the trigger is re-applied by its pending retry: that step goes on counting its attempts. */
  retryStart?: RetryStart;
  /** Added to the expression scope (`error`) while an `onError` runs its `setContext`. */
  error?: StepError;

  constructor(
    readonly definition: WorkflowDefinition,
    readonly workflowVersion: number,
    readonly instanceId: string,
    readonly trigger: Trigger | null,
    readonly effects: Effects,
    readonly registry: Registry,
    start: { context: JsonObject; stateId: string; status: InstanceStatus; incarnation?: string; actor?: Actor },
  ) {
    if (start.incarnation !== undefined) this.incarnation = start.incarnation;
    const actor = start.actor ?? trigger?.actor;
    if (actor) this.actor = effectiveActor(actor);
    this.context = start.context;
    this.stateId = start.stateId;
    this.status = start.status;
  }

  scope(): ExpressionScope {
    return {
      trigger: this.trigger,
      actor: this.actor ?? null,
      context: this.context,
      instance: { id: this.instanceId, workflowId: this.definition.id, stateId: this.stateId, status: this.status },
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /** What an external-service step at `path` needs to carry out its retry policy, tracing each wait in place. */
  private stepOf(path: string, type: string): StepContext['step'] {
    const firstAttempt = this.retryStart?.stepPath === path ? this.retryStart.attempt : 1;
    return {
      path,
      firstAttempt,
      onRetry: ({ attempt, delayInMs, error }) => {
        this.trace.push({ path, type, result: 'error', detail: shortDetail(`attempt ${attempt} failed (${error.type}), retried in place after ${delayInMs} ms: ${error.message}`) });
      },
      onThrottled: ({ bucket, waitInMs, rateLimit }) => {
        this.trace.push({
          path,
          type,
          result: true,
          detail: shortDetail(`throttled: rate limit ${bucket} (${rateLimit.limit} per ${rateLimit.periodInMs} ms, burst ${rateLimit.burst}) is full; waited ${waitInMs} ms for a slot`),
        });
      },
    };
  }

  private conditionContext(type: ConditionType<unknown>, config: unknown, path: string, index: number): ConditionContext {
    return {
      scope: this.scope(),
      effects: this.effects,
      definition: this.definition,
      workflowVersion: this.workflowVersion,
      step: this.stepOf(path, type.type),
      // A nested condition is traced under its parent's path (its place among the parent's children).
      evaluate: (condition) => {
        const child = type.children?.(config).find((candidate) => candidate.step === condition);
        const childPath = child ? path + child.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('') : `${path}.?`;
        return this.evaluateOne(condition, childPath);
      },
      note: (detail) => {
        this.trace[index]!.detail = shortDetail(detail);
      },
    };
  }

  /** Evaluates one condition, tracing it (and its nested ones, and marking the nested ones it skipped). */
  private async evaluateOne(step: Step, path: string): Promise<boolean> {
    const index = this.trace.length;
    // Filled in place (entries are the draft's own until the decision is returned): tracing must stay cheap.
    const entry: Mutable<TraceEntry> = { path, type: step.type, result: 'skipped' };
    this.trace.push(entry);
    try {
      const { type, config } = this.registry.parseCondition(step);
      const holds = await type.evaluate(config, this.conditionContext(type, config, path, index));
      entry.result = holds;
      this.skipUnevaluatedChildren(type.children?.(config) ?? [], path, index);
      return holds;
    } catch (error) {
      entry.result = 'error';
      entry.detail = shortDetail(messageOf(error));
      throw error;
    }
  }

  private skipUnevaluatedChildren(children: readonly ChildStep[], path: string, index: number): void {
    if (children.length === 0) return;
    const evaluated = new Set(this.trace.slice(index + 1).map((entry) => entry.path));
    for (const child of children) {
      const childPath = path + child.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('');
      if (!evaluated.has(childPath)) this.trace.push({ path: childPath, type: child.step.type, result: 'skipped' });
    }
  }

  /**
   * Index of the first condition that is false, or -1 when all hold (short-circuit: the ones after it
   * are traced `skipped`). `path` is the list's JSON path in the definition. Throws StepFailure.
   */
  async firstFalse(conditions: readonly Step[], where: string, path: string): Promise<number> {
    for (let index = 0; index < conditions.length; index++) {
      const step = conditions[index]!;
      let holds: boolean;
      try {
        holds = await this.evaluateOne(step, `${path}[${index}]`);
      } catch (error) {
        this.skipFrom(conditions, index + 1, path);
        throw new StepFailure(`${describeCondition(step, index, where)}: ${redactSecrets((error as Error).message ?? String(error))}`, { cause: error, stepPath: `${path}[${index}]` });
      }
      if (!holds) {
        this.skipFrom(conditions, index + 1, path);
        return index;
      }
    }
    return -1;
  }

  private skipFrom(conditions: readonly Step[], from: number, path: string): void {
    for (let index = from; index < conditions.length; index++) this.trace.push({ path: `${path}[${index}]`, type: conditions[index]!.type, result: 'skipped' });
  }

  /** `path` is the list's JSON path in the definition (`states.a.entryActions`): each step's path names it in errors and retries. */
  async runActions(actions: readonly Step[], where: string, path: string = where): Promise<void> {
    for (let index = 0; index < actions.length; index++) {
      const step = actions[index]!;
      const location = describe(step, index, where);
      this.actionsRun.push({ location, type: step.type, logsBefore: this.logs.length, raisedBefore: this.raised.length });
      try {
        const { type, config } = this.registry.parseAction(step);
        await type.execute(config, this.actionContext(location, `${path}[${index}]`, step.type));
      } catch (error) {
        // Redacted here too, whatever built the message (a library's own step may quote a URL): this is the fault.
        throw new StepFailure(`${location}: ${redactSecrets((error as Error).message ?? String(error))}`, { cause: error, stepPath: `${path}[${index}]` });
      }
    }
  }

  private actionContext(location: string, path: string, type: string): ActionContext {
    const http = this.effects.actionHttp?.(location);
    return {
      scope: this.scope(),
      effects: http ? { ...this.effects, http } : this.effects,
      definition: this.definition,
      workflowVersion: this.workflowVersion,
      step: this.stepOf(path, type),
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
