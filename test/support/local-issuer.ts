/**
 * A real token issuer on loopback, for tests (and for development: see docs/guides/identity.md):
 * an HTTP server publishing an OpenID Connect discovery document and a JWKS, and minting RS256 access
 * tokens with jose, as Microsoft Entra ID issues them for an API (`iss`, `aud`, `oid`, `tid`, `roles`).
 *
 * ```ts
 * const issuer = await startLocalIssuer({ audience: 'api://signalbox' });
 * // SIGNALBOX_AUTH_ISSUERS=issuer.issuer, SIGNALBOX_AUTH_AUDIENCE='api://signalbox'
 * const token = await issuer.mint({ oid: 'alice', name: 'Alice', roles: ['Signalbox.Sender'] });
 * await issuer.close();
 * ```
 *
 * `mint(claims, options)` signs `claims` (they override the defaults: `iss`, `aud`, `sub`/`oid`, `tid`,
 * `iat`, `nbf`, `exp` one hour on) with the published key, unless `options` say otherwise: another
 * signing key (`unpublishedKey`: a key the JWKS does not hold), a `kid`, a lifetime, an issuer. `rotate()`
 * publishes a new key (the old one stays published) and signs with it from then on. `discoveryRequests`
 * and `jwksRequests` count fetches, to see what the app caches. The console's sign-in (authorization
 * code + PKCE) needs a full OpenID provider: `oidc-provider` is installed for that.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export interface MintOptions {
  /** Seconds from now until `exp` (negative: already expired). @default 3600 */
  readonly expiresInSeconds?: number;
  /** Seconds from now until `nbf` (positive: not yet valid). @default 0 */
  readonly notBeforeInSeconds?: number;
  /** The header's `kid`. @default the current published key's */
  readonly kid?: string;
  /** Sign with a fresh key the JWKS does not publish (a forged token), keeping the published `kid`. */
  readonly unpublishedKey?: boolean;
}

export interface LocalIssuer {
  /** The issuer URL (`iss`), for SIGNALBOX_AUTH_ISSUERS. */
  readonly issuer: string;
  readonly audience: string;
  /** The tenant id tokens carry in `tid`. */
  readonly tenantId: string;
  /** The current signing key's public JWK (with `kid` and `alg`). */
  publicJwk(): JWK;
  mint(claims?: JWTPayload, options?: MintOptions): Promise<string>;
  /** Publishes a new signing key, used from now on; the previous ones stay published. */
  rotate(): Promise<void>;
  readonly discoveryRequests: number;
  readonly jwksRequests: number;
  close(): Promise<void>;
}

interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

let keyCounter = 0;
async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `key-${++keyCounter}-${Math.random().toString(36).slice(2, 8)}`;
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startLocalIssuer(options: { audience?: string; tenantId?: string; path?: string } = {}): Promise<LocalIssuer> {
  const audience = options.audience ?? 'api://signalbox-test';
  const tenantId = options.tenantId ?? '11111111-1111-4111-8111-111111111111';
  const keys: SigningKey[] = [await newKey()];
  let discoveryRequests = 0;
  let jwksRequests = 0;
  let issuer = '';
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const json = (body: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (path === `${new URL(issuer).pathname.replace(/\/$/, '')}/.well-known/openid-configuration`) {
      discoveryRequests++;
      return json({ issuer, jwks_uri: `${new URL(issuer).origin}/keys`, id_token_signing_alg_values_supported: ['RS256'], response_types_supported: ['code'], subject_types_supported: ['public'] });
    }
    if (path === '/keys') {
      jwksRequests++;
      return json({ keys: keys.map((key) => key.publicJwk) });
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // A path, as Entra ID's issuers have one (`/<tenant>/v2.0`).
  issuer = `http://127.0.0.1:${port}${options.path ?? `/${tenantId}/v2.0`}`;
  const current = () => keys[keys.length - 1]!;
  return {
    issuer,
    audience,
    tenantId,
    publicJwk: () => current().publicJwk,
    async mint(claims = {}, mintOptions = {}) {
      const key = mintOptions.unpublishedKey ? await newKey() : current();
      const now = Math.floor(Date.now() / 1000);
      const subject = typeof claims.sub === 'string' ? claims.sub : 'test-user';
      return new SignJWT({ oid: subject, tid: tenantId, ...claims })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: mintOptions.kid ?? current().kid })
        .setIssuer(typeof claims.iss === 'string' ? claims.iss : issuer)
        .setAudience((claims.aud as string | string[] | undefined) ?? audience)
        .setSubject(subject)
        .setIssuedAt(now)
        .setNotBefore(now + (mintOptions.notBeforeInSeconds ?? 0))
        .setExpirationTime(now + (mintOptions.expiresInSeconds ?? 3600))
        .sign(key.privateKey);
    },
    async rotate() {
      keys.push(await newKey());
    },
    get discoveryRequests() {
      return discoveryRequests;
    },
    get jwksRequests() {
      return jwksRequests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
