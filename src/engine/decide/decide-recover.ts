/**
 * @module Recovering a faulted instance, decided: an explicit request names the state to return to; its
 * entry conditions (null trigger) are checked and it is entered again. If that fails, the instance stays
 * faulted with the new fault. A request the instance cannot take is thrown (ConflictError, ValidationError).
 */
import { withDebouncesRescheduled } from './debounce';
import { isFinalState, type WorkflowDefinition } from '../definition/definition';
import type { Cause, Decision } from './decision';
import { faultDecision } from './decide-fault';
import type { Effects } from '../steps/effects';
import { InstanceStatus, TriggerOutcome } from '../model/enums';
import { entriesOfEntry, entryBlockedAt, entryBlockedMessage, enterState } from './enter-state';
import { ConflictError, ValidationError } from '../model/errors';
import { HistoryEvent, type Instance } from '../model/instance';
import { withRelease } from './held-triggers';
import { plainInstance, withoutFault } from './instance-changes';
import type { JsonObject } from '../model/json';
import { applyMergePatch } from '../model/merge-patch';
import type { Registry } from '../steps/registry';
import { Draft, messageOf } from './draft';

/** What a recovery may bring besides the state: a repair of the data, and who asked. */
export interface RecoveryRepair {
  /** Applied to the context before the state is entered (merge-patch.ts), so bad data can be fixed. */
  readonly contextPatch?: JsonObject;
  /** Who asked (the host's principal: `api-key`, `anonymous`, ...), recorded in the history entry. */
  readonly by?: string;
}

/** Throws ConflictError if the instance is not faulted, ValidationError (path `stateId`) for an unknown state. */
export async function decideRecover(definition: WorkflowDefinition, stored: Instance, stateId: string, effects: Effects, registry: Registry, repair: RecoveryRepair = {}): Promise<Decision> {
  const instance = plainInstance(stored);
  if (instance.status !== InstanceStatus.faulted) throw new ConflictError(`Instance "${instance.id}" is ${instance.status}, not faulted: only faulted instances can be recovered`);
  const state = Object.hasOwn(definition.states, stateId) ? definition.states[stateId] : undefined;
  if (!state) {
    throw new ValidationError('The recovery request is invalid', [{ path: 'stateId', message: `workflow "${definition.id}" version ${instance.workflowVersion} has no state "${stateId}"` }]);
  }
  const cause: Cause = { kind: 'recover', sequence: instance.historyLength };
  const fromStateId = instance.stateId;
  // Entry conditions see the instance as it will be: in the state, waiting (or complete).
  const status = isFinalState(state) ? InstanceStatus.complete : InstanceStatus.waiting;
  // The patch comes first: the entry conditions and actions see the repaired context.
  const context = repair.contextPatch ? applyMergePatch(instance.context, repair.contextPatch) : instance.context;
  const recorded = { ...(repair.contextPatch ? { contextPatch: repair.contextPatch } : {}), ...(repair.by !== undefined ? { by: repair.by } : {}) };
  const draft = new Draft(definition, instance.workflowVersion, instance.id, null, effects, registry, {
    context,
    stateId,
    status,
    ...(instance.incarnation !== undefined ? { incarnation: instance.incarnation } : {}),
  });
  try {
    const blocked = await entryBlockedAt(draft, stateId);
    if (blocked >= 0) throw new Error(entryBlockedMessage(draft, stateId, blocked, `state "${stateId}"`));
    const entered = await enterState(draft, cause, stateId, instance.historyLength);
    const at = effects.now().toISOString();
    // What was held while it was faulted is released, oldest first (held-triggers.ts).
    // Bursts held back while it was faulted are scheduled again (debounce.ts).
    const recovered = withRelease({
      result: { instanceId: instance.id, outcome: TriggerOutcome.transitioned, fromStateId, toStateId: entered.stateId },
      change: {
        instance: {
          ...withoutFault(instance),
          stateId: entered.stateId,
          status: entered.status,
          context: draft.context,
          interests: entered.interests,
          updatedAt: at,
          outbox: entered.outbox.map((row) => row.id),
          historyLength: entered.stateEntry + 1,
          stateEntry: entered.stateEntry,
          timers: entered.timers,
        },
        ...entriesOfEntry(
          { sequence: instance.historyLength, at, event: HistoryEvent.recovered, triggerId: null, transitionId: null, fromStateId, toStateId: stateId, status: entered.status, ...recorded },
          entered.automaticSteps,
        ),
        outbox: entered.outbox,
      },
      logs: draft.logs,
    });
    return recovered.change && (recovered.change.instance.status === InstanceStatus.waiting || recovered.change.instance.status === InstanceStatus.initializing)
      ? withDebouncesRescheduled(recovered, effects.now())
      : recovered;
  } catch (error) {
    const faulted = faultDecision(instance, messageOf(error), { cause, stateId: draft.stateId, context: draft.context, fromStateId, now: effects.now(), logs: draft.logs });
    // A repair that did not help is still a change someone made: the fault entry says so too.
    return faulted.change?.historyEntry ? { ...faulted, change: { ...faulted.change, historyEntry: { ...faulted.change.historyEntry, ...recorded } } } : faulted;
  }
}
