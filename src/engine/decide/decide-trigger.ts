/**
 * @module Applying a trigger to one instance, decided: steps 2-10 of shared/design/workflow-model.md
 * (a timer's trigger, timers.ts, considers only its own transition at step 5, and a stale one is
 * `notInterested`). It
 * writes nothing and reaches the world only through `effects` (conditions may call out; actions' calls
 * are journaled by the runtime). A failing condition or action is an outcome (`faulted`), never a throw.
 */
import type { WorkflowDefinition } from '../definition/definition';
import type { Cause, Decision } from './decision';
import { unchanged } from './decision';
import { shortDetail, statePath } from './decision-trace';
import { faultDecision } from './decide-fault';
import type { Effects } from '../steps/effects';
import { TriggerOutcome, inactiveStatuses } from '../model/enums';
import { afterEntering, automaticStepEntry, entriesOfEntry, entryBlockedAt, enterState, followAutomaticTransitions, settleEntry } from './enter-state';
import { selfCausedFault, withSelfCausedCount } from './causal-budget';
import { decideAddressed } from './held-triggers';
import { HistoryEvent, type Instance } from '../model/instance';
import { appliedRecord, duplicateResult, plainInstance, rememberApplied, withoutFault } from './instance-changes';
import type { InstanceResult } from './instance-result';
import type { Registry } from '../steps/registry';
import { Draft, StepFailure, messageOf } from './draft';
import { decideRetry, decideStepFailure, withoutRetryWhenEnded, type FailureSite } from './decide-error';
import { reofferedTrigger, type Trigger } from '../model/trigger';
import { internalKindOf, type CapacityRoom, type TimerTarget } from '../model/internal-trigger';
import { judgeActors, type ActorsRule } from '../definition/actors-rule';
import { debounceOf, decideDebounce, decideDebounceRelease, withoutDebouncesWhenEnded } from './debounce';

function sharesSubject(interests: readonly string[], subjects: readonly string[]): boolean {
  // Interests are few (tens), subjects at most 100: a linear scan beats building a set.
  for (const subject of subjects) if (interests.includes(subject)) return true;
  return false;
}

/** Whether the timer is armed for the instance's current state entry (not stale, not spent), by this incarnation. */
function isArmed(instance: Instance, timer: TimerTarget): boolean {
  return timer.incarnation === instance.incarnation && instance.stateEntry === timer.stateEntry && (instance.timers ?? []).some((armed) => armed.transitionId === timer.transitionId);
}

/**
 * A trigger that moved nothing. For an ordinary trigger nothing is saved. A timer that fired and did not
 * take its transition (conditions false, exit or entry blocked) is spent: it is removed from the
 * instance's timers (one save, no history entry), so it neither shows as armed nor fires again.
 */
function notTaken(instance: Instance, timer: TimerTarget | undefined, result: InstanceResult, effects: Effects, draft: Draft): Decision {
  if (!timer) return unchanged(result, draft.logs);
  const next: Instance = {
    ...instance,
    timers: (instance.timers ?? []).filter((armed) => armed.transitionId !== timer.transitionId),
    updatedAt: effects.now().toISOString(),
  };
  return { result, change: { instance: next, outbox: [] }, logs: draft.logs };
}

/**
 * Decides what `trigger` does to `stored`. Each result carries the trace of the conditions evaluated
 * (none when the trigger stopped before any: duplicate, not active, not interested). `onDraft` sees the
 * working copy once deciding is done: a dry run reads the context after, the raised triggers and the
 * actions from it (dry-run.ts).
 */
