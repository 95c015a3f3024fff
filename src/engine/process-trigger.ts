/**
 * @module The pure trigger processor: steps 2-10 of shared/design/workflow-model.md. It returns what
 * should be saved (or that nothing should) and the triggers to raise after the save; it writes nothing
 * and reaches the world only through `effects`. A failing condition or action is an outcome (`faulted`),
 * never a throw.
 */
import { isFinalState, type WorkflowDefinition } from './definition';
import type { Effects } from './effects';
import { InstanceStatus, TriggerOutcome, inactiveStatuses } from './enums';
import { HistoryEvent, type HistoryEntry, type Instance, type RaisedTrigger } from './instance';
import { plainInstance, rememberTriggerId, withTriggerIds, withoutFault } from './instance-changes';
import { computeInterests } from './interests';
import type { InstanceResult } from './operation';
import { Draft, messageOf } from './run-steps';
import type { Trigger } from './trigger';

export interface ProcessResult {
  readonly outcome: TriggerOutcome;
  /** The instance to save when `historyEntry` is set; otherwise the instance as given. */
  readonly instance: Instance;
  /** Present exactly when something changed and must be saved (with this entry, atomically). */
  readonly historyEntry?: HistoryEntry;
  /** Triggers raised by actions, also appended to `instance.pendingTriggers` (the outbox). */
  readonly raisedTriggers: readonly RaisedTrigger[];
  readonly result: InstanceResult;
}

function unchanged(instance: Instance, outcome: TriggerOutcome, extra: Partial<InstanceResult> = {}): ProcessResult {
  return { outcome, instance, raisedTriggers: [], result: { instanceId: instance.id, outcome, ...extra } };
}

function sharesSubject(interests: readonly string[], subjects: readonly string[]): boolean {
  // Interests are few (tens), subjects at most 100: a linear scan beats building a set.
  for (const subject of subjects) if (interests.includes(subject)) return true;
  return false;
}

