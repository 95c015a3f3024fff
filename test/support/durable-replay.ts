/**
 * @module Runs durable orchestrators to completion without the Functions host, with the real replay
 * engine of durable-functions: the one place that knows its internals (durable-functions 3.x; version 4
 * changes them, and then only this file changes).
 *
 * How it works, playing the part of the Durable Task extension:
 * 1. The history starts with OrchestratorStarted and ExecutionStarted (wire-format event objects, as
 *    the extension sends them).
 * 2. Each episode runs the orchestrator over the whole history through the package's own handler
 *    (`createOrchestrator`, what `df.app.orchestration` registers), with a fresh context. The replay
 *    engine replays the history and leaves the tasks the orchestrator now waits on in its executor's
 *    open-task table, keyed by the sequence numbers it gave them; those numbers are the ids history
 *    events must carry, so reading them (rather than predicting them) keeps the helper exact.
 * 3. For each open task the helper appends what the extension would: TaskScheduled, TimerCreated or
 *    SubOrchestrationInstanceCreated, then OrchestratorCompleted; runs the activities in-process (and
 *    sub-orchestrators recursively, by the same loop); and appends the next episode's OrchestratorStarted
 *    with TaskCompleted/TaskFailed, TimerFired, SubOrchestrationInstanceCompleted/Failed.
 * 4. `createTimer` timers fire in the next episode, the virtual clock moved to their due time.
 * 5. `callActivityWithRetry` is retried the extension's way: a failure, a retry timer (fired at once,
 *    time is virtual), then a new attempt under the next sequence number, up to the maximum attempts.
 * 6. It stops when the orchestrator returns (completed) or throws (failed).
 */
import { DummyOrchestrationContext, type OrchestrationHandler } from 'durable-functions';

/** One history event in the extension's wire format (the fields the replay engine reads). */
export interface HistoryEventRecord {
  EventType: number;
  EventId: number;
  IsPlayed: boolean;
  Timestamp: string | Date;
  [field: string]: unknown;
}

export const EventType = {
  ExecutionStarted: 0,
  TaskScheduled: 4,
  TaskCompleted: 5,
  TaskFailed: 6,
  SubOrchestrationInstanceCreated: 7,
  SubOrchestrationInstanceCompleted: 8,
  SubOrchestrationInstanceFailed: 9,
  TimerCreated: 10,
  TimerFired: 11,
  OrchestratorStarted: 12,
  OrchestratorCompleted: 13,
} as const;

export interface ActivityCall {
  readonly name: string;
  readonly input: unknown;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** The orchestration instance that called it. */
  readonly instanceId: string;
}

export type ActivityFunction = (input: any) => unknown;

export interface ReplayOptions {
  /** Orchestrator functions by name (the top one and every sub-orchestrator it calls). */
  readonly orchestrators: Readonly<Record<string, OrchestrationHandler>>;
  readonly activities: Readonly<Record<string, ActivityFunction>>;
  /** Called before each activity attempt; an Error returned fails that attempt without running it. */
  readonly injectFailure?: (call: ActivityCall) => Error | undefined;
  /**
   * Completes sub-orchestrations only when the orchestrator waits on nothing else, as when batches are
   * slow and page reads fast; by default every open task completes in the same episode.
   * @default false
   */
  readonly subOrchestrationsLast?: boolean;
  /** @default 32 activities running at once across the whole run */
  readonly maxConcurrentActivities?: number;
  /** @default 10000 episodes per orchestration before the helper gives up */
  readonly maxEpisodes?: number;
  /** The virtual time of the first episode. @default 2026-01-01T00:00:00.000Z */
  readonly startAt?: string;
}

export interface OrchestrationRun {
  readonly name: string;
  readonly instanceId: string;
  readonly input: unknown;
  readonly status: 'completed' | 'failed';
  readonly output?: unknown;
  readonly error?: string;
  readonly history: readonly HistoryEventRecord[];
  readonly episodes: number;
  readonly subOrchestrations: readonly OrchestrationRun[];
  /**
   * The actions the last episode sent back (the out-of-process protocol sends every action since the
   * start): an action listed twice would make the extension schedule its work twice.
   */
  readonly actions: readonly ScheduledAction[];
}

export interface ScheduledAction {
  readonly actionType: number;
  readonly functionName?: string;
  readonly instanceId?: string;
}

export interface ReplayResult extends OrchestrationRun {
  /** Every activity attempt in the run, in the order started. */
  readonly activityCalls: readonly ActivityCall[];
}

