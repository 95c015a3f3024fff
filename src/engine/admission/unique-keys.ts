/**
 * @module `flow.unique` (definition/flow-policies.ts): at most one non-final instance per key of a
 * workflow. The key is computed from the creation request and claimed before the instance is created,
 * through the search index's claims (the same conditional row as a unique business key, under its own
 * prefix). A claim names its holder; a holder that is gone (a crash between claim and save, a deleted
 * instance), ended (complete, cancelled) or holds another key is no holder, and the claim is taken over
 * on its ETag after its creation is fenced (key-claims.ts), so two creators never both win it. The instance keeps its key (`uniqueKey`), so the save
 * that ends it, and its deletion, release the claim (search-indexing.ts).
 */
import type { WorkflowDefinition } from '../definition/definition';
import { evaluateFlowKey, UniqueConflict } from '../definition/flow-policies';
import type { NewInstance } from '../decide/decide-create';
import { InstanceStatus } from '../model/enums';
import { CreationFencedError, SignalboxError, UniqueKeyTakenError, type SignalboxErrorCode } from '../model/errors';
import type { StoredInstance } from '../model/instance';
import type { OperationOptions } from '../ports/ports';
import type { InstanceStore } from '../ports/ports';
import type { SearchIndexStore } from '../search/search-port';
import { claimKey, releaseClaim, type KeyClaimOptions } from './key-claims';
import { holdsUniqueKey, uniqueKeyClaim } from '../search/search-indexing';

/**
 * The claims' outcome: the request to create (its `uniqueKey` and `claimTokens` set where keys apply) with
 * `release` to give the claims back if the creation is then refused; or the instance that holds the key
 * (`onConflict: existing`, or the same request again: the instance it created).
 */
export type CreationClaims =
  | { readonly request: NewInstance; readonly release: () => Promise<void>; readonly existing?: undefined }
  | { readonly existing: StoredInstance; readonly request?: undefined; readonly release?: undefined };

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
 * Claims the request's unique business key (`uniqueBusinessKey`) and its `flow.unique` key (key-claims.ts):
 * UniqueKeyTakenError (409) naming the holder; the holder itself under `onConflict: existing`, or when it is
 * the instance this very request created (a retried request). Without a search index (a library engine built
 * without one) nothing is enforced.
 */
export async function claimCreationKeys(
  ports: { readonly instances: InstanceStore; readonly search?: SearchIndexStore },
  definition: WorkflowDefinition,
  request: NewInstance,
  settings: KeyClaimOptions,
  options: OperationOptions,
): Promise<CreationClaims> {
  const search = ports.search;
  if (!search) return { request, release: async () => {} };
  const keyPorts = { instances: ports.instances, search };
  const made: { claimKey: string; token: string }[] = [];
  const release = async (): Promise<void> => {
    for (const claim of made) await releaseClaim(keyPorts, { workflowId: definition.id, instanceId: request.instanceId, ...claim }, options);
  };
  const tokens = (): string[] => made.map((claim) => claim.token);
  const { businessKey } = request;
  if (definition.uniqueBusinessKey && businessKey !== undefined) {
    const outcome = await claimKey(
      keyPorts,
      {
        workflowId: definition.id,
        claimKey: businessKey,
        instanceId: request.instanceId,
        holds: (instance) => !instance.deleting && instance.businessKey === businessKey && instance.workflowId === definition.id,
      },
      settings,
      options,
    );
    if (!outcome.claimed) {
      if (outcome.holder === request.instanceId && outcome.instance) return { existing: outcome.instance };
      throw new UniqueKeyTakenError(`The business key "${businessKey}" is taken by instance "${outcome.holder}"`, outcome.holder);
    }
    made.push({ claimKey: businessKey, token: outcome.token });
  }
  const policy = definition.flow?.unique;
  const uniqueKey = policy ? await uniqueKeyOf(definition, request, settings.now) : undefined;
  if (!policy || uniqueKey === undefined) return { request: made.length ? { ...request, claimTokens: tokens() } : request, release };
  const outcome = await claimKey(
    keyPorts,
    {
      workflowId: definition.id,
      claimKey: uniqueKeyClaim(uniqueKey),
      instanceId: request.instanceId,
      holds: (instance) => instance.workflowId === definition.id && instance.uniqueKey === uniqueKey && holdsUniqueKey(instance),
    },
    settings,
    options,
  );
  if (!outcome.claimed) {
    await release();
    if (outcome.instance && (outcome.holder === request.instanceId || policy.onConflict === UniqueConflict.existing)) return { existing: outcome.instance };
    throw new UniqueKeyTakenError(`The unique key "${uniqueKey}" of workflow "${definition.id}" is held by instance "${outcome.holder}", which has not ended`, outcome.holder);
  }
  made.push({ claimKey: uniqueKeyClaim(uniqueKey), token: outcome.token });
  return { request: { ...request, uniqueKey, claimTokens: tokens() }, release };
}

/** Refusals that come before a creation writes anything: its key claims are given back at once. */
const CLAIMS_GIVEN_BACK_ON: ReadonlySet<SignalboxErrorCode> = new Set(['validation', 'definitionInvalid', 'notFound', 'conflict', 'tooLarge']);
/** A creation fenced this many times in a row (its claim taken over before it committed each time) fails. */
const MAX_FENCED_CREATIONS = 3;

/**
 * Runs `create` under the request's key claims (claimCreationKeys): the holder instead, where the claims answer
 * one. A creation refused before it wrote anything gives its claims back; after a storage fault they stay (it may
 * have committed after all) for the next claimant to judge. A creation that was fenced claims again, and is then
 * told who holds the key.
 */
export async function createClaimingKeys<Created>(
  ports: { readonly instances: InstanceStore; readonly search?: SearchIndexStore },
  definition: WorkflowDefinition,
  request: NewInstance,
  settings: KeyClaimOptions,
  options: OperationOptions,
  create: (claimed: NewInstance) => Promise<Created>,
): Promise<{ readonly existing: StoredInstance; readonly created?: undefined } | { readonly created: Created; readonly existing?: undefined }> {
  for (let attempt = 1; ; attempt++) {
    const claims = await claimCreationKeys(ports, definition, request, settings, options);
    if (claims.existing) return { existing: claims.existing };
    try {
      return { created: await create(claims.request) };
    } catch (error) {
      const fenced = error instanceof CreationFencedError;
      if (!fenced && error instanceof SignalboxError && CLAIMS_GIVEN_BACK_ON.has(error.code)) await claims.release();
      if (fenced && attempt < MAX_FENCED_CREATIONS) continue;
      throw error;
    }
  }
}
