/**
 * @module Key claims: how a creation takes a unique key (a `uniqueBusinessKey`, a `flow.unique` key) so that at
 * most one instance that has not ended ever holds it, whatever the interleaving of creators and crashes
 * (docs/decisions/0019-admission-protocol.md, "Unique keys").
 *
 * A claim is one conditional row (search-port.ts), written before the instance exists. It names its instance,
 * a fresh token and when it was made; the creation writes the token as a row of its own partition in the same
 * transaction as the instance (InstanceWrite.fences). A claimant that finds another's claim judges it:
 * - its instance exists: it holds the key unless it has ended, is being deleted or holds another key;
 * - its instance does not exist, and the claim is younger than PENDING_CLAIM_GRACE_IN_MS: a creation in flight,
 *   which holds the key (the claimant is refused, naming it);
 * - older (a creator that crashed between claim and save, or is very slow): the claimant first FENCES that
 *   creation, writing the token's row in its partition itself. From then on the stale creation's transaction
 *   fails (CreationFencedError) and the claim may be taken over on its ETag. When the fence finds the row
 *   already there, the creation committed meanwhile: the claim is judged again.
 * Safety rests on the fence and the ETag, never on the clock; the grace only keeps creators in a race from
 * fencing each other in turn, so that the first of them wins and the others are told who.
 */
import type { StoredInstance } from '../model/instance';
import type { InstanceStore, OperationOptions } from '../ports/ports';
import type { ClaimVerdict, KeyClaim, SearchIndexStore } from '../search/search-port';

/** A claim whose instance does not exist yet counts as a creation in flight for this long. @default */
export const PENDING_CLAIM_GRACE_IN_MS = 60_000;

export interface KeyClaimPorts {
  readonly instances: Pick<InstanceStore, 'get' | 'fenceCreation'>;
  readonly search: Pick<SearchIndexStore, 'claimBusinessKey' | 'releaseBusinessKey'>;
}

export interface KeyClaimRequest {
  readonly workflowId: string;
  /** The claim row's key: the business key, or `uniqueKeyClaim(key)`. */
  readonly claimKey: string;
  readonly instanceId: string;
  /** Whether an instance found as the claim's holder holds this key. */
  readonly holds: (instance: StoredInstance) => boolean;
}

/** The claim is the creation's (its token goes into the creation's transaction), or another instance holds it. */
export type KeyClaimOutcome =
  | { readonly claimed: true; readonly token: string }
  | {
      readonly claimed: false;
      readonly holder: string;
      /** The holder, when it exists (a creation in flight has none yet). */
      readonly instance?: StoredInstance;
    };

export interface KeyClaimOptions {
  readonly now: () => Date;
  readonly newToken: () => string;
  /** @default PENDING_CLAIM_GRACE_IN_MS */
  readonly pendingGraceInMs?: number;
}

export async function claimKey(ports: KeyClaimPorts, request: KeyClaimRequest, settings: KeyClaimOptions, options: OperationOptions = {}): Promise<KeyClaimOutcome> {
  const grace = settings.pendingGraceInMs ?? PENDING_CLAIM_GRACE_IN_MS;
  const claimant: KeyClaim = { instanceId: request.instanceId, token: settings.newToken(), claimedAt: settings.now().toISOString() };
  let holderInstance: StoredInstance | undefined;
  const judge = async (current: KeyClaim): Promise<ClaimVerdict> => {
    holderInstance = undefined;
    const instance = await ports.instances.get(current.instanceId, options);
    if (instance) {
      if (!request.holds(instance)) return 'free';
      holderInstance = instance;
      return 'held';
    }
    // No instance: a creation in flight, or one that stopped before its save. The same id claiming again is
    // that request retried: its earlier attempt is fenced at once.
    const age = settings.now().getTime() - Date.parse(current.claimedAt ?? '');
    if (current.instanceId !== request.instanceId && Math.abs(age) < grace) return 'held';
    // A claim from before tokens has no creation to fence (its creator wrote none).
    if (current.token === undefined) return 'free';
    return (await ports.instances.fenceCreation(current.instanceId, current.token, options)) ? 'free' : 'retry';
  };
  const holder = await ports.search.claimBusinessKey(request.workflowId, request.claimKey, claimant, judge, options);
  if (holder === undefined) return { claimed: true, token: claimant.token! };
  return { claimed: false, holder: holder.instanceId, ...(holderInstance?.id === holder.instanceId ? { instance: holderInstance } : {}) };
}

/**
 * Gives back a claim made for a creation that then did not happen (refused before anything was written), so
 * that the next creator does not wait out the grace. Best effort: a claim left is judged as any other.
 */
export async function releaseClaim(
  ports: KeyClaimPorts,
  request: Pick<KeyClaimRequest, 'workflowId' | 'claimKey' | 'instanceId'> & { readonly token: string },
  options: OperationOptions = {},
): Promise<void> {
  try {
    await ports.search.releaseBusinessKey(request.workflowId, request.claimKey, request.instanceId, { ...options, token: request.token });
  } catch {
    // Left to the next claimant's judgement.
  }
}