// --- durable-functions internals (3.x), typed as far as this helper reads them ---------------------
interface InternalTask {
  id: number | false;
  action: unknown;
  readonly actionObj: InternalAction | 'noOp' | undefined;
  parent?: InternalTask & { isWaitingOnTimer?: boolean; attemptNumber?: number; retryOptions?: InternalRetryOptions };
}
interface InternalAction {
  actionType: number;
  /** CreateTimer only. */
  fireAt?: Date | string;
  functionName: string;
  input?: unknown;
  instanceId?: string;
  retryOptions?: InternalRetryOptions;
}
interface InternalRetryOptions {
  firstRetryIntervalInMilliseconds: number;
  backoffCoefficient?: number;
  maxRetryIntervalInMilliseconds?: number;
}
interface InternalState {
  isDone: boolean;
  actions?: unknown[];
  output?: unknown;
  error?: string;
}
type OrchestratorFunction = (trigger: unknown, context: DummyOrchestrationContext) => Promise<InternalState>;
const { createOrchestrator } = require('durable-functions/lib/src/util/testingUtils') as {
  createOrchestrator(fn: OrchestrationHandler): OrchestratorFunction;
};
const OUT_OF_PROC_DATA = '$OutOfProcData$:';
const ActionType = { CallActivity: 0, CallActivityWithRetry: 1, CallSubOrchestrator: 2, CallSubOrchestratorWithRetry: 3, CreateTimer: 5 } as const;
/** What the extension tells the SDK about timers (replay schema 3): Azure Storage's limits. */
const TIMER_LIMITS = { maximumShortTimerDuration: '6.00:00:00', longRunningTimerIntervalDuration: '3.00:00:00' } as const;
const LATEST_REPLAY_SCHEMA = 3;
// ---------------------------------------------------------------------------------------------------

/** Runs `name` with `input` under `instanceId` until it completes or fails. */
export async function runOrchestration(name: string, input: unknown, instanceId: string, options: ReplayOptions): Promise<ReplayResult> {
  const activityCalls: ActivityCall[] = [];
  const limit = semaphore(options.maxConcurrentActivities ?? 32);
  const run = await drive({ name, input, instanceId, parentInstanceId: '' }, { options, activityCalls, limit });
  return { ...run, activityCalls };
}

/** An injectFailure hook that fails the first `times` attempts of the activity calls `matches` selects. */
export function failFirstAttempts(times: number, matches: (call: ActivityCall) => boolean, message = 'injected transient failure') {
  return (call: ActivityCall): Error | undefined => (matches(call) && call.attempt <= times ? new Error(message) : undefined);
}

interface RunScope {
  readonly options: ReplayOptions;
  readonly activityCalls: ActivityCall[];
  readonly limit: <T>(work: () => Promise<T>) => Promise<T>;
}

interface Invocation {
  readonly name: string;
  readonly input: unknown;
  readonly instanceId: string;
  readonly parentInstanceId: string;
}

/** What one open task turns into: events of the scheduling episode, and the work giving its completion. */
interface Step {
  readonly id: number;
  readonly isSubOrchestration: boolean;
  readonly scheduled: HistoryEventRecord[];
  complete(): Promise<{ events: HistoryEventRecord[]; sub?: OrchestrationRun; firedAt?: Date }>;
}

