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
 *   `anonymous` with every role, in every tenant.
 * - The credential also decides the tenants a caller may use (`TenantGrant`): a token's tenants claim, its
 *   `Signalbox.Tenant.<id>` app roles and its Entra `tid` mapped by SIGNALBOX_AUTH_TENANT_MAP; a key's
 *   SIGNALBOX_API_KEY_TENANTS. A credential that names no tenant may use the default tenant only.
 */
import { DEFAULT_TENANT_ID } from '../../storage/names';
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
  /** Create, list, read and delete tenants (/api/tenants): deployment-wide, so no other role grants it. */
  tenantAdmin: 'Signalbox.TenantAdmin',
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
  if (needed === Role.impersonate || needed === Role.tenantAdmin) return false;
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
  /** Tenants a key's principal may use (SIGNALBOX_API_KEY_TENANTS). @default the default tenant only */
  readonly keyTenants?: TenantGrant;
  /** Entra tenant ids (`tid`) mapped to Signalbox tenants (SIGNALBOX_AUTH_TENANT_MAP). */
  readonly tenantOfTid?: Readonly<Record<string, string>>;
}

/** The tenants a caller may use: every one (an open server, a key configured with `*`), or those listed. */
export type TenantGrant = '*' | readonly string[];

/** The app role that grants a tenant (`Signalbox.Tenant.contoso`), for providers that carry tenants as app roles. */
export const TENANT_ROLE_PREFIX = 'Signalbox.Tenant.';
/** The token claim listing the caller's Signalbox tenant ids. */
export const TENANTS_CLAIM = 'tenants';

export function mayUseTenant(grant: TenantGrant, tenantId: string): boolean {
  return grant === '*' || grant.includes(tenantId);
}

/** The tenants a token's claims grant: its `tenants` claim, its tenant app roles, and its `tid` mapped; else the default tenant. */
export function tenantsOfToken(actor: Actor, tenantsClaim: readonly string[], policy: Pick<AccessPolicy, 'tenantOfTid'>): TenantGrant {
  const tenants = new Set(tenantsClaim);
  for (const role of actor.roles) if (role.startsWith(TENANT_ROLE_PREFIX)) tenants.add(role.slice(TENANT_ROLE_PREFIX.length));
  const mapped = actor.tenantId !== undefined ? policy.tenantOfTid?.[actor.tenantId] : undefined;
  if (mapped) tenants.add(mapped);
  return tenants.size > 0 ? [...tenants] : [DEFAULT_TENANT_ID];
}

function tenantGrantFrom(setting: string | undefined): TenantGrant {
  if (setting === undefined) return [DEFAULT_TENANT_ID];
  const tenants = setting
    .split(',')
    .map((tenant) => tenant.trim())
    .filter(Boolean);
  return tenants.includes('*') ? '*' : tenants;
}