export async function decideTrigger(definition: WorkflowDefinition, stored: Instance, trigger: Trigger, effects: Effects, registry: Registry, onDraft?: (draft: Draft) => void): Promise<Decision> {
  let draft: Draft | undefined;
  const instance = plainInstance(stored);
  let decision: Decision;
  const retry = internalKindOf(trigger, 'retry');
  const debounceDue = internalKindOf(trigger, 'debounce');
  if (retry) {
    // A pending retry's trigger: the failed trigger again, its failing step counting on from the attempt due.
    decision = await decideRetry(
      instance,
      trigger,
      retry,
      (retried, pending) =>
        decideWithDraft(definition, instance, retried, effects, registry, (made) => {
          made.retryStart = { stepPath: pending.stepPath, attempt: pending.attempt };
          draft = made;
        }),
      effects.now(),
    );
  } else if (debounceDue) {
    // A debounce's trigger: the burst held back, applied as its latest trigger (debounce.ts).
    decision = await decideDebounceRelease(
      instance,
      trigger,
      debounceDue,
      (applied, without) => decideWithDraft(definition, without, applied, effects, registry, (made) => (draft = made)),
      effects.now(),
    );
  } else if (instance.pendingRetry?.triggerId === trigger.id && !appliedRecord(instance, trigger.id)) {
    // Delivered again while it waits for its retry: it applies once, when the retry comes.
    return unchanged({ instanceId: instance.id, outcome: TriggerOutcome.retryScheduled, error: instance.pendingRetry.lastError.message });
  } else {
    decision = await decideWithDraft(definition, instance, trigger, effects, registry, (made) => (draft = made));
  }
  decision = withoutDebouncesWhenEnded(withoutRetryWhenEnded(decision));
  if (!draft) return decision;
  onDraft?.(draft);
  // After rememberApplied: the instance's record of applied triggers stays small, the trace is the result's.
  // Nothing evaluated (a timer transition without conditions, say): no trace, as for a duplicate.
  if (draft.trace.length === 0 || decision.result.trace) return decision;
  return { ...decision, result: { ...decision.result, trace: draft.trace } };
}

