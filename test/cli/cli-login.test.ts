/**
 * The CLI gets its own token with @azure/identity when given the API's scope (`--scope` /
 * SIGNALBOX_SCOPE) and no token: from the Azure CLI's sign-in (`az login`), as Azure's own tools do.
 * `signalbox login` checks it end to end and says who the API takes you for. The real binary against
 * the local server, with a real issuer on loopback; `az` is a stand-in on PATH that answers as
 * `az account get-access-token` does, with a token that issuer minted.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role } from '../../src/host/http/access';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer';
import { startTestHost, type TestHost } from '../support/local-host';
import { signalbox } from './run-signalbox';

let issuer: LocalIssuer;
let test: TestHost;
let env: Record<string, string>;
let azLog: string;

beforeAll(async () => {
  issuer = await startLocalIssuer({ audience: 'api://signalbox' });
  test = await startTestHost('clilogin', { env: { SIGNALBOX_AUTH_ISSUERS: issuer.issuer, SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox' } });
  const bin = mkdtempSync(join(tmpdir(), 'fake-az-'));
  azLog = join(bin, 'calls.log');
  writeFileSync(join(bin, 'az'), `#!/bin/sh\necho "$@" >> "${azLog}"\nprintf '%s' "$FAKE_AZ_ANSWER"\n`);
  chmodSync(join(bin, 'az'), 0o755);
  const token = await issuer.mint({ oid: 'ann-oid', name: 'Ann', roles: [Role.sender] });
  const expiresOn = Math.floor(Date.now() / 1000) + 3600;
  env = {
    SIGNALBOX_URL: `${test.host.url}/api`,
    NO_COLOR: '1',
    PATH: `${bin}:${process.env.PATH}`,
    FAKE_AZ_ANSWER: JSON.stringify({ accessToken: token, expiresOn: new Date(expiresOn * 1000).toISOString(), expires_on: expiresOn, tokenType: 'Bearer' }),
  };
});
afterAll(async () => {
  await test.host.stop();
  await issuer.close();
});

it('signs in with the Azure CLI for the scope and says who the API takes you for', async () => {
  const login = await signalbox(['login', '--scope', 'api://signalbox/.default'], { env });
  expect(login.stderr).toBe('');
  expect(login.exitCode).toBe(0);
  expect(login.stdout).toContain('Signed in as Ann (ann-oid)');
  expect(login.stdout).toContain('Signalbox.Sender');
  // The Azure CLI is asked for the API's resource (the scope without /.default).
  expect(readFileSync(azLog, 'utf8')).toContain('account get-access-token --output json --resource api://signalbox');

  const json = await signalbox(['login', '--json'], { env: { ...env, SIGNALBOX_SCOPE: 'api://signalbox/.default' } });
  expect(JSON.parse(json.stdout)).toMatchObject({ actor: { id: 'ann-oid', name: 'Ann', roles: [Role.sender], via: 'token' } });
});

it('acts with that token on every command, and records the user as the actor', async () => {
  const admin = `Bearer ${await issuer.mint({ oid: 'admin', roles: [Role.admin] })}`;
  const { $schema: _schema, ...definition } = JSON.parse(readFileSync(join(__dirname, '../../examples/expense-claim.json'), 'utf8')) as Record<string, unknown>;
  expect((await test.api.request('PUT', '/api/workflows/expense-claim', { json: definition, headers: { authorization: admin } })).status).toBe(201);
  const started = await signalbox(['start', 'expense-claim', '--id', 'login-claim', '--context', '{"claimantId":"ann-oid"}'], { env: { ...env, SIGNALBOX_SCOPE: 'api://signalbox/.default' } });
  expect(started.exitCode).toBe(0);
  const history = await test.api.request('GET', '/api/instances/login-claim/history', { headers: { authorization: admin } });
  expect(history.body.items[0].actor).toMatchObject({ id: 'ann-oid', name: 'Ann', via: 'token' });
});

it('says what to do without a scope, and when the Azure CLI has no sign-in', async () => {
  const noScope = await signalbox(['login'], { env });
  expect(noScope.exitCode).toBe(2);
  expect(noScope.stderr).toContain('--scope');
  const notSignedIn = await signalbox(['login', '--scope', 'api://signalbox/.default'], { env: { ...env, FAKE_AZ_ANSWER: '' } });
  expect(notSignedIn.exitCode).not.toBe(0);
  expect(notSignedIn.stderr).toMatch(/az login|device-code/);
});