function tenantMapFrom(setting: string | undefined): Record<string, string> | undefined {
  if (setting === undefined) return undefined;
  const map: Record<string, string> = {};
  for (const pair of setting.split(',')) {
    const [tid, tenant] = pair.split('=').map((part) => part.trim());
    if (!tid || !tenant) throw new Error('SIGNALBOX_AUTH_TENANT_MAP: each entry is <entra-tenant-id>=<signalbox-tenant-id>');
    map[tid] = tenant;
  }
  return map;
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
    keyTenants: tenantGrantFrom(readSetting('SIGNALBOX_API_KEY_TENANTS', env)),
    ...(readSetting('SIGNALBOX_AUTH_TENANT_MAP', env) ? { tenantOfTid: tenantMapFrom(readSetting('SIGNALBOX_AUTH_TENANT_MAP', env)) } : {}),
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

export type AccessOutcome =
  { readonly actor: Actor; readonly tenants?: TenantGrant; readonly refusal?: undefined } | { readonly refusal: ApiResponse; readonly actor?: undefined; readonly tenants?: undefined };

/** True for a server that checks nothing (no key, no issuers): every caller may do everything. */
function isOpen(policy: AccessPolicy): boolean {
  return !policy.tokens && policy.apiKey === undefined && !policy.platformCheckedKey;
}

/** What `role` needs `request` to be; the route role `public` lets everyone in. */
export async function checkAccess(role: RouteRole, request: Pick<ApiRequest, 'headers' | 'url'>, policy: AccessPolicy): Promise<AccessOutcome> {
  if (role === publicRoute) return { actor: anonymousActor([]) };
  const authenticated = await authenticate(request, policy);
  if (authenticated.refusal) return authenticated;
  const { actor } = authenticated;
  // An open server administers its tenants too; the role is otherwise granted by itself only.
  if (!(grants(actor.roles, role) || (role === Role.tenantAdmin && isOpen(policy))))
    return { refusal: forbidden(policy, role, `This route needs the role ${role}, which ${actor.via === 'token' ? 'the token' : 'the key'} does not have`) };
  const onBehalfOf = request.headers.get(ON_BEHALF_OF_HEADER);
  if (onBehalfOf === null) return authenticated;
  if (!grants(actor.roles, Role.impersonate)) return { refusal: forbidden(policy, Role.impersonate, `The ${ON_BEHALF_OF_HEADER} header needs the role ${Role.impersonate}`) };
  const id = onBehalfOf.trim();
  if (!/^[A-Za-z0-9._:@-]{1,256}$/.test(id)) {
    return {
      refusal: problem(400, 'Invalid request', `The ${ON_BEHALF_OF_HEADER} header must be a user id: 1-256 characters of A-Z a-z 0-9 . _ : @ -`, [
        { path: ON_BEHALF_OF_HEADER, message: 'not a user id' },
      ]),
    };
  }
  return { ...authenticated, actor: { ...actor, onBehalfOf: { id } } };
}

async function authenticate(request: Pick<ApiRequest, 'headers' | 'url'>, policy: AccessPolicy): Promise<AccessOutcome> {
  const authorization = request.headers.get('authorization');
  if (authorization !== null) {
    const match = /^Bearer +([^\s]+) *$/i.exec(authorization);
    if (!match) return { refusal: unauthorized(policy, 'The Authorization header must be "Bearer <token>"', 'invalid_request') };
    if (!policy.tokens) return { refusal: problem(401, 'Unauthorized', 'This server accepts no bearer tokens (SIGNALBOX_AUTH_ISSUERS is not set): send a key in x-functions-key') };
    try {
      const { actor, tenants } = await policy.tokens.verifyWithTenants(match[1]!);
      return { actor, tenants: tenantsOfToken(actor, tenants, policy) };
    } catch (error) {
      if (error instanceof InvalidTokenError) return { refusal: unauthorized(policy, error.message, 'invalid_token') };
      throw error;
    }
  }
  const key = request.headers.get('x-functions-key') ?? request.url.searchParams.get('code');
  if (policy.apiKey !== undefined) {
    if (keyMatches(policy.apiKey, key)) return { actor: { id: 'api-key', name: 'API key', roles: policy.keyRoles, via: 'key' }, tenants: policy.keyTenants ?? [DEFAULT_TENANT_ID] };
    if (key !== null) return { refusal: unauthorized(policy, 'The key is not valid') };
  }
  if (policy.platformCheckedKey) return { actor: { id: 'function-key', name: 'Function key', roles: policy.keyRoles, via: 'key' }, tenants: policy.keyTenants ?? [DEFAULT_TENANT_ID] };
  if (!policy.tokens && policy.apiKey === undefined) return { actor: anonymousActor(policy.keyRoles), tenants: '*' };
  return { refusal: unauthorized(policy, policy.tokens ? 'A bearer token is required in the Authorization header' : 'A valid key is required in the x-functions-key header') };
}