async function decideWithDraft(definition: WorkflowDefinition, stored: Instance, trigger: Trigger, effects: Effects, registry: Registry, madeDraft: (draft: Draft) => void): Promise<Decision> {
  const instance = plainInstance(stored);
  const id = instance.id;
  // Each trigger applies once: a repeated delivery answers from the instance's record of what it did,
  // whatever has happened since (it may have completed or faulted the instance, or moved it on).
  const applied = appliedRecord(instance, trigger.id);
  if (applied) return unchanged(duplicateResult(id, applied));
  // A trigger for one instance (a child's notification): for this incarnation only, held while it cannot take it.
  const addressed = await decideAddressed(instance, trigger, effects.now(), (without, held) => decideWithDraft(definition, without, held, effects, registry, madeDraft));
  if (addressed) return addressed;
  // A trigger that waited for room in a full state, offered again (capacity-reoffers.ts): the trigger itself is applied, under its own id.
  const reoffer = internalKindOf(trigger, 'capacityReoffer');
  if (reoffer) return decideWithDraft(definition, instance, reofferedTrigger(trigger, reoffer), effects, registry, madeDraft);
  // Step 2: only waiting (or initializing) instances take triggers (and fire timers).
  if (inactiveStatuses.has(instance.status)) return unchanged({ instanceId: id, outcome: TriggerOutcome.notActive });
  // Step 3: a stale index may offer a trigger the instance no longer wants. A timer's trigger is addressed
  // to the instance itself; what can be stale is the timer: armed for an entry the instance has left
  // (even if it came back since), or already spent. Stale: nothing saved, as for a stale interest.
  const timer = internalKindOf(trigger, 'timer');
  if (timer ? !isArmed(instance, timer) : !sharesSubject(instance.interests, trigger.subjects)) {
    return unchanged({ instanceId: id, outcome: TriggerOutcome.notInterested });
  }
  // Room freed in a full state an automatic transition of this one waits for: its automatic transitions, again.
  const room = internalKindOf(trigger, 'capacityRoom');
  if (room) return decideCapacityRoom(definition, instance, trigger, room, effects, registry, madeDraft);
  // `flow.debounce`: a trigger of a debounced name waits for its burst to go quiet (debounce.ts).
  const debounce = debounceOf(definition, trigger);
  if (debounce) {
    const scope = { trigger, actor: trigger.actor ?? null, context: instance.context, instance: { id, workflowId: instance.workflowId, stateId: instance.stateId, status: instance.status } };
    return decideDebounce(instance, trigger, debounce, scope, effects);
  }
  const cause: Cause = { kind: 'trigger', trigger };
  const fromStateId = instance.stateId;
  // One change too many made by the instance to itself within a minute: a loop, stopped before it runs.
  const overrun = selfCausedFault(instance, trigger, effects.now());
  if (overrun)
    return faultDecision(instance, overrun, { cause, stateId: fromStateId, context: instance.context, ...(timer ? { transitionId: timer.transitionId } : {}), fromStateId, now: effects.now() });
  const draft = new Draft(definition, instance.workflowVersion, id, trigger, effects, registry, instance);
  madeDraft(draft);
  let transitionId: string | undefined;
  // Where a failing step is, for `onError`: the transition being evaluated or taken, and the step's state.
  let site: FailureSite = { stateId: fromStateId, fromStateId };
  try {
    const state = definition.states[fromStateId];
    if (!state) throw new Error(`the instance's state "${fromStateId}" is not in version ${instance.workflowVersion} of workflow "${definition.id}"`);

    // Step 4: exit conditions.
    if ((await draft.firstFalse(state.exitConditions, `exit condition of state "${fromStateId}"`, statePath(fromStateId, 'exitConditions'))) >= 0) {
      return notTaken(instance, timer, { instanceId: id, outcome: TriggerOutcome.exitBlocked, fromStateId }, effects, draft);
    }
    // Step 5: the first transition whose conditions all hold: for a timer, only its own transition;
    // otherwise every transition but timer transitions (only their timers choose them).
    let chosen: (typeof state.transitions)[number] | undefined;
    for (const [index, transition] of state.transitions.entries()) {
      if (timer ? transition.id !== timer.transitionId : transition.timer) continue;
      site = { transition: { definition: transition, index }, stateId: fromStateId, fromStateId };
      // Who may take it, first among its conditions: a refusal is this transition not taken, traced, never a fault.
      if (transition.actors && !(await actorsAllow(draft, transition.actors, statePath(fromStateId, `transitions[${index}].actors`)))) continue;
      const path = statePath(fromStateId, `transitions[${index}].conditions`);
      if ((await draft.firstFalse(transition.conditions, `condition of transition "${transition.id}" of state "${fromStateId}"`, path)) < 0) {
        chosen = transition;
        break;
      }
    }
    if (!chosen) return notTaken(instance, timer, { instanceId: id, outcome: TriggerOutcome.noTransition, fromStateId }, effects, draft);
    transitionId = chosen.id;
    const toStateId = chosen.targetStateId;
    if (!definition.states[toStateId]) throw new Error(`transition "${chosen.id}" names a missing state "${toStateId}"`);

    // Step 6: entry conditions of the target (a failing entry step is the target's, after the transition's onError).
    site = { ...site, stateId: toStateId };
    if ((await entryBlockedAt(draft, toStateId)) >= 0) {
      return notTaken(instance, timer, { instanceId: id, outcome: TriggerOutcome.entryBlocked, fromStateId, transitionId, toStateId }, effects, draft);
    }
    // Into a full state with `capacity`: the trigger waits for room before any action runs (nothing saved).
    const held = toStateId === fromStateId ? undefined : await effects.beforeEntering?.(toStateId, trigger);
    if (held) return unchanged({ instanceId: id, outcome: held, fromStateId, transitionId, trace: draft.trace }, draft.logs);
    // Step 7: exit actions, then the transition's actions (a fault here leaves the old state).
    site = { ...site, stateId: fromStateId };
    await draft.runActions(state.exitActions, `exit action of state "${fromStateId}"`, statePath(fromStateId, 'exitActions'));
    await draft.runActions(chosen.actions, `action of transition "${chosen.id}"`, statePath(fromStateId, `transitions[${site.transition!.index}].actions`));
    site = { ...site, stateId: toStateId };
    // Steps 8-10: move, entry actions (a fault there leaves the new state), automatic transitions, interests, outbox.
    const entered = await enterState(draft, cause, toStateId, instance.historyLength);

    // `toStateId`: where the change leaves the instance (after its automatic transitions, if any).
    const result: InstanceResult = { instanceId: id, outcome: TriggerOutcome.transitioned, transitionId: chosen.id, fromStateId, toStateId: entered.stateId };
    const at = effects.now().toISOString();
    const next: Instance = withSelfCausedCount(
      afterEntering(withoutFault(instance), entered, { context: draft.context, at, appliedTriggers: rememberApplied(instance, trigger.id, result), historyLength: entered.stateEntry + 1 }),
      trigger,
      effects.now(),
    );
    return {
      result,
      change: {
        instance: next,
        ...entriesOfEntry(
          { sequence: instance.historyLength, at, event: HistoryEvent.transitioned, triggerId: trigger.id, transitionId: chosen.id, fromStateId, toStateId, status: entered.status },
          entered.automaticSteps,
        ),
        outbox: entered.outbox,
      },
      logs: draft.logs,
    };
  } catch (error) {
    if (error instanceof StepFailure) {
      const handled = await decideStepFailure(error, site, { definition, instance, trigger, cause, effects, registry, draft });
      if (handled) return handled;
    }
    return faultDecision(instance, messageOf(error), {
      cause,
      stateId: draft.stateId,
      context: draft.context,
      ...(transitionId ? { transitionId } : {}),
      fromStateId,
      now: effects.now(),
      logs: draft.logs,
    });
  }
}