async function drive(invocation: Invocation, scope: RunScope): Promise<OrchestrationRun> {
  const handler = scope.options.orchestrators[invocation.name];
  if (!handler) throw new Error(`No orchestrator named ${invocation.name} was given to the replay helper`);
  const orchestrator = createOrchestrator(handler);
  const clock = new VirtualClock(scope.options.startAt);
  const history: HistoryEventRecord[] = [
    event(EventType.OrchestratorStarted, clock),
    event(EventType.ExecutionStarted, clock, { Name: invocation.name, Input: JSON.stringify(invocation.input ?? null) }),
  ];
  const subOrchestrations: OrchestrationRun[] = [];
  const scheduledIds = new Set<number>();
  const maxEpisodes = scope.options.maxEpisodes ?? 10000;
  for (let episode = 1; episode <= maxEpisodes; episode++) {
    const context = new DummyOrchestrationContext(invocation.name, `${invocation.instanceId}#${episode}`, () => {});
    const trigger = {
      history: markPlayed(history),
      input: invocation.input,
      instanceId: invocation.instanceId,
      parentInstanceId: invocation.parentInstanceId,
      isReplaying: episode > 1,
      upperSchemaVersion: LATEST_REPLAY_SCHEMA,
      ...TIMER_LIMITS,
    };
    let state: InternalState;
    try {
      state = await orchestrator(trigger, context);
    } catch (thrown) {
      const failed = failureState(thrown);
      return { ...invocation, status: 'failed', error: failed.error, history, episodes: episode, subOrchestrations, actions: flattenActions(failed.state?.actions) };
    }
    if (state.isDone) {
      return { ...invocation, status: 'completed', output: state.output, history, episodes: episode, subOrchestrations, actions: flattenActions(state.actions) };
    }

    const executor = (context.df as unknown as { taskOrchestratorExecutor: { openTasks: Record<string, InternalTask> } }).taskOrchestratorExecutor;
    const open = Object.entries(executor.openTasks).sort(([a], [b]) => Number(a) - Number(b));
    if (open.length === 0) throw new Error(`${invocation.name} (${invocation.instanceId}) waits on nothing the helper can complete`);
    const steps = open.map(([id, task]) => stepFor(Number(id), task, invocation, clock, scope));
    // A task held open from an earlier episode was scheduled then; it is not scheduled again.
    const fresh = steps.filter((step) => !scheduledIds.has(step.id));
    for (const step of fresh) scheduledIds.add(step.id);
    history.push(...fresh.flatMap((step) => step.scheduled), event(EventType.OrchestratorCompleted, clock));
    const holdSubs = scope.options.subOrchestrationsLast === true && steps.some((step) => !step.isSubOrchestration);
    const due = holdSubs ? steps.filter((step) => !step.isSubOrchestration) : steps;
    const completions = await Promise.all(due.map((step) => step.complete()));
    // A durable timer that fired means its fire time has come: the next episode starts then.
    clock.tick(...completions.flatMap((completion) => (completion.firedAt ? [completion.firedAt] : [])));
    history.push(event(EventType.OrchestratorStarted, clock), ...completions.flatMap((completion) => completion.events));
    for (const completion of completions) if (completion.sub) subOrchestrations.push(completion.sub);
  }
  throw new Error(`${invocation.name} (${invocation.instanceId}) did not finish within ${maxEpisodes} episodes`);
}

function stepFor(id: number, task: InternalTask, invocation: Invocation, clock: VirtualClock, scope: RunScope): Step {
  const action = task.actionObj;
  if (action === 'noOp' || action === undefined) {
    // A NoOp task belongs to a RetryableTask: either its retry timer or its next attempt.
    const retryable = task.parent;
    const retried = retryable?.actionObj;
    if (!retryable || typeof retried !== 'object') throw new Error(`Open task ${id} is not one the helper knows`);
    if (retryable.isWaitingOnTimer) {
      const attempt = (retryable.attemptNumber ?? 2) - 1;
      const fireAt = clock.after(retryDelayInMs(retried.retryOptions, attempt)).toISOString();
      return {
        id,
        isSubOrchestration: false,
        scheduled: [event(EventType.TimerCreated, clock, { FireAt: fireAt }, id)],
        complete: async () => ({ events: [event(EventType.TimerFired, clock, { TimerId: id, FireAt: fireAt })] }),
      };
    }
    return actionStep(id, retried, retryable.attemptNumber ?? 1, invocation, clock, scope);
  }
  return actionStep(id, action, 1, invocation, clock, scope);
}

function actionStep(id: number, action: InternalAction, attempt: number, invocation: Invocation, clock: VirtualClock, scope: RunScope): Step {
  // Activity actions carry a string input JSON-encoded (durable-functions' Utils.processInput); the
  // extension hands the activity the decoded value. Anything else is copied as the wire would.
  const input =
    action.input === undefined
      ? undefined
      : typeof action.input === 'string' && action.actionType <= ActionType.CallActivityWithRetry
        ? JSON.parse(action.input)
        : JSON.parse(JSON.stringify(action.input));
  switch (action.actionType) {
    case ActionType.CallActivity:
    case ActionType.CallActivityWithRetry:
      return {
        id,
        isSubOrchestration: false,
        scheduled: [event(EventType.TaskScheduled, clock, { Name: action.functionName, Input: JSON.stringify(input ?? null) }, id)],
        complete: async () => {
          const call: ActivityCall = { name: action.functionName, input, attempt, instanceId: invocation.instanceId };
          try {
            const result = await scope.limit(() => runActivity(call, scope));
            return { events: [event(EventType.TaskCompleted, clock, { TaskScheduledId: id, Result: JSON.stringify(result ?? null) })] };
          } catch (thrown) {
            const error = thrown instanceof Error ? thrown : new Error(String(thrown));
            const Reason = `Activity function '${action.functionName}' failed: ${error.message}`;
            return { events: [event(EventType.TaskFailed, clock, { TaskScheduledId: id, Reason, Details: error.stack ?? error.message })] };
          }
        },
      };
    case ActionType.CallSubOrchestrator:
    case ActionType.CallSubOrchestratorWithRetry: {
      const instanceId = action.instanceId ?? `${invocation.instanceId}:${id}`;
      return {
        id,
        isSubOrchestration: true,
        scheduled: [event(EventType.SubOrchestrationInstanceCreated, clock, { Name: action.functionName, InstanceId: instanceId, Input: JSON.stringify(input ?? null) }, id)],
        complete: async () => {
          const sub = await drive({ name: action.functionName, input, instanceId, parentInstanceId: invocation.instanceId }, scope);
          const events =
            sub.status === 'completed'
              ? [event(EventType.SubOrchestrationInstanceCompleted, clock, { TaskScheduledId: id, Result: JSON.stringify(sub.output ?? null) })]
              : [event(EventType.SubOrchestrationInstanceFailed, clock, { TaskScheduledId: id, Reason: `Orchestrator function '${action.functionName}' failed: ${sub.error}`, Details: '' })];
          return { events, sub };
        },
      };
    }
    case ActionType.CreateTimer: {
      // A durable timer: time is virtual, so it fires in the next episode, the clock moved to its due time.
      const fireAt = new Date(action.fireAt!);
      const FireAt = fireAt.toISOString();
      return {
        id,
        isSubOrchestration: false,
        scheduled: [event(EventType.TimerCreated, clock, { FireAt }, id)],
        complete: async () => ({ events: [event(EventType.TimerFired, clock, { TimerId: id, FireAt })], firedAt: fireAt }),
      };
    }
    default:
      throw new Error(`The replay helper does not support action type ${action.actionType}`);
  }
}

