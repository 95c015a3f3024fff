/**
 * @module Who may use the API, on both hosts: authentication (an OAuth 2.0 bearer token from a configured
 * issuer, RFC 6750; or a key) makes the request's actor, and the route's declared role decides whether
 * that actor may use it. A failed check answers before the body is read or any handler runs, so it
 * changes nothing.
 *
 * - Tokens are accepted only when SIGNALBOX_AUTH_ISSUERS is set (token-verifier.ts validates them).
 * - A key is a principal with a configured role set (SIGNALBOX_API_KEY_ROLES, Signalbox.Admin by default):
 *   SIGNALBOX_API_KEY, checked by the app, or a function key the Functions host checked before the app ran.
 * - A local server with neither a key nor issuers is open, as it always was: its requests act as
 *   `anonymous` with every role.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Actor } from '../../engine/model';
import { problem } from '../problem';
import { readSetting, type Environment } from '../settings';
import { InvalidTokenError, TokenVerifier, tokenSettingsFromEnv } from './token-verifier';
import type { ApiRequest, ApiResponse } from './types';

/** The app roles of the Signalbox API (app registration `appRoles`, token `roles` claim). */
export const Role = {
  /** Every GET: read workflows, instances, history, operations, events. */
  reader: 'Signalbox.Reader',
  /** Send triggers, start instances. */
  sender: 'Signalbox.Sender',
  /** Recover, cancel, suspend, resume, bulk actions, migrations, event redelivery. */
  operator: 'Signalbox.Operator',
  /** Define and delete workflows, delete instances. */
  admin: 'Signalbox.Admin',
  /** Act on behalf of another user (the `on-behalf-of` header). */
  impersonate: 'Signalbox.Impersonate',
} as const;
export type RoleName = (typeof Role)[keyof typeof Role];

/** A route anyone may call (health, the OpenAPI document, the definition schema). */
export const publicRoute = 'public';
export type RouteRole = RoleName | typeof publicRoute;

/** The request header a caller with Signalbox.Impersonate names the user it acts for in. */
export const ON_BEHALF_OF_HEADER = 'on-behalf-of';

/**
 * Whether `roles` grant `needed`. Admin grants every route role; Sender and Operator also read. Nothing
 * grants Signalbox.Impersonate but itself: acting for others is never a side effect of another role.
 */
export function grants(roles: readonly string[], needed: RoleName): boolean {
  if (roles.includes(needed)) return true;
  if (needed === Role.impersonate) return false;
  if (roles.includes(Role.admin)) return true;
  return needed === Role.reader && (roles.includes(Role.sender) || roles.includes(Role.operator));
}

export interface AccessPolicy {
  /** Validates bearer tokens; absent: tokens are refused (no SIGNALBOX_AUTH_ISSUERS). */
  readonly tokens?: TokenVerifier;
  /** The key the app checks itself (SIGNALBOX_API_KEY), in `x-functions-key` or `?code=`. */
  readonly apiKey?: string;
  /** True when the Functions host checked a function key before the request reached the app. */
  readonly platformCheckedKey?: boolean;
  /** Roles a key's principal has. */
  readonly keyRoles: readonly string[];
}

/** The policy the settings describe. `platformChecksKeys`: the Functions host (authLevel `function`) checks keys. */
export function accessPolicyFromEnv(env: Environment, platformChecksKeys = false): AccessPolicy {
  const tokenSettings = tokenSettingsFromEnv(env);
  const apiKey = readSetting('SIGNALBOX_API_KEY', env);
  const keyRoles = (readSetting('SIGNALBOX_API_KEY_ROLES', env) ?? Role.admin)
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  return {
    ...(tokenSettings ? { tokens: new TokenVerifier(tokenSettings) } : {}),
    ...(apiKey ? { apiKey } : {}),
    // With issuers set the Functions are anonymous at the platform (functions/http.ts): the app checks everything.
    ...(platformChecksKeys && !tokenSettings ? { platformCheckedKey: true } : {}),
    keyRoles,
  };
}

/** True when HTTP functions must be registered anonymous so that bearer tokens reach the app. */
export function appChecksCredentials(env: Environment): boolean {
  return tokenSettingsFromEnv(env) !== undefined;
}

/** A public route's actor, and the actor of an open local server's requests (all roles). */
const anonymousActor = (roles: readonly string[]): Actor => ({ id: 'anonymous', name: 'anonymous', roles, via: 'key' });