/**
 * The trigger an instance waits with while an automatic transition of its state is not taken because its
 * target is full (`capacity`), offered again when room frees: the state's automatic transitions are taken
 * again from where the instance is, in one change, as on entering it, and nothing else. Still full:
 * `capacityQueued` (it keeps its place); moved on since, or no automatic transition holds any more:
 * `noTransition` (it leaves the queue).
 */
async function decideCapacityRoom(
  definition: WorkflowDefinition,
  instance: Instance,
  trigger: Trigger,
  room: CapacityRoom,
  effects: Effects,
  registry: Registry,
  madeDraft: (draft: Draft) => void,
): Promise<Decision> {
  const id = instance.id;
  const fromStateId = instance.stateId;
  if (room.stateId !== fromStateId) return unchanged({ instanceId: id, outcome: TriggerOutcome.noTransition, fromStateId });
  const cause: Cause = { kind: 'trigger', trigger };
  const draft = new Draft(definition, instance.workflowVersion, id, trigger, effects, registry, instance);
  madeDraft(draft);
  try {
    const steps = await followAutomaticTransitions(draft);
    if (steps.length === 0) {
      const full = draft.trace.some((entry) => entry.type === 'capacity' && entry.result === false);
      return unchanged({ instanceId: id, outcome: full ? TriggerOutcome.capacityQueued : TriggerOutcome.noTransition, fromStateId }, draft.logs);
    }
    const at = effects.now().toISOString();
    const entered = await settleEntry(draft, cause, instance.historyLength + steps.length - 1, effects.now(), steps);
    const result: InstanceResult = { instanceId: id, outcome: TriggerOutcome.transitioned, transitionId: steps[0]!.transitionId, fromStateId, toStateId: entered.stateId };
    const entries = steps.map((step, index) => automaticStepEntry(step, instance.historyLength + index, at, trigger.id));
    const next = afterEntering(instance, entered, { context: draft.context, at, appliedTriggers: rememberApplied(instance, trigger.id, result), historyLength: entered.stateEntry + 1 });
    return {
      result,
      change: { instance: next, historyEntry: entries[entries.length - 1]!, ...(entries.length > 1 ? { precedingEntries: entries.slice(0, -1) } : {}), outbox: entered.outbox },
      logs: draft.logs,
    };
  } catch (error) {
    return faultDecision(instance, messageOf(error), { cause, stateId: draft.stateId, context: draft.context, fromStateId, now: effects.now(), logs: draft.logs });
  }
}

/** The transition's `actors` rule for the draft's actor, traced as a condition of type `actor`. */
async function actorsAllow(draft: Draft, rule: ActorsRule, path: string): Promise<boolean> {
  const verdict = await judgeActors(rule, draft.trigger?.actor, draft.scope(), () => draft.effects.now());
  draft.trace.push({ path, type: 'actor', result: verdict.allowed, detail: shortDetail(verdict.detail) });
  return verdict.allowed;
}
