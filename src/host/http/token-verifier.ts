/**
 * @module Bearer tokens (JWTs, RFC 9068 style, as Microsoft Entra ID issues them for an API) validated in
 * the app with jose: the signature against the issuer's JWKS, `iss`, `aud`, `exp` and `nbf` with a small
 * skew, and an allow-list of asymmetric algorithms (never `none`, never HMAC: an HMAC "signed" with an
 * issuer's public key would otherwise verify). Each issuer's JWKS is found through its
 * `/.well-known/openid-configuration` (https only, except on loopback), cached, and fetched again when a
 * token names a key id it does not hold (jose's remote key set, with a cooldown so that a flood of unknown
 * key ids cannot make us hammer the issuer).
 *
 * Every refusal is an InvalidTokenError whose message is one of the fixed sentences below: it goes into
 * the WWW-Authenticate header and the problem body, so it never carries the token or a claim's value.
 */
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Actor } from '../../engine/model';
import { readSetting, type Environment } from '../settings';

/** Longer tokens are refused before any parsing (an Entra ID access token is 1-3 KB; headers are capped near 8-16 KB anyway). */
export const MAX_TOKEN_LENGTH = 16 * 1024;
/** Clock skew allowed on `exp` and `nbf`. */
export const TOKEN_CLOCK_SKEW_IN_SECONDS = 60;
/** Asymmetric JWS algorithms only. */
export const ALLOWED_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
/** How long a fetched JWKS is used before it is fetched again, and the least time between two fetches. */
const JWKS_CACHE_MAX_AGE_MS = 10 * 60_000;
const JWKS_COOLDOWN_MS = 30_000;
const DISCOVERY_TIMEOUT_MS = 5_000;

export class InvalidTokenError extends Error {}

export interface TokenSettings {
  /** Issuer URLs exactly as tokens carry them in `iss`. */
  readonly issuers: readonly string[];
  /** Accepted `aud` values (the API's application id URI and/or client id). */
  readonly audiences: readonly string[];
  /** The claim holding app roles. @default 'roles' */
  readonly rolesClaim: string;
  /** The least time between two JWKS fetches for unknown key ids. @default 30 s */
  readonly jwksCooldownInMs?: number;
}

/** True for an http(s) URL the app may fetch keys from: https, or http on a loopback host. */
export function isAllowedKeyUrl(url: URL): boolean {
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

/** The token settings, or undefined when no issuer is set (tokens are then refused). Throws on a bad setting, at start-up. */
export function tokenSettingsFromEnv(env: Environment): TokenSettings | undefined {
  const issuers = (readSetting('SIGNALBOX_AUTH_ISSUERS', env) ?? '')
    .split(',')
    .map((issuer) => issuer.trim())
    .filter(Boolean);
  if (issuers.length === 0) return undefined;
  for (const issuer of issuers) {
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      throw new Error(`SIGNALBOX_AUTH_ISSUERS: ${JSON.stringify(issuer)} is not a URL`);
    }
    if (!isAllowedKeyUrl(url)) throw new Error(`SIGNALBOX_AUTH_ISSUERS: ${JSON.stringify(issuer)} must be https (http only on localhost, 127.0.0.1 or [::1])`);
  }
  const audiences = (readSetting('SIGNALBOX_AUTH_AUDIENCE', env) ?? '')
    .split(',')
    .map((audience) => audience.trim())
    .filter(Boolean);
  if (audiences.length === 0) throw new Error("SIGNALBOX_AUTH_AUDIENCE must be set when SIGNALBOX_AUTH_ISSUERS is: the API's application id URI or client id");
  return { issuers, audiences, rolesClaim: readSetting('SIGNALBOX_AUTH_ROLES_CLAIM', env) ?? 'roles' };
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : typeof value === 'string' ? [value] : [];
}

export class TokenVerifier {
  private readonly keySets = new Map<string, Promise<JWTVerifyGetKey>>();

  constructor(readonly settings: TokenSettings) {}

  /** The actor the token names; throws InvalidTokenError for any token that is not valid here. */
  async verify(token: string): Promise<Actor> {
    return (await this.verifyWithTenants(token)).actor;
  }

