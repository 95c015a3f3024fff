/**
 * @module Errors that are handled, decided (README, "Errors that are handled"). When a step of a
 * trigger's application fails (a StepFailure), in this order:
 *
 * 1. its retry policy asked for a wait that does not fit in place (a RetryLaterError): the instance
 *    records a pending retry and a `timer` outbox row schedules its re-application (unless another
 *    trigger's retry is pending already: then the error is final);
 * 2. else the transition's `onError` that handles the error's type, then the failing step's state's: the
 *    instance goes to its target state instead of faulting;
 * 3. else nothing: the caller faults the instance, as before.
 *
 * A pending retry's trigger (internal kind `retry`) re-applies the trigger that failed, once: it is stale (the
 * answer is `notInterested`) unless the instance of that incarnation still waits for exactly that attempt,
 * and whatever the re-application decides clears (or replaces) the pending retry in the same save.
 */
import type { Cause, Decision, LogLine } from './decision';
import { unchanged, withEntryActor } from './decision';
import { faultDecision } from './decide-fault';
import type { StateDefinition, TransitionDefinition, WorkflowDefinition } from '../definition/definition';
import { shortDetail, statePath } from './decision-trace';
import type { Effects } from '../steps/effects';
import { InstanceStatus, TriggerOutcome, inactiveStatuses } from '../model/enums';
import { afterEntering, enterState } from './enter-state';
import { handles, type OnErrorDefinition } from '../definition/error-handling';
import type { StepError } from '../model/step-error';
import { evaluateExpression } from '../expressions/expressions';
import { HistoryEvent, type Instance, type PendingRetry } from '../model/instance';
import { rememberApplied, withoutFault, withoutPendingRetry } from './instance-changes';
import type { JsonValue } from '../model/json';
import type { InstanceResult } from './instance-result';
import { RetryLaterError } from '../steps/outbound-port';
import { OutboxKind } from '../model/outbox';
import type { Registry } from '../steps/registry';
import { Draft, messageOf, type StepFailure } from './draft';
import { retryTimerOf } from './timers';
import type { Trigger } from '../model/trigger';
import { withoutInternalKind, type RetryTarget } from '../model/internal-trigger';

/** Where a step failed: the transition being evaluated or taken (if any), and the state the step belongs to. */
export interface FailureSite {
  readonly transition?: { readonly definition: TransitionDefinition; readonly index: number };
  readonly stateId: string;
  readonly fromStateId: string;
}

export interface FailureContext {
  readonly definition: WorkflowDefinition;
  readonly instance: Instance;
  readonly trigger: Trigger;
  readonly cause: Cause;
  readonly effects: Effects;
  readonly registry: Registry;
  /** The working copy that failed: its trace and logs are kept. */
  readonly draft: Draft;
}

/** The retry policy's RetryLaterError behind a step failure, if that is what it was. */
function retryLaterOf(failure: StepFailure): RetryLaterError | undefined {
  for (let cause: unknown = failure.cause; cause instanceof Error; cause = cause.cause) if (cause instanceof RetryLaterError) return cause;
  return undefined;
}

/**
 * What a failed step leads to, or undefined when nothing handles it (the caller faults the instance).
 * Never throws: a failure while handling faults the instance, naming both errors.
 */
export async function decideStepFailure(failure: StepFailure, site: FailureSite, context: FailureContext): Promise<Decision | undefined> {
  const { instance, trigger } = context;
  let error = failure.error;
  const retryLater = retryLaterOf(failure);
  if (retryLater) {
    // One pending retry per instance: another trigger's keeps its place, and this error is final.
    const pending = instance.pendingRetry;
    if (!pending || pending.triggerId === trigger.id) return scheduleRetry(retryLater, error, site, context);
    error = { ...error, message: `${error.message} (not retried later: trigger "${pending.triggerId}" is waiting for its own retry)` };
  }
  const state = context.definition.states[site.stateId];
  const transitionHandler = site.transition && handles(site.transition.definition.onError, error) ? site.transition : undefined;
  if (transitionHandler) {
    const path = `${statePath(site.fromStateId, `transitions[${transitionHandler.index}]`)}.onError`;
    return decideOnError(transitionHandler.definition.onError!, path, error, site, context);
  }
  if (state && handles(state.onError, error)) return decideOnError((state as StateDefinition).onError!, statePath(site.stateId, 'onError'), error, site, context);
  return undefined;
}

function scheduleRetry(retryLater: RetryLaterError, error: StepError, site: FailureSite, context: FailureContext): Decision {
  const { instance, trigger, effects, draft } = context;
  const now = effects.now();
  const nextAttemptAt = new Date(now.getTime() + retryLater.delayInMs).toISOString();
  const lastError = retryLater.lastError;
  const pendingRetry: PendingRetry = {
    triggerId: trigger.id,
    triggerName: trigger.name,
    attempt: retryLater.attempt,
    nextAttemptAt,
    stepPath: error.stepPath,
    lastError: { type: lastError.type, message: shortDetail(lastError.message), ...(lastError.status !== undefined ? { status: lastError.status } : {}) },
  };
  // The trigger as delivered, without what marks a re-application: it is applied again as itself.
  const retryTrigger = withoutInternalKind(trigger, 'retry');
  // The instance as it was loaded: nothing the failed attempt did is kept (it did not happen).
  const next: Instance = { ...instance, pendingRetry, retryTrigger, updatedAt: now.toISOString() };
  const timer = retryTimerOf(next)!;
  draft.trace.push({
    path: error.stepPath,
    type: 'retry',
    result: 'error',
    detail: shortDetail(`attempt ${retryLater.attempt - 1} failed (${lastError.type}); attempt ${retryLater.attempt} at ${nextAttemptAt}: ${lastError.message}`),
  });
  const result: InstanceResult = { instanceId: instance.id, outcome: TriggerOutcome.retryScheduled, fromStateId: site.fromStateId, error: shortDetail(error.message) };
  return { result, change: { instance: { ...next, outbox: [...instance.outbox, timer.timerId] }, outbox: [{ id: timer.timerId, kind: OutboxKind.timer, payload: timer }] }, logs: draft.logs };
}

