/**
 * @module Who made a change: the identity the host authenticated (a token's user or service, a key), or
 * `system` for follow-up work (a raised trigger, a timer, a child's notification) with the actor of the
 * change that caused it as `cause`, so that a chain of changes can be traced back to a person. The host
 * sets it; a client never can (no request body or query names it).
 */

/** How the actor was known: a bearer token, a key (function key, SIGNALBOX_API_KEY, or an open local server), or the engine itself. */
export type ActorVia = 'token' | 'key' | 'system';

export interface Actor {
  /** The token's `oid` (else `sub`); `api-key`, `function-key` or `anonymous` for keys; `system` for follow-up work. */
  readonly id: string;
  readonly name: string;
  /** The token's `tid`, when it has one. */
  readonly tenantId?: string;
  /** App roles (`Signalbox.Sender`, ...), from the token's roles claim or the key's configured set. */
  readonly roles: readonly string[];
  /** Group object ids from the token's `groups` claim, when it has one (a transition's `actors.groups`). */
  readonly groups?: readonly string[];
  readonly via: ActorVia;
  /** The user a caller with Signalbox.Impersonate acts for (the `on-behalf-of` header): both are recorded. */
  readonly onBehalfOf?: ImpersonatedIdentity;
  /** For `system`: the actor of the change that caused this work. */
  readonly cause?: Actor;
}

export interface ImpersonatedIdentity {
  readonly id: string;
  readonly name?: string;
}

/** The engine's own actor for work caused by `cause` (absent when the cause carried none, as before actors existed). */
export function systemActor(cause: Actor | undefined): Actor {
  // A chain of follow-up work names the person at its root, not every hop in between (bounded size).
  const root = cause?.via === 'system' ? cause.cause : cause;
  return { id: 'system', name: 'Signalbox', roles: [], via: 'system', ...(root ? { cause: root } : {}) };
}

/**
 * The identity rules are about (a transition's `actors`, JSONata's `actor`): the user a caller acts for
 * when it impersonates one (with the caller's roles: the caller vouches for them), else the caller.
 */
export function effectiveActor(actor: Actor): Actor {
  if (!actor.onBehalfOf) return actor;
  return { ...actor, id: actor.onBehalfOf.id, name: actor.onBehalfOf.name ?? actor.onBehalfOf.id };
}
