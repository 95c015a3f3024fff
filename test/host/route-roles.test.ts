/**
 * Every route of the OpenAPI document is held to the role it declares (`x-signalbox-role`), generated from
 * the document itself: a route added without a role, or with one the access check does not enforce, fails
 * here. For each: no credential and a wrong credential are 401, a token whose roles do not grant the
 * route's is 403 naming the role, and the README's table says the same role.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { accessPolicyFromEnv, grants, publicRoute, Role, type RoleName } from '../../src/host/http/access';
import { buildOpenApiDocument } from '../../src/host/http/openapi';
import { routes } from '../../src/host/http/routes';
import { startInMemoryTestHost, type InMemoryTestHost } from '../support/in-memory-host';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer';

type Operation = { 'x-signalbox-role'?: string; security?: unknown[] };
const document = buildOpenApiDocument(routes) as { paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })));
const routeRoles = [...Object.values(Role), publicRoute] as string[];

/** The strongest roles that still do not grant `role`. */
function rolesShort(role: RoleName): string[] {
  const all = [Role.reader, Role.sender, Role.operator, Role.admin, Role.impersonate];
  return all.filter((candidate) => !grants([candidate], role));
}

let issuer: LocalIssuer;
let host: InMemoryTestHost;
beforeAll(async () => {
  issuer = await startLocalIssuer({ audience: 'api://signalbox' });
  host = await startInMemoryTestHost({ access: accessPolicyFromEnv({ SIGNALBOX_AUTH_ISSUERS: issuer.issuer, SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox', SIGNALBOX_API_KEY: 'the-key' }) });
});
afterAll(async () => {
  await host.stop();
  await issuer.close();
});

it('declares a known role on every operation, and security on every one that is not public', () => {
  expect(operations.length).toBeGreaterThan(25);
  for (const { path, method, operation } of operations) {
    expect({ path, method, role: routeRoles.includes(operation['x-signalbox-role'] ?? '') }).toEqual({ path, method, role: true });
    expect({ path, method, secured: (operation.security ?? []).length > 0 }).toEqual({ path, method, secured: operation['x-signalbox-role'] !== publicRoute });
  }
});

describe.each(operations.filter(({ operation }) => operation['x-signalbox-role'] !== publicRoute))('$method $path', ({ path, method, operation }) => {
  const role = operation['x-signalbox-role'] as RoleName;
  const url = `/api${path.replace(/\{(\w+)\}/g, 'x-$1')}`;
  const send = (headers: Record<string, string>) => host.api.request(method, url, { headers: method === 'GET' ? headers : { 'content-type': 'application/json', ...headers } });

  it('answers 401 without a credential', async () => {
    expect((await send({})).status).toBe(401);
  });
  it('answers 401 with a wrong credential', async () => {
    expect((await send({ authorization: `Bearer ${await issuer.mint({ roles: [role] }, { unpublishedKey: true })}` })).status).toBe(401);
    expect((await send({ 'x-functions-key': 'not-the-key' })).status).toBe(401);
  });
  it(`answers 403 naming ${role} to a token without it`, async () => {
    const response = await send({ authorization: `Bearer ${await issuer.mint({ roles: rolesShort(role) })}` });
    expect(response.status).toBe(403);
    expect(response.body.detail).toContain(role);
  });
  it(`lets a token with ${role} past the access check`, async () => {
    const response = await send({ authorization: `Bearer ${await issuer.mint({ roles: [role] })}` });
    expect([401, 403]).not.toContain(response.status);
  });
});

/** The README and every page of the docs: a route's row of the roles table may be on the page of its feature (docs/guides/retrying-faults.md). */
function documentation(): string {
  const root = join(__dirname, '../..');
  const pages = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.md') && !path.split(sep).includes('node_modules'));
  return [readFileSync(join(root, 'README.md'), 'utf8'), ...pages.map((path) => readFileSync(join(root, 'docs', path), 'utf8'))].join('\n');
}

it("matches the documentation's table of roles, row for row", () => {
  const readme = documentation();
  const rows = new Map<string, string>();
  for (const match of readme.matchAll(/^\| `(GET|POST|PUT|PATCH|DELETE) (\/api\/[^`]+)` +\| (`[^|`]+`|public) +\|/gm)) rows.set(`${match[1]} ${match[2]}`, match[3]!.replaceAll('`', ''));
  const expected = new Map(operations.map(({ path, method, operation }) => [`${method} /api${path}`, operation['x-signalbox-role']!]));
  expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(expected));
});
