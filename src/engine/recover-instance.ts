/**
 * @module Recovery of a faulted instance (pure): an explicit request names the state to return to; its
 * entry conditions (null trigger) and entry actions run again, then the instance is waiting (or complete).
 * If they fail, the instance stays faulted with the new fault.
 */
import { isFinalState, type WorkflowDefinition } from './definition';
import type { Effects } from './effects';
import { InstanceStatus } from './enums';
import { ConflictError, ValidationError } from './errors';
import { HistoryEvent, type HistoryEntry, type Instance, type RaisedTrigger } from './instance';
import { plainInstance, withTriggerIds, withoutFault } from './instance-changes';
import { computeInterests } from './interests';
import { faulted } from './process-trigger';
import { Draft } from './run-steps';

export interface ChangedInstance {
  readonly instance: Instance;
  readonly historyEntry: HistoryEntry;
  readonly raisedTriggers: readonly RaisedTrigger[];
}

/** Throws ConflictError if the instance is not faulted, ValidationError (path `stateId`) for an unknown state. */
export async function recoverInstanceState(definition: WorkflowDefinition, stored: Instance, stateId: string, effects: Effects): Promise<ChangedInstance> {
  const instance = plainInstance(stored);
  if (instance.status !== InstanceStatus.faulted) throw new ConflictError(`Instance "${instance.id}" is ${instance.status}, not faulted: only faulted instances can be recovered`);
  const state = Object.hasOwn(definition.states, stateId) ? definition.states[stateId] : undefined;
  if (!state) {
    throw new ValidationError('The recovery request is invalid', [{ path: 'stateId', message: `workflow "${definition.id}" version ${instance.workflowVersion} has no state "${stateId}"` }]);
  }
  const fromStateId = instance.stateId;
  const status = isFinalState(state) ? InstanceStatus.complete : InstanceStatus.waiting;
  const draft = new Draft(definition, instance.workflowVersion, instance.id, null, effects, { context: instance.context, stateId, status });
  try {
    const blocked = await draft.firstFalse(state.entryConditions, `entry condition of state "${stateId}"`);
    if (blocked >= 0) throw new Error(`entry condition [${blocked}] of state "${stateId}" is false`);
    await draft.runActions(state.entryActions, `entry action of state "${stateId}"`);
    const interests = await computeInterests(instance.id, state, draft.scope(), effects.registry, effects);
    const at = effects.now().toISOString();
    const raisedTriggers = withTriggerIds(draft.raised, `${instance.id}.recovered.${instance.historyLength}`);
    return {
      instance: {
        ...withoutFault(instance),
        stateId,
        status,
        context: draft.context,
        interests,
        updatedAt: at,
        pendingTriggers: [...instance.pendingTriggers, ...raisedTriggers],
        historyLength: instance.historyLength + 1,
      },
      historyEntry: { sequence: instance.historyLength, at, event: HistoryEvent.recovered, triggerId: null, transitionId: null, fromStateId, toStateId: stateId, status },
      raisedTriggers,
    };
  } catch (error) {
    const result = faulted(instance, draft, error, { triggerId: null, transitionId: undefined, fromStateId, effects });
    return { instance: result.instance, historyEntry: result.historyEntry!, raisedTriggers: [] };
  }
}
