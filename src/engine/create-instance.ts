/**
 * @module Instance creation (pure): the initial state's entry conditions with a null trigger (one false:
 * the instance is created `faulted`), then its entry actions, then interests. Returns what to create.
 */
import { z } from 'zod';
import { isFinalState, workflowIdSchema, type WorkflowVersion } from './definition';
import type { Effects } from './effects';
import { InstanceStatus } from './enums';
import { HistoryEvent, type HistoryEntry, type Instance, type RaisedTrigger } from './instance';
import { withTriggerIds } from './instance-changes';
import { computeInterests } from './interests';
import { jsonObjectSchema, type JsonObject } from './json';
import { faulted } from './process-trigger';
import { Draft } from './run-steps';
import { idSchema } from './trigger';

export const createInstanceInputSchema = z.strictObject({
  workflowId: workflowIdSchema,
  instanceId: idSchema.optional(),
  context: jsonObjectSchema.default({}),
});
/** The body of a create-instance request. */
export type CreateInstanceInput = z.input<typeof createInstanceInputSchema>;

export interface CreatedInstance {
  readonly instance: Instance;
  readonly historyEntry: HistoryEntry;
  readonly raisedTriggers: readonly RaisedTrigger[];
}

export async function createInstanceState(
  workflow: WorkflowVersion,
  input: { instanceId: string; context: JsonObject },
  effects: Effects,
): Promise<CreatedInstance> {
  const { definition } = workflow;
  const createdAt = effects.now().toISOString();
  const stateId = definition.initialStateId;
  const initial: Instance = {
    id: input.instanceId,
    workflowId: definition.id,
    workflowVersion: workflow.version,
    stateId,
    status: InstanceStatus.initializing,
    context: input.context,
    interests: [input.instanceId],
    createdAt,
    updatedAt: createdAt,
    appliedTriggerIds: [],
    pendingTriggers: [],
    historyLength: 0,
  };
  const draft = new Draft(definition, workflow.version, initial.id, null, effects, initial);
  const fault = { triggerId: null, transitionId: undefined, fromStateId: null, effects, event: HistoryEvent.created };
  try {
    const state = definition.states[stateId];
    if (!state) throw new Error(`the initial state "${stateId}" is not in the workflow`);
    const blocked = await draft.firstFalse(state.entryConditions, `entry condition of state "${stateId}"`);
    if (blocked >= 0) {
      throw new Error(`entry condition [${blocked}] of the initial state "${stateId}" is false`);
    }
    draft.status = isFinalState(state) ? InstanceStatus.complete : InstanceStatus.waiting;
    await draft.runActions(state.entryActions, `entry action of state "${stateId}"`);
    const interests = await computeInterests(initial.id, state, draft.scope(), effects.registry, effects);
    const raisedTriggers = withTriggerIds(draft.raised, `${initial.id}.created`);
    return {
      instance: { ...initial, status: draft.status, context: draft.context, interests, pendingTriggers: raisedTriggers, historyLength: 1 },
      historyEntry: { sequence: 0, at: createdAt, event: HistoryEvent.created, triggerId: null, transitionId: null, fromStateId: null, toStateId: stateId, status: draft.status },
      raisedTriggers,
    };
  } catch (error) {
    // Creation that faults still creates the instance (visible, recoverable); its history says `created`.
    const result = faulted(initial, draft, error, fault);
    return { instance: result.instance, historyEntry: result.historyEntry!, raisedTriggers: [] };
  }
}