export async function processTrigger(definition: WorkflowDefinition, stored: Instance, trigger: Trigger, effects: Effects): Promise<ProcessResult> {
  const instance = plainInstance(stored);
  // Step 2: only waiting (or initializing) instances take triggers.
  if (inactiveStatuses.has(instance.status)) return unchanged(instance, TriggerOutcome.notActive);
  // Step 3: a stale index may offer a trigger the instance no longer wants; and each trigger applies once.
  if (!sharesSubject(instance.interests, trigger.subjects)) return unchanged(instance, TriggerOutcome.notInterested);
  if (instance.appliedTriggerIds.includes(trigger.id)) return unchanged(instance, TriggerOutcome.duplicate);

  const fromStateId = instance.stateId;
  const draft = new Draft(definition, instance.workflowVersion, instance.id, trigger, effects, instance);
  let transitionId: string | undefined;
  try {
    const state = definition.states[fromStateId];
    if (!state) throw new Error(`the instance's state "${fromStateId}" is not in version ${instance.workflowVersion} of workflow "${definition.id}"`);

    // Step 4: exit conditions.
    if ((await draft.firstFalse(state.exitConditions, `exit condition of state "${fromStateId}"`)) >= 0) {
      return unchanged(instance, TriggerOutcome.exitBlocked, { fromStateId });
    }
    // Step 5: the first transition whose conditions all hold.
    let chosen: (typeof state.transitions)[number] | undefined;
    for (const transition of state.transitions) {
      if ((await draft.firstFalse(transition.conditions, `condition of transition "${transition.id}" of state "${fromStateId}"`)) < 0) {
        chosen = transition;
        break;
      }
    }
    if (!chosen) return unchanged(instance, TriggerOutcome.noTransition, { fromStateId });
    transitionId = chosen.id;
    const toStateId = chosen.targetStateId;
    const target = definition.states[toStateId];
    if (!target) throw new Error(`transition "${chosen.id}" names a missing state "${toStateId}"`);

    // Step 6: entry conditions of the target.
    if ((await draft.firstFalse(target.entryConditions, `entry condition of state "${toStateId}"`)) >= 0) {
      return unchanged(instance, TriggerOutcome.entryBlocked, { fromStateId, transitionId, toStateId });
    }
    // Step 7: exit actions, then the transition's actions (a fault here leaves the old state).
    await draft.runActions(state.exitActions, `exit action of state "${fromStateId}"`);
    await draft.runActions(chosen.actions, `action of transition "${chosen.id}"`);
    // Step 8: move.
    draft.stateId = toStateId;
    draft.status = isFinalState(target) ? InstanceStatus.complete : InstanceStatus.waiting;
    // Step 9: entry actions (a fault here leaves the new state).
    await draft.runActions(target.entryActions, `entry action of state "${toStateId}"`);
    // Step 10: interests from the context as it stands now.
    const interests = await computeInterests(instance.id, target, draft.scope(), effects.registry, effects);

    const raisedTriggers = withTriggerIds(draft.raised, `${trigger.id}.${instance.id}`);
    const at = effects.now().toISOString();
    const next: Instance = {
      ...withoutFault(instance),
      stateId: toStateId,
      status: draft.status,
      context: draft.context,
      interests,
      updatedAt: at,
      appliedTriggerIds: rememberTriggerId(instance.appliedTriggerIds, trigger.id),
      pendingTriggers: raisedTriggers.length ? [...instance.pendingTriggers, ...raisedTriggers] : instance.pendingTriggers,
      historyLength: instance.historyLength + 1,
    };
    const historyEntry: HistoryEntry = {
      sequence: instance.historyLength,
      at,
      event: HistoryEvent.transitioned,
      triggerId: trigger.id,
      transitionId: chosen.id,
      fromStateId,
      toStateId,
      status: draft.status,
    };
    return {
      outcome: TriggerOutcome.transitioned,
      instance: next,
      historyEntry,
      raisedTriggers,
      result: { instanceId: instance.id, outcome: TriggerOutcome.transitioned, transitionId: chosen.id, fromStateId, toStateId },
    };
  } catch (error) {
    return faulted(instance, draft, error, { triggerId: trigger.id, transitionId, fromStateId, effects });
  }
}

/**
 * The instance faulted in the state it had reached, keeping the context changes made before the fault
 * (they help diagnose it, and recovery re-runs entry actions anyway). Triggers raised before the fault
 * are dropped: the transition did not happen, so nobody should hear about it.
 */
export function faulted(
  instance: Instance,
  draft: Draft,
  error: unknown,
  at: { triggerId: string | null; transitionId: string | undefined; fromStateId: string | null; effects: Effects; event?: HistoryEvent },
): ProcessResult {
  const message = messageOf(error);
  const now = at.effects.now().toISOString();
  const next: Instance = {
    ...instance,
    stateId: draft.stateId,
    status: InstanceStatus.faulted,
    context: draft.context,
    fault: { message, triggerId: at.triggerId, at: now },
    updatedAt: now,
    appliedTriggerIds: at.triggerId ? rememberTriggerId(instance.appliedTriggerIds, at.triggerId) : instance.appliedTriggerIds,
    historyLength: instance.historyLength + 1,
  };
  const historyEntry: HistoryEntry = {
    sequence: instance.historyLength,
    at: now,
    event: at.event ?? HistoryEvent.faulted,
    triggerId: at.triggerId,
    transitionId: at.transitionId ?? null,
    fromStateId: at.fromStateId,
    toStateId: draft.stateId,
    status: InstanceStatus.faulted,
  };
  return {
    outcome: TriggerOutcome.faulted,
    instance: next,
    historyEntry,
    raisedTriggers: [],
    result: {
      instanceId: instance.id,
      outcome: TriggerOutcome.faulted,
      ...(at.transitionId ? { transitionId: at.transitionId } : {}),
      ...(at.fromStateId ? { fromStateId: at.fromStateId } : {}),
      toStateId: draft.stateId,
      error: message,
    },
  };
}
