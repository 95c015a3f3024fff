/**
 * @module What the web console needs to know before it can sign anyone in: where to sign in (an OpenID
 * Connect authority, the console's client id there and the API's scope, from SIGNALBOX_CONSOLE_*) and
 * whether keys are on, answered to anyone (it holds no secret: a single-page app's client id is public);
 * and who the server takes the caller for, so that the console shows the name and roles the API acts on,
 * not what the browser believes.
 */
import { z } from 'zod';
import { readSetting, type Environment } from '../../settings';
import { DEFAULT_TENANT_ID } from '../../../storage/names';
import { publicRoute, Role, type TenantGrant } from '../access';
import { actorSchema } from '../api-schemas';
import { defineRoute } from '../route';
import { tokenSettingsFromEnv } from '../token-verifier';
import { actorOf, type ApiServices, type RouteDefinition } from '../types';

export const consoleSignInSchema = z
  .object({
    authority: z.url().meta({ description: 'The OpenID Connect issuer the console signs in with (its /.well-known/openid-configuration is read).' }),
    clientId: z.string().min(1).meta({ description: "The console's client id (a single-page application registration)." }),
    scope: z.string().min(1).meta({ description: 'The scopes the console asks the access token for, `openid profile` included.' }),
  })
  .meta({ id: 'ConsoleSignIn', description: 'Sign-in with authorization code and PKCE; absent when SIGNALBOX_CONSOLE_AUTHORITY is not set.' });

export const consoleConfigSchema = z
  .object({
    signIn: consoleSignInSchema.optional(),
    keys: z.boolean().meta({ description: 'True when the API takes keys (`x-functions-key`): the console then offers the key field.' }),
  })
  .meta({ id: 'ConsoleConfig' });
export type ConsoleConfig = z.infer<typeof consoleConfigSchema>;

/** The console's configuration the settings describe; throws at start-up on an incomplete one. */
export function consoleConfigFromEnv(env: Environment): ConsoleConfig {
  const authority = readSetting('SIGNALBOX_CONSOLE_AUTHORITY', env);
  // Keys are on unless issuers are set without SIGNALBOX_API_KEY (access.ts).
  const keys = readSetting('SIGNALBOX_API_KEY', env) !== undefined || tokenSettingsFromEnv(env) === undefined;
  if (authority === undefined) return { keys };
  const clientId = readSetting('SIGNALBOX_CONSOLE_CLIENT_ID', env);
  const scope = readSetting('SIGNALBOX_CONSOLE_SCOPE', env);
  if (!URL.canParse(authority)) throw new Error(`SIGNALBOX_CONSOLE_AUTHORITY: ${JSON.stringify(authority)} is not a URL`);
  if (clientId === undefined || scope === undefined) throw new Error('SIGNALBOX_CONSOLE_CLIENT_ID and SIGNALBOX_CONSOLE_SCOPE must be set when SIGNALBOX_CONSOLE_AUTHORITY is');
  const scopes = new Set(['openid', 'profile', ...scope.split(/\s+/).filter(Boolean)]);
  return { signIn: { authority, clientId, scope: [...scopes].join(' ') }, keys };
}

const callerSchema = actorSchema
  .extend({
    tenants: z.array(z.string()).meta({ description: 'The tenants the caller may use (`default` is `/api/...`; any other is `/api/tenants/{tenantId}/...`), for a tenant picker.' }),
  })
  .meta({ id: 'Caller' });

/** The tenants a grant names that exist (every tenant for `*`); the default tenant alone on a host without tenants. */
async function tenantsOfCaller(grant: TenantGrant | undefined, services: ApiServices): Promise<string[]> {
  const existing = services.tenants ? (await services.tenants.list()).filter((tenant) => !tenant.deletion).map((tenant) => tenant.id) : [DEFAULT_TENANT_ID];
  return grant === undefined || grant === '*' ? existing : existing.filter((tenant) => grant.includes(tenant));
}

export const consoleRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'consoleConfig',
    methods: ['GET'],
    route: 'console-config',
    // Read before anyone has signed in; it holds what any sign-in page shows (authority, client id).
    authLevel: 'anonymous',
    role: publicRoute,
    contract: {
      summary: "The web console's sign-in settings",
      tags: ['system'],
      withoutStorage: true,
      responses: { 200: { description: 'Where the console signs in, and whether keys are on.', body: consoleConfigSchema } },
    },
    async handle(_input, services) {
      return { status: 200, headers: { 'cache-control': 'no-cache' }, body: services.consoleConfig };
    },
  }),
  defineRoute({
    name: 'whoAmI',
    methods: ['GET'],
    route: 'me',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'Who the server takes the caller for',
      description: 'The actor the credential makes: its id, name, tenant and roles, as the history will record them.',
      tags: ['system'],
      withoutStorage: true,
      responses: { 200: { description: "The caller's actor, and the tenants it may use.", body: callerSchema } },
    },
    async handle({ request }, services) {
      return { status: 200, headers: { 'cache-control': 'no-store' }, body: { ...actorOf(request), tenants: await tenantsOfCaller(request.tenants, services) } };
    },
  }),
];
