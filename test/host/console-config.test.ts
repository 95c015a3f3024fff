/**
 * What the web console learns from the server before anyone signs in (`GET /api/console-config`: the
 * OpenID Connect authority, its client id and the API scope, and whether keys are on), and who the
 * server takes a caller for once signed in (`GET /api/me`). The console's pages are allowed to call the
 * authority (content security policy), and nothing else off their origin.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { accessPolicyFromEnv } from '../../src/host/http/access';
import { consoleConfigFromEnv } from '../../src/host/http/system/console-routes';
import { serveConsoleAsset } from '../../src/host/console-assets';
import { startInMemoryTestHost, type InMemoryTestHost } from '../support/in-memory-host';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer';

let issuer: LocalIssuer;
let host: InMemoryTestHost;
let env: Record<string, string>;
beforeAll(async () => {
  issuer = await startLocalIssuer({ audience: 'api://signalbox' });
  env = {
    SIGNALBOX_AUTH_ISSUERS: issuer.issuer,
    SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox',
    SIGNALBOX_CONSOLE_AUTHORITY: issuer.issuer,
    SIGNALBOX_CONSOLE_CLIENT_ID: 'signalbox-console',
    SIGNALBOX_CONSOLE_SCOPE: 'api://signalbox/access',
  };
  host = await startInMemoryTestHost({ env, access: accessPolicyFromEnv(env) });
});
afterAll(async () => {
  await host.stop();
  await issuer.close();
});

it('tells anyone where the console signs in, with openid and profile added to the scope, and that keys are off', async () => {
  const response = await host.api.request('GET', '/api/console-config');
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ signIn: { authority: issuer.issuer, clientId: 'signalbox-console', scope: 'openid profile api://signalbox/access' }, keys: false });
});

it('says keys are on with SIGNALBOX_API_KEY or without issuers, and offers no sign-in without an authority', () => {
  expect(consoleConfigFromEnv({ ...env, SIGNALBOX_API_KEY: 'k' }).keys).toBe(true);
  expect(consoleConfigFromEnv({})).toEqual({ keys: true });
});

it('refuses an incomplete sign-in setting at start-up, naming the settings', () => {
  expect(() => consoleConfigFromEnv({ SIGNALBOX_CONSOLE_AUTHORITY: issuer.issuer })).toThrow(/SIGNALBOX_CONSOLE_CLIENT_ID and SIGNALBOX_CONSOLE_SCOPE/);
  expect(() => consoleConfigFromEnv({ SIGNALBOX_CONSOLE_AUTHORITY: 'not a url', SIGNALBOX_CONSOLE_CLIENT_ID: 'c', SIGNALBOX_CONSOLE_SCOPE: 's' })).toThrow(/SIGNALBOX_CONSOLE_AUTHORITY/);
});

it('answers who the token names, with its roles, and 401 to no one', async () => {
  const token = await issuer.mint({ sub: 'alice-oid', name: 'Alice Example', roles: ['Signalbox.Sender'] });
  const me = await host.api.request('GET', '/api/me', { headers: { authorization: `Bearer ${token}` } });
  expect(me.status).toBe(200);
  // With no tenant but the default configured, a token's tenants are the default one.
  expect(me.body).toEqual({ id: 'alice-oid', name: 'Alice Example', tenantId: issuer.tenantId, roles: ['Signalbox.Sender'], via: 'token', tenants: ['default'] });
  expect((await host.api.request('GET', '/api/me')).status).toBe(401);
});

it("lets the console's pages call the authority's origin, and no other", async () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'console-'));
  writeFileSync(path.join(folder, 'index.html'), '<!doctype html>');
  const withSignIn = await serveConsoleAsset(folder, 'GET', '', 'http://127.0.0.1:4000/tenant/v2.0');
  expect(withSignIn?.headers['content-security-policy']).toContain("connect-src 'self' http://127.0.0.1:4000;");
  const without = await serveConsoleAsset(folder, 'GET', '');
  expect(without?.headers['content-security-policy']).toContain("connect-src 'self';");
});
