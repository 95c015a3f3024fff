/**
 * Bearer tokens against a real issuer on loopback (test/support/local-issuer.ts): one valid token is let
 * in, and every hostile one is refused with 401, a WWW-Authenticate challenge, a problem body that does not
 * echo it, and no change (no operation was recorded).
 */
import { base64url, SignJWT } from 'jose';
import { accessPolicyFromEnv, checkAccess, Role } from '../../src/host/http/access';
import { TokenVerifier } from '../../src/host/http/token-verifier';
import { startInMemoryTestHost, type InMemoryTestHost } from '../support/in-memory-host';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer';

let issuer: LocalIssuer;
let otherTenant: LocalIssuer;
let host: InMemoryTestHost;
const ADMIN_KEY = 'admin-key-for-checks';

beforeAll(async () => {
  issuer = await startLocalIssuer({ audience: 'api://signalbox' });
  otherTenant = await startLocalIssuer({ audience: 'api://signalbox', tenantId: '22222222-2222-4222-8222-222222222222' });
  host = await startInMemoryTestHost({
    access: accessPolicyFromEnv({ SIGNALBOX_AUTH_ISSUERS: issuer.issuer, SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox', SIGNALBOX_API_KEY: ADMIN_KEY }),
  });
});
afterAll(async () => {
  await host.stop();
  await issuer.close();
  await otherTenant.close();
});

const trigger = { name: 'Ping', subjects: ['order-1'] };
const sendWith = (token: string) => host.api.request('POST', '/api/triggers', { json: trigger, headers: { authorization: `Bearer ${token}` } });
const operationCount = async () => (await host.api.request('GET', '/api/operations', { headers: { 'x-functions-key': ADMIN_KEY } })).body.items.length as number;

function part(value: unknown): string {
  return base64url.encode(JSON.stringify(value));
}

it('lets a valid token in, as the user it names, with its roles', async () => {
  const token = await issuer.mint({ oid: 'alice-oid', name: 'Alice', roles: [Role.sender] });
  const sent = await sendWith(token);
  expect(sent.status).toBe(202);
  const listed = await host.api.request('GET', '/api/operations', { headers: { authorization: `Bearer ${token}` } });
  expect(listed.status).toBe(200);
});

describe('hostile tokens: 401, a challenge, no echo, no change', () => {
  const hostile: Record<string, () => Promise<string>> = {
    'a wrong signature': async () => issuer.mint({ roles: [Role.admin] }, { unpublishedKey: true }),
    'alg none': async () => `${part({ alg: 'none', typ: 'JWT' })}.${part({ iss: issuer.issuer, aud: 'api://signalbox', sub: 'x', roles: [Role.admin], exp: Math.floor(Date.now() / 1000) + 600 })}.`,
    'an HMAC token signed with the public key': async () => {
      const publicKey = new TextEncoder().encode(JSON.stringify(issuer.publicJwk()));
      return new SignJWT({ roles: [Role.admin], oid: 'mallory' })
        .setProtectedHeader({ alg: 'HS256', kid: issuer.publicJwk().kid! })
        .setIssuer(issuer.issuer)
        .setAudience('api://signalbox')
        .setExpirationTime('10m')
        .sign(publicKey);
    },
    'an expired token': () => issuer.mint({ roles: [Role.admin] }, { expiresInSeconds: -600 }),
    'a token not yet valid': () => issuer.mint({ roles: [Role.admin] }, { notBeforeInSeconds: 600 }),
    'a wrong audience': () => issuer.mint({ roles: [Role.admin], aud: 'api://someone-else' }),
    'a wrong issuer': () => issuer.mint({ roles: [Role.admin], iss: 'https://login.microsoftonline.com/evil/v2.0' }),
    'an unknown kid': () => issuer.mint({ roles: [Role.admin] }, { kid: 'no-such-key' }),
    'a token from another tenant': () => otherTenant.mint({ roles: [Role.admin] }),
    'a header that is not JSON': async () => `${base64url.encode('not json')}.${part({ iss: issuer.issuer })}.c2ln`,
    'a payload that is not JSON': async () => `${part({ alg: 'RS256', kid: issuer.publicJwk().kid })}.${base64url.encode('{not json')}.c2ln`,
  };
  for (const [name, make] of Object.entries(hostile)) {
    it(`refuses ${name}`, async () => {
      const before = await operationCount();
      const token = await make();
      const sent = await sendWith(token);
      expect(sent.status).toBe(401);
      expect(sent.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[^"]+"$/);
      expect(sent.headers.get('content-type')).toBe('application/problem+json');
      expect(sent.body).toMatchObject({ status: 401, title: 'Unauthorized' });
      expect(sent.text).not.toContain(token.slice(0, 40));
      expect(sent.headers.get('www-authenticate')).not.toContain(token.slice(0, 40));
      expect(await operationCount()).toBe(before);
    });
  }
});

it('refuses a 100 KB token: 401 from the access check, and over HTTP already at the header limit, changing nothing', async () => {
  const token = await issuer.mint({ roles: [Role.admin], padding: 'x'.repeat(100 * 1024) });
  const access = accessPolicyFromEnv({ SIGNALBOX_AUTH_ISSUERS: issuer.issuer, SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox' });
  const checked = await checkAccess(Role.sender, { url: new URL('http://localhost/api/triggers'), headers: new Headers({ authorization: `Bearer ${token}` }) }, access);
  expect(checked.refusal?.status).toBe(401);
  expect(checked.refusal?.headers?.['www-authenticate']).toBe('Bearer error="invalid_token", error_description="The token is longer than 16384 characters"');
  const before = await operationCount();
  // Node's 16 KiB header limit answers first on the local server (431); the Functions host has the check above.
  expect([401, 431]).toContain((await sendWith(token)).status);
  expect(await operationCount()).toBe(before);
});

it('fetches the JWKS again for an unknown kid (a rotated key)', async () => {
  const rotating = await startLocalIssuer({ audience: 'api://signalbox' });
  const verifier = new TokenVerifier({ issuers: [rotating.issuer], audiences: ['api://signalbox'], rolesClaim: 'roles', jwksCooldownInMs: 0 });
  try {
    await verifier.verify(await rotating.mint({ oid: 'bob' }));
    expect(rotating.jwksRequests).toBe(1);
    await rotating.rotate();
    await expect(verifier.verify(await rotating.mint({ oid: 'bob' }))).resolves.toMatchObject({ id: 'bob', via: 'token' });
    expect(rotating.jwksRequests).toBe(2);
    expect(rotating.discoveryRequests).toBe(1);
  } finally {
    await rotating.close();
  }
});

it('does not fetch the JWKS once per unknown kid: a flood waits for the cooldown', async () => {
  await sendWith(await issuer.mint({ roles: [Role.sender] }));
  const fetchedBefore = issuer.jwksRequests;
  for (let attempt = 0; attempt < 5; attempt++) expect((await sendWith(await issuer.mint({ roles: [Role.admin] }, { kid: `unknown-${attempt}` }))).status).toBe(401);
  expect(issuer.jwksRequests).toBeLessThanOrEqual(fetchedBefore + 1);
  expect(issuer.discoveryRequests).toBe(1);
});

it('asks for a token when none is sent, and refuses a key that is wrong', async () => {
  const none = await host.api.request('GET', '/api/operations');
  expect(none.status).toBe(401);
  expect(none.headers.get('www-authenticate')).toBe('Bearer');
  expect((await host.api.request('GET', '/api/operations', { headers: { 'x-functions-key': 'wrong' } })).status).toBe(401);
  expect((await host.api.request('GET', '/api/operations', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
});

it('answers 403 naming the missing role', async () => {
  const reader = await issuer.mint({ oid: 'carol', roles: [Role.reader] });
  const sent = await sendWith(reader);
  expect(sent.status).toBe(403);
  expect(sent.body.detail).toContain(Role.sender);
});

it('refuses on-behalf-of without Signalbox.Impersonate, and records both identities with it', async () => {
  const sender = await issuer.mint({ oid: 'service', roles: [Role.sender] });
  const refused = await host.api.request('POST', '/api/triggers', { json: trigger, headers: { authorization: `Bearer ${sender}`, 'on-behalf-of': 'alice' } });
  expect(refused.status).toBe(403);
  expect(refused.body.detail).toContain(Role.impersonate);
  const impersonator = await issuer.mint({ oid: 'service', roles: [Role.sender, Role.impersonate] });
  const sent = await host.api.request('POST', '/api/triggers', { json: { ...trigger, id: 'obo-1' }, headers: { authorization: `Bearer ${impersonator}`, 'on-behalf-of': 'alice', prefer: 'wait=10' } });
  expect(sent.status).toBe(200);
  expect(sent.body.actor).toMatchObject({ id: 'service', via: 'token', onBehalfOf: { id: 'alice' } });
});