  /** The actor, and the Signalbox tenant ids of the token's `tenants` claim (access.ts adds roles and `tid`). */
  async verifyWithTenants(token: string): Promise<{ readonly actor: Actor; readonly tenants: readonly string[] }> {
    if (token.length > MAX_TOKEN_LENGTH) throw new InvalidTokenError(`The token is longer than ${MAX_TOKEN_LENGTH} characters`);
    if (token.split('.').length !== 3) throw new InvalidTokenError('The token is not a signed JWT (three base64url parts)');
    let algorithm: unknown;
    let issuer: unknown;
    try {
      algorithm = decodeProtectedHeader(token).alg;
    } catch {
      throw new InvalidTokenError('The token header is not a base64url JSON object');
    }
    if (typeof algorithm !== 'string' || !(ALLOWED_TOKEN_ALGORITHMS as readonly string[]).includes(algorithm)) {
      throw new InvalidTokenError(`The token algorithm is not allowed: only ${ALLOWED_TOKEN_ALGORITHMS.join(', ')}`);
    }
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw new InvalidTokenError('The token payload is not a base64url JSON object');
    }
    // Checked before any fetch: a token cannot make the app fetch keys from a URL of its choosing.
    if (typeof issuer !== 'string' || !this.settings.issuers.includes(issuer)) throw new InvalidTokenError('The token issuer is not accepted here');
    const keys = await this.keySetOf(issuer);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer,
        audience: [...this.settings.audiences],
        algorithms: [...ALLOWED_TOKEN_ALGORITHMS],
        clockTolerance: TOKEN_CLOCK_SKEW_IN_SECONDS,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw new InvalidTokenError(refusalOf(error));
    }
    return { actor: this.actorOf(payload), tenants: stringsOf(payload.tenants) };
  }

  private actorOf(payload: JWTPayload): Actor {
    const id = typeof payload.oid === 'string' ? payload.oid : payload.sub;
    if (!id) throw new InvalidTokenError('The token names no subject (oid or sub)');
    const name = [payload.name, payload.preferred_username, payload.upn, payload.app_displayname].find((value): value is string => typeof value === 'string') ?? id;
    const groups = stringsOf(payload.groups);
    return {
      id,
      name,
      ...(typeof payload.tid === 'string' ? { tenantId: payload.tid } : {}),
      roles: stringsOf(payload[this.settings.rolesClaim]),
      ...(groups.length > 0 ? { groups } : {}),
      via: 'token',
    };
  }

  /** The issuer's remote key set, from its discovery document; a failed discovery is tried again by the next token. */
  private keySetOf(issuer: string): Promise<JWTVerifyGetKey> {
    let keySet = this.keySets.get(issuer);
    if (!keySet) {
      keySet = discoverKeySet(issuer, this.settings.jwksCooldownInMs ?? JWKS_COOLDOWN_MS);
      this.keySets.set(issuer, keySet);
      keySet.catch(() => this.keySets.delete(issuer));
    }
    return keySet.catch(() => {
      throw new InvalidTokenError("The issuer's signing keys could not be fetched");
    });
  }
}

async function discoverKeySet(issuer: string, cooldownInMs: number): Promise<JWTVerifyGetKey> {
  const response = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), redirect: 'error' });
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (document.issuer !== issuer) throw new Error('the discovery document names another issuer');
  if (typeof document.jwks_uri !== 'string') throw new Error('the discovery document has no jwks_uri');
  const jwksUrl = new URL(document.jwks_uri);
  if (!isAllowedKeyUrl(jwksUrl)) throw new Error('jwks_uri must be https (http only on loopback)');
  return createRemoteJWKSet(jwksUrl, { cacheMaxAge: JWKS_CACHE_MAX_AGE_MS, cooldownDuration: cooldownInMs, timeoutDuration: DISCOVERY_TIMEOUT_MS });
}

/** jose's error, as a fixed sentence. */
function refusalOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'The token is not yet valid';
    if (error.claim === 'aud') return 'The token is not for this API (audience)';
    if (error.claim === 'iss') return 'The token issuer is not accepted here';
    return 'A claim of the token is not valid';
  }
  if (error instanceof errors.JWKSNoMatchingKey) return 'No signing key of the issuer matches the token';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'The token signature does not verify';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'The token algorithm is not allowed';
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return "The issuer's signing keys could not be fetched";
  return 'The token is not valid';
}
