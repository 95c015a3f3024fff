/**
 * @module `flow.unique` (definition/flow-policies.ts): at most one non-final instance per key of a
 * workflow. The key is computed from the creation request and claimed before the instance is created,
 * through the search index's claims (the same conditional row as a unique business key, under its own
 * prefix). A claim names its holder; a holder that is gone (a crash between claim and save, a deleted
 * instance), ended (complete, cancelled) or holds another key is no holder, and the claim is taken over
 * on its ETag, so two creators never both win it. The instance keeps its key (`uniqueKey`), so the save
 * that ends it, and its deletion, release the claim (search-indexing.ts).
 */
import type { WorkflowDefinition } from '../definition/definition';
import { evaluateFlowKey, UniqueConflict } from '../definition/flow-policies';
import type { NewInstance } from '../decide/decide-create';
import { InstanceStatus } from '../model/enums';
import { UniqueKeyTakenError } from '../model/errors';
import type { StoredInstance } from '../model/instance';
import type { OperationOptions } from '../ports/ports';
import type { InstanceRuntimePorts } from './instance-runtime';
import { holdsUniqueKey, uniqueKeyClaim } from '../search/search-indexing';

/** The claim's outcome: the request to create (its `uniqueKey` set when the policy applies), or the instance that holds the key (`onConflict: existing`). */
export type UniqueKeyClaim = { readonly request: NewInstance; readonly existing?: undefined } | { readonly existing: StoredInstance; readonly request?: undefined };

/** The `flow.unique` key of a creation request, or undefined when the workflow has none or the key yields nothing. */
export async function uniqueKeyOf(definition: WorkflowDefinition, request: NewInstance, now: () => Date): Promise<string | undefined> {
  const policy = definition.flow?.unique;
  if (!policy) return undefined;
  const scope = {
    trigger: null,
    actor: request.actor ?? null,
    context: request.context,
    instance: { id: request.instanceId, workflowId: definition.id, stateId: definition.initialStateId, status: InstanceStatus.initializing },
  };
  return evaluateFlowKey(policy.key, scope, { now });
}

/**
 * Claims the request's unique key: UniqueKeyTakenError (409) naming the holder, or the holder itself
 * under `onConflict: existing`. Without a search index (a library engine built without one) nothing is
 * enforced.
 */
export async function claimUniqueKey(
  ports: Pick<InstanceRuntimePorts, 'instances' | 'search'>,
  definition: WorkflowDefinition,
  request: NewInstance,
  now: () => Date,
  options: OperationOptions,
): Promise<UniqueKeyClaim> {
  const policy = definition.flow?.unique;
  if (!policy || !ports.search) return { request };
  const uniqueKey = await uniqueKeyOf(definition, request, now);
  if (uniqueKey === undefined) return { request };
  let holderInstance: StoredInstance | undefined;
  const isHeld = async (holder: string): Promise<boolean> => {
    const instance = await ports.instances.get(holder, options);
    const held = instance !== undefined && instance.workflowId === definition.id && instance.uniqueKey === uniqueKey && holdsUniqueKey(instance);
    holderInstance = held ? instance : undefined;
    return held;
  };
  const holder = await ports.search.claimBusinessKey(definition.id, uniqueKeyClaim(uniqueKey), request.instanceId, isHeld, options);
  if (holder === undefined) return { request: { ...request, uniqueKey } };
  if (policy.onConflict === UniqueConflict.existing && holderInstance?.id === holder) return { existing: holderInstance };
  throw new UniqueKeyTakenError(`The unique key "${uniqueKey}" of workflow "${definition.id}" is held by instance "${holder}", which has not ended`, holder);
}