function keyMatches(expected: string, given: string | null): boolean {
  if (given === null) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** RFC 6750 section 3: the challenge, with an error code when credentials were given and refused. */
function unauthorized(policy: AccessPolicy, detail: string, error?: 'invalid_token' | 'invalid_request'): ApiResponse {
  const response = problem(401, 'Unauthorized', detail);
  if (!policy.tokens) return response;
  // The description is one of our fixed sentences: never the token, never a claim's value.
  const challenge = error ? `Bearer error="${error}", error_description="${detail.replaceAll('"', "'")}"` : 'Bearer';
  return { ...response, headers: { ...response.headers, 'www-authenticate': challenge } };
}

function forbidden(policy: AccessPolicy, role: RoleName, detail: string): ApiResponse {
  const response = problem(403, 'Forbidden', detail);
  return policy.tokens ? { ...response, headers: { ...response.headers, 'www-authenticate': `Bearer error="insufficient_scope", scope="${role}"` } } : response;
}

export type AccessOutcome = { readonly actor: Actor; readonly refusal?: undefined } | { readonly refusal: ApiResponse; readonly actor?: undefined };

/** What `role` needs `request` to be; the route role `public` lets everyone in. */
export async function checkAccess(role: RouteRole, request: Pick<ApiRequest, 'headers' | 'url'>, policy: AccessPolicy): Promise<AccessOutcome> {
  if (role === publicRoute) return { actor: anonymousActor([]) };
  const authenticated = await authenticate(request, policy);
  if (authenticated.refusal) return authenticated;
  const { actor } = authenticated;
  if (!grants(actor.roles, role)) return { refusal: forbidden(policy, role, `This route needs the role ${role}, which ${actor.via === 'token' ? 'the token' : 'the key'} does not have`) };
  const onBehalfOf = request.headers.get(ON_BEHALF_OF_HEADER);
  if (onBehalfOf === null) return { actor };
  if (!grants(actor.roles, Role.impersonate)) return { refusal: forbidden(policy, Role.impersonate, `The ${ON_BEHALF_OF_HEADER} header needs the role ${Role.impersonate}`) };
  const id = onBehalfOf.trim();
  if (!/^[A-Za-z0-9._:@-]{1,256}$/.test(id)) {
    return {
      refusal: problem(400, 'Invalid request', `The ${ON_BEHALF_OF_HEADER} header must be a user id: 1-256 characters of A-Z a-z 0-9 . _ : @ -`, [
        { path: ON_BEHALF_OF_HEADER, message: 'not a user id' },
      ]),
    };
  }
  return { actor: { ...actor, onBehalfOf: { id } } };
}

async function authenticate(request: Pick<ApiRequest, 'headers' | 'url'>, policy: AccessPolicy): Promise<AccessOutcome> {
  const authorization = request.headers.get('authorization');
  if (authorization !== null) {
    const match = /^Bearer +([^\s]+) *$/i.exec(authorization);
    if (!match) return { refusal: unauthorized(policy, 'The Authorization header must be "Bearer <token>"', 'invalid_request') };
    if (!policy.tokens) return { refusal: problem(401, 'Unauthorized', 'This server accepts no bearer tokens (SIGNALBOX_AUTH_ISSUERS is not set): send a key in x-functions-key') };
    try {
      return { actor: await policy.tokens.verify(match[1]!) };
    } catch (error) {
      if (error instanceof InvalidTokenError) return { refusal: unauthorized(policy, error.message, 'invalid_token') };
      throw error;
    }
  }
  const key = request.headers.get('x-functions-key') ?? request.url.searchParams.get('code');
  if (policy.apiKey !== undefined) {
    if (keyMatches(policy.apiKey, key)) return { actor: { id: 'api-key', name: 'API key', roles: policy.keyRoles, via: 'key' } };
    if (key !== null) return { refusal: unauthorized(policy, 'The key is not valid') };
  }
  if (policy.platformCheckedKey) return { actor: { id: 'function-key', name: 'Function key', roles: policy.keyRoles, via: 'key' } };
  if (!policy.tokens && policy.apiKey === undefined) return { actor: anonymousActor(policy.keyRoles) };
  return { refusal: unauthorized(policy, policy.tokens ? 'A bearer token is required in the Authorization header' : 'A valid key is required in the x-functions-key header') };
}