async function runActivity(call: ActivityCall, scope: RunScope): Promise<unknown> {
  scope.activityCalls.push(call);
  const injected = scope.options.injectFailure?.(call);
  if (injected) throw injected;
  const activity = scope.options.activities[call.name];
  if (!activity) throw new Error(`No activity named ${call.name} was given to the replay helper`);
  // Round-trip through JSON as the host does, so no object is shared between activity and orchestrator.
  const result = await activity(call.input);
  return result === undefined ? undefined : JSON.parse(JSON.stringify(result));
}

/** The extension's retry delay before attempt `failedAttempt + 1`. */
function retryDelayInMs(options: InternalRetryOptions | undefined, failedAttempt: number): number {
  if (!options) return 0;
  const delay = options.firstRetryIntervalInMilliseconds * Math.pow(options.backoffCoefficient ?? 1, failedAttempt - 1);
  return Math.min(delay, options.maxRetryIntervalInMilliseconds ?? Number.POSITIVE_INFINITY);
}

/** The orchestrator's own error and final state, from the OrchestrationFailureError the package throws. */
function failureState(thrown: unknown): { error: string; state?: InternalState } {
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  const at = message.indexOf(OUT_OF_PROC_DATA);
  if (at < 0) return { error: message };
  const state = JSON.parse(message.slice(at + OUT_OF_PROC_DATA.length)) as InternalState;
  return { error: state.error ?? message, state };
}

/** Actions in order, compound ones (Task.all/any) replaced by their parts. */
function flattenActions(actions: unknown[] | undefined): ScheduledAction[] {
  const flat: ScheduledAction[] = [];
  const visit = (item: unknown): void => {
    if (Array.isArray(item)) return item.forEach(visit);
    const action = item as InternalAction & { compoundActions?: unknown[] };
    if (action.compoundActions) return action.compoundActions.forEach(visit);
    flat.push({ actionType: action.actionType, functionName: action.functionName, ...(action.instanceId ? { instanceId: action.instanceId } : {}) });
  };
  visit(actions ?? []);
  return flat;
}

function event(EventType: number, clock: VirtualClock, fields: Record<string, unknown> = {}, EventId = -1): HistoryEventRecord {
  return { EventType, EventId, IsPlayed: false, Timestamp: clock.now().toISOString(), ...fields };
}

/** Events before the last OrchestratorStarted were seen by an earlier episode. */
function markPlayed(history: HistoryEventRecord[]): HistoryEventRecord[] {
  let last = -1;
  history.forEach((record, index) => {
    if (record.EventType === EventType.OrchestratorStarted) last = index;
  });
  history.forEach((record, index) => {
    record.IsPlayed = index < last;
  });
  return history;
}

class VirtualClock {
  private at: number;
  constructor(start = '2026-01-01T00:00:00.000Z') {
    this.at = Date.parse(start);
  }
  now(): Date {
    return new Date(this.at);
  }
  after(delayInMs: number): Date {
    return new Date(this.at + delayInMs);
  }
  /** A second on, or to the latest of `firedAt` (timers that fired) if that is later. */
  tick(...firedAt: Date[]): void {
    this.at = Math.max(this.at + 1000, ...firedAt.map((date) => date.getTime()));
  }
}

function semaphore(size: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (work) => {
    while (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