async function decideOnError(onError: OnErrorDefinition, handlerPath: string, error: StepError, site: FailureSite, context: FailureContext): Promise<Decision> {
  const { definition, instance, trigger, effects, registry, cause, draft: failed } = context;
  const fromStateId = site.fromStateId;
  const transitionId = site.transition?.definition.id;
  // From the instance as it was loaded: the failed attempt's context changes and raised triggers are dropped.
  const draft = new Draft(definition, instance.workflowVersion, instance.id, trigger, effects, registry, instance);
  draft.trace.push(...failed.trace, { path: handlerPath, type: 'onError', result: true, detail: shortDetail(`${error.type} at ${error.stepPath} → "${onError.targetStateId}"`) });
  const logs: LogLine[] = [...failed.logs];
  try {
    draft.error = error;
    const set: Record<string, JsonValue | undefined> = {};
    for (const [key, expression] of Object.entries(onError.setContext ?? {})) {
      try {
        set[key] = await evaluateExpression(expression, draft.scope(), { now: () => effects.now() });
      } catch (cause) {
        throw new Error(`onError setContext "${key}": ${messageOf(cause)}`, { cause });
      }
    }
    draft.context = { ...draft.context, ...Object.fromEntries(Object.entries(set).filter(([, value]) => value !== undefined)) } as typeof draft.context;
    draft.error = undefined;
    const toStateId = onError.targetStateId;
    const entered = await enterState(draft, cause, toStateId, instance.historyLength);
    logs.push(...draft.logs);
    const result: InstanceResult = { instanceId: instance.id, outcome: TriggerOutcome.errorHandled, ...(transitionId ? { transitionId } : {}), fromStateId, toStateId, error: error.message };
    const at = effects.now().toISOString();
    const next = afterEntering(
      withoutFault(instance),
      { ...entered, stateId: toStateId },
      { context: draft.context, at, appliedTriggers: rememberApplied(instance, trigger.id, result), historyLength: instance.historyLength + 1 },
    );
    return {
      result: { ...result, trace: draft.trace },
      change: {
        instance: next,
        historyEntry: {
          sequence: instance.historyLength,
          at,
          event: HistoryEvent.errorHandled,
          triggerId: trigger.id,
          transitionId: transitionId ?? null,
          fromStateId,
          toStateId,
          status: entered.status,
          error,
        },
        outbox: entered.outbox,
      },
      logs,
    };
  } catch (handlingError) {
    const message = `${error.message}; then its onError (${handlerPath}) failed: ${messageOf(handlingError)}`;
    const decision = faultDecision(instance, message, { cause, stateId: fromStateId, context: instance.context, ...(transitionId ? { transitionId } : {}), fromStateId, now: effects.now(), logs });
    return { ...decision, result: { ...decision.result, trace: draft.trace } };
  }
}

/**
 * A pending retry's trigger: re-applies the trigger it waits for, through `decide` (the ordinary
 * decision, told which step resumes counting at which attempt), when it is still the one pending.
 * Whatever that decides, the pending retry is cleared or replaced by a new one in the same save.
 */
export async function decideRetry(instance: Instance, trigger: Trigger, target: RetryTarget, decide: (retried: Trigger, pending: PendingRetry) => Promise<Decision>, now: Date): Promise<Decision> {
  const pending = instance.pendingRetry;
  const current =
    pending &&
    instance.retryTrigger &&
    target.incarnation === instance.incarnation &&
    pending.triggerId === target.triggerId &&
    pending.attempt === target.attempt &&
    retryTimerOf(instance)?.timerId === trigger.id;
  if (!current) return unchanged({ instanceId: instance.id, outcome: TriggerOutcome.notInterested });
  // Suspended (or faulted): the retry waits; a resume schedules it again (decide-suspend.ts).
  if (inactiveStatuses.has(instance.status)) return unchanged({ instanceId: instance.id, outcome: TriggerOutcome.notActive });
  const retried = instance.retryTrigger!;
  const decided = await decide(retried, pending);
  // The later attempt applies the sender's trigger: its entry names the sender, not the wake-up that ran it.
  const decision = withEntryActor(decided, retried.actor);
  const change = decision.change;
  if (change && change.instance.pendingRetry !== pending) return decision;
  const cleared = withoutPendingRetry(change ? change.instance : { ...instance, updatedAt: now.toISOString() });
  return { ...decision, change: { ...(change ?? { outbox: [] }), instance: cleared } };
}

/** A change that ends its instance (complete, faulted, cancelled) drops its pending retry: nothing would take it. */
export function withoutRetryWhenEnded(decision: Decision): Decision {
  const change = decision.change;
  if (!change?.instance.pendingRetry || change.instance.status === InstanceStatus.waiting || change.instance.status === InstanceStatus.suspended) return decision;
  return { ...decision, change: { ...change, instance: withoutPendingRetry(change.instance) } };
}
