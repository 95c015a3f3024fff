/**
 * The CLI signed in: `--token` / SIGNALBOX_TOKEN is sent as a bearer token, the history shows who made each
 * change, and `instance --available` shows what the signed-in user may send (and what not, with why).
 * The real binary against the local server on Azurite, with a real issuer on loopback.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Role } from '../../src/host/http/access';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer';
import { startTestHost, type TestHost } from '../support/local-host';
import { signalbox } from './run-signalbox';

let issuer: LocalIssuer;
let test: TestHost;
let env: Record<string, string>;

beforeAll(async () => {
  issuer = await startLocalIssuer({ audience: 'api://signalbox' });
  test = await startTestHost('cliidentity', { env: { SIGNALBOX_AUTH_ISSUERS: issuer.issuer, SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox' } });
  env = { SIGNALBOX_URL: `${test.host.url}/api`, NO_COLOR: '1' };
  const { $schema: _schema, ...definition } = JSON.parse(readFileSync(join(__dirname, '../../examples/expense-claim.json'), 'utf8')) as Record<string, unknown>;
  const admin = `Bearer ${await issuer.mint({ oid: 'admin', roles: [Role.admin] })}`;
  expect((await test.api.request('PUT', '/api/workflows/expense-claim', { json: definition, headers: { authorization: admin } })).status).toBe(201);
});
afterAll(async () => {
  await test.host.stop();
  await issuer.close();
});

it('sends a token, shows the actor in the history and what the user may send', async () => {
  const ann = await issuer.mint({ oid: 'ann-oid', name: 'Ann', roles: [Role.sender] });
  const started = await signalbox(['start', 'expense-claim', '--id', 'cli-claim', '--context', '{"claimantId":"ann-oid","amount":10}'], { env: { ...env, SIGNALBOX_TOKEN: ann } });
  expect(started.exitCode).toBe(0);
  const submitted = await signalbox(['send-to', 'cli-claim', 'Submit', '--wait', '--token', ann], { env });
  expect(submitted.exitCode).toBe(0);

  const shown = await signalbox(['instance', 'cli-claim', '--history', '--available'], { env: { ...env, SIGNALBOX_TOKEN: ann } });
  expect(shown.exitCode).toBe(0);
  expect(shown.stdout).toContain('ACTOR');
  expect(shown.stdout).toMatch(/transitioned .* Ann \(token\)/);
  expect(shown.stdout).toContain('Available triggers (waiting, for ann-oid)');
  expect(shown.stdout).toMatch(/NOT FOR YOU +WHY\s+approve +actor "ann-oid"/);
});

it('is refused without a token (exit 3, 401), and with a token lacking the role', async () => {
  const none = await signalbox(['instances'], { env });
  expect(none.exitCode).toBe(3);
  expect(none.stderr).toContain('401');
  const reader = await issuer.mint({ oid: 'rita', roles: [Role.reader] });
  const refused = await signalbox(['start', 'expense-claim', '--id', 'nope'], { env: { ...env, SIGNALBOX_TOKEN: reader } });
  expect(refused.exitCode).toBe(3);
  expect(refused.stderr).toContain(Role.sender);
});
