/**
 * @module Creating an instance, decided: the initial state's entry conditions with a null trigger (one
 * false: the instance is created `faulted`), then entering it. The result's outcome is `transitioned`
 * (into the initial state) or `faulted`.
 */
import type { Actor } from '../model/actor';
import { z } from 'zod';
import { workflowIdSchema, type WorkflowVersion } from '../definition/definition';
import type { Cause, Decision } from './decision';
import { faultDecision } from './decide-fault';
import type { Effects } from '../steps/effects';
import { InstanceStatus, TriggerOutcome } from '../model/enums';
import { entriesOfEntry, entryBlockedAt, entryBlockedMessage, enterState } from './enter-state';
import { HistoryEvent, type Instance, type InstanceParent } from '../model/instance';
import { jsonObjectSchema, type JsonObject } from '../model/json';
import type { Registry } from '../steps/registry';
import { Draft, messageOf } from './draft';
import { idSchema } from '../model/trigger';
import { businessKeySchema } from '../definition/search-indexes';

export const createInstanceInputSchema = z.strictObject({
  workflowId: workflowIdSchema,
  instanceId: idSchema.optional(),
  context: jsonObjectSchema.default({}),
  businessKey: businessKeySchema.optional(),
});
/** The body of a create-instance request. */
export type CreateInstanceInput = z.input<typeof createInstanceInputSchema>;
/** A parsed create-instance request, its id assigned. */
export interface NewInstance {
  readonly instanceId: string;
  readonly context: JsonObject;
  /** A key from the business (definition/search-indexes.ts). */
  readonly businessKey?: string;
  /** Its `flow.unique` key, claimed before the creation is decided (engine.ts). */
  readonly uniqueKey?: string;
  /**
   * The tokens of the key claims made for it (admission/key-claims.ts), written with the creation so that a
   * claim taken over before the creation commits fails it (InstanceWrite.fences). Not kept on the instance.
   */
  readonly claimTokens?: readonly string[];
  /** The new instance's incarnation (instance.ts); the runtime assigns one when absent. */
  readonly incarnation?: string;
  /** A child's parent (the `startInstance` action). */
  readonly parent?: InstanceParent;
  /** A child's creation is follow-up work of its parent's change: its causal depth (causal-budget.ts). Absent: 0. */
  readonly causalDepth?: number;
  /** A child's share of its parent's causal budget (causal-budget.ts). Absent: the whole budget. */
  readonly causalBudget?: number;
  /** Who creates it: the caller, or `system` (a child) with the actor of the parent's change as `cause`. */
  readonly actor?: Actor;
}

/** What causes a creation: a client's request (depth 0, the whole budget), or a parent's change (a child, deeper, with its share). */
export function creationCause(input: Pick<NewInstance, 'causalDepth' | 'causalBudget' | 'actor'>): Cause {
  return {
    kind: 'create',
    ...(input.actor ? { actor: input.actor } : {}),
    ...(input.causalDepth ? { causalDepth: input.causalDepth } : {}),
    ...(input.causalBudget !== undefined ? { causalBudget: input.causalBudget } : {}),
  };
}

export async function decideCreate(workflow: WorkflowVersion, input: NewInstance, effects: Effects, registry: Registry): Promise<Decision> {
  const { definition } = workflow;
  const now = effects.now();
  const createdAt = now.toISOString();
  const stateId = definition.initialStateId;
  const cause = creationCause(input);
  const initial: Instance = {
    id: input.instanceId,
    ...(input.incarnation !== undefined ? { incarnation: input.incarnation } : {}),
    workflowId: definition.id,
    workflowVersion: workflow.version,
    stateId,
    status: InstanceStatus.initializing,
    context: input.context,
    ...(input.businessKey !== undefined ? { businessKey: input.businessKey } : {}),
    ...(input.uniqueKey !== undefined ? { uniqueKey: input.uniqueKey } : {}),
    interests: [input.instanceId],
    createdAt,
    updatedAt: createdAt,
    appliedTriggers: [],
    outbox: [],
    historyLength: 0,
    ...(input.parent ? { parent: input.parent } : {}),
  };
  const draft = new Draft(definition, workflow.version, initial.id, null, effects, registry, { ...initial, ...(input.actor ? { actor: input.actor } : {}) });
  try {
    const blocked = await entryBlockedAt(draft, stateId);
    if (blocked >= 0) throw new Error(entryBlockedMessage(draft, stateId, blocked, `the initial state "${stateId}"`));
    const entered = await enterState(draft, cause, stateId, 0, now);
    return {
      result: { instanceId: initial.id, outcome: TriggerOutcome.transitioned, toStateId: entered.stateId },
      change: {
        instance: {
          ...initial,
          stateId: entered.stateId,
          status: entered.status,
          context: draft.context,
          interests: entered.interests,
          outbox: entered.outbox.map((row) => row.id),
          historyLength: entered.stateEntry + 1,
          stateEntry: entered.stateEntry,
          timers: entered.timers,
        },
        ...entriesOfEntry(
          { sequence: 0, at: createdAt, event: HistoryEvent.created, triggerId: null, transitionId: null, fromStateId: null, toStateId: stateId, status: entered.status },
          entered.automaticSteps,
        ),
        outbox: entered.outbox,
      },
      logs: draft.logs,
    };
  } catch (error) {
    // Creation that faults still creates the instance (visible, recoverable); its history says `created`.
    return faultDecision(initial, messageOf(error), { cause, stateId: draft.stateId, context: draft.context, fromStateId: null, now, event: HistoryEvent.created, logs: draft.logs });
  }
}
