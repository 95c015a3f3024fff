/**
 * @module Every setting Signalbox reads from the environment, in one place. Nothing else in the code
 * reads `process.env` (infra/bicep is tested against this list, so a deployed app gets them all).
 */
import { ValidationError } from '../engine/model';

/** Settings the app reads, with what each is for. `required` ones must be provided on Azure. */
export const appSettings = {
  AzureWebJobsStorage: 'Storage connection string (Functions host and Signalbox); or the identity-based __ settings below.',
  AzureWebJobsStorage__accountName: 'Identity-based storage: the account name (service URIs derived from it).',
  AzureWebJobsStorage__blobServiceUri: 'Identity-based storage: blob endpoint.',
  AzureWebJobsStorage__queueServiceUri: 'Identity-based storage: queue endpoint (Durable Functions task hub).',
  AzureWebJobsStorage__tableServiceUri: 'Identity-based storage: table endpoint.',
  AzureWebJobsStorage__credential: 'Identity-based storage: `managedidentity`.',
  AzureWebJobsStorage__clientId: 'Identity-based storage: client id of the user-assigned identity.',
  SIGNALBOX_STORAGE: 'Optional connection string for Signalbox data, overriding AzureWebJobsStorage.',
  SIGNALBOX_STORAGE_PREFIX: "Optional prefix of Signalbox's table and container names, so several deployments (or test runs) can share one account.",
  SIGNALBOX_ALLOWED_HOSTS: 'Comma-separated hosts that invokeExternalService may call (`*.example.com` allowed; loopback and private addresses only if listed exactly).',
  SIGNALBOX_EVENT_SOURCE_PREFIX: "Put before `/signalbox/workflows/<id>` in lifecycle events' CloudEvents `source` (the deployment's name, e.g. `/contoso-prod`).",
  SIGNALBOX_TASK_HUB: 'Durable Functions task hub name (host.json reads it).',
  SIGNALBOX_INDEX_HMAC_KEY:
    'The key sensitive search indexes are hashed with (HMAC-SHA256; at least 32 characters, kept secret, never changed once used). Without it, sensitive fields stay unindexed.',
  SIGNALBOX_API_KEY:
    'A key the app checks itself, in x-functions-key (or ?code=): on the local server always, on Azure when SIGNALBOX_AUTH_ISSUERS is set (the HTTP functions are then anonymous at the platform). Unset with issuers set: keys are off.',
  SIGNALBOX_API_KEY_ROLES: 'Comma-separated app roles a key (SIGNALBOX_API_KEY, a function key) acts with (default Signalbox.Admin).',
  SIGNALBOX_API_KEY_TENANTS: 'Comma-separated tenant ids a key (SIGNALBOX_API_KEY, a function key) may use, or `*` for all (default: `default`, the default tenant only).',
  SIGNALBOX_AUTH_TENANT_MAP:
    'Comma-separated `<entra-tid>=<tenant-id>` pairs: a token whose `tid` is listed may use that Signalbox tenant (besides its `tenants` claim and `Signalbox.Tenant.<id>` app roles).',
  SIGNALBOX_AUTH_ISSUERS:
    'Comma-separated token issuer URLs, exactly as in `iss` (https://login.microsoftonline.com/<tenant-id>/v2.0); each JWKS is found through its /.well-known/openid-configuration (https only, except loopback). Unset: bearer tokens are refused.',
  SIGNALBOX_AUTH_AUDIENCE: "Comma-separated accepted token audiences: the API app registration's application id URI and/or client id (required with SIGNALBOX_AUTH_ISSUERS).",
  SIGNALBOX_AUTH_ROLES_CLAIM: 'The token claim holding app roles (default `roles`; `groups` to authorise by group object ids named like the roles).',
  SIGNALBOX_CONSOLE_AUTHORITY:
    "The OpenID Connect authority the web console signs in with (authorization code + PKCE): `https://login.microsoftonline.com/<tenant-id>/v2.0`, or a local provider's issuer. Unset: the console offers the key field only.",
  SIGNALBOX_CONSOLE_CLIENT_ID:
    "The console's client id at the authority (an Entra ID app registration of type single-page application, its redirect URI the console's URL). Required with SIGNALBOX_CONSOLE_AUTHORITY.",
  SIGNALBOX_CONSOLE_SCOPE: 'The scope the console asks an access token for the API with (`api://<api-client-id>/access`); `openid profile` is added. Required with SIGNALBOX_CONSOLE_AUTHORITY.',
  APPLICATIONINSIGHTS_CONNECTION_STRING: 'Application Insights; telemetry is off when absent.',
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Entra ID auth for Application Insights (local auth off): `Authorization=AAD;ClientId=...`.',
  AZURE_CLIENT_ID: 'Client id of the user-assigned managed identity for DefaultAzureCredential (outbound managed-identity tokens).',
  PORT: 'Local server only: the API port (default 7071).',
  SIGNALBOX_AZURITE_LOCATION: 'Local server only: the data folder of the embedded Azurite (default ./.azurite); one server per folder.',
  SIGNALBOX_SERVER_NAMES:
    'Local server only: comma-separated Host names it answers to besides localhost, 127.0.0.1 and [::1] on its port (`name` for any port, or `name:port`); any other Host is refused (421), against DNS rebinding.',
  SIGNALBOX_RUNNER_SLOTS_PER_TENANT:
    "Local server only: the most of the runner's 16 slots one tenant's work holds at once, even while others are free, so a tenant's broadcast leaves room for another's next trigger (empty: no cap).",
  SIGNALBOX_RUNNER_APPLICATIONS_PER_SECOND_PER_TENANT:
    "Local server only: the instance applications one tenant's work starts per second, evenly spaced, so a tenant's broadcast leaves storage room for another's next trigger (empty: no pace; a tenant's `applicationsPerSecond` quota overrides it).",
  SIGNALBOX_CORS_ALLOWED_ORIGINS: 'Comma-separated origins browsers may call the API from (`https://console.example.com`, or `*`); empty: CORS off.',
  SIGNALBOX_RETENTION_DAYS: 'Days after which finished (complete, cancelled) instances are purged by the hourly retention function on Azure; unset or empty turns retention off.',
  SIGNALBOX_OPERATION_RETENTION_DAYS: 'Days after which finished (succeeded, failed) operation records are deleted, hourly, on both hosts (default 30; 0 keeps them forever).',
  SIGNALBOX_MAX_INSTANCE_MB:
    "The most one instance's record (its context and the rest, as UTF-8 JSON) may hold, in MiB (default 16; fractions allowed). A record over what a Table entity holds is kept in a blob; a change past this limit faults the instance, a creation past it answers 413.",
  SIGNALBOX_MAX_CREATE_BODY_MB:
    'The largest body of an instance creation (POST /api/instances), in MiB, so a large context can be created whole (default: 1, the limit of every request body; fractions allowed). Checked after the caller is let in.',
  SIGNALBOX_QUOTA_TRIGGERS_PER_SECOND: "Triggers a tenant's API callers may send per second, sustained (default 100; fractions allowed; a tenant's own quota overrides it). Per worker on Azure.",
  SIGNALBOX_QUOTA_TRIGGER_BURST: 'Triggers a tenant may send at once after a quiet spell (the token bucket; default 500). Per worker on Azure.',
  SIGNALBOX_QUOTA_INSTANCES_ALIVE: 'Instances a tenant may have alive (not complete or cancelled); creating one more answers 409 (default 100000).',
  SIGNALBOX_QUOTA_OPERATIONS_RUNNING: 'Operations (triggers, migrations, bulk actions) a tenant may have running at once; one more from the API answers 429 (default 1000).',
  SIGNALBOX_COST_COUNTING:
    '`on` (default) or `off`: whether operations and instances record what they cost (docs/guides/cost.md). Off saves the CPU of counting (about 1-2 ms per trigger on Node 20); records then carry no cost.',
  SIGNALBOX_PRICE_TABLE:
    'JSON of the prices that turn counted requests into an estimate (docs/guides/cost.md: currency, per 10,000 of each storage request kind, per GB sent out, per million activities); keys left out keep the defaults. A bad value stops the start-up.',
} as const;
export type AppSettingName = keyof typeof appSettings;

export type Environment = Readonly<Record<string, string | undefined>>;

/** Reads one known setting; empty strings count as absent. */
export function readSetting(name: AppSettingName, env: Environment = process.env): string | undefined {
  return trimmedValue(env[name]);
}

/** A setting's value trimmed; an empty one counts as absent. */
function trimmedValue(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * A family of settings the operator names, not a fixed one: `SIGNALBOX_TENANT_STORAGE_<NAME>`, each the
 * connection string of a tenant's own storage account (a tenant created with `storage.connectionSetting`).
 * The tenant's record keeps the setting's name, never its value, and only names of this family can be
 * named, so a tenant administrator cannot make the app read any other setting (a key) as a connection.
 */
export const TENANT_STORAGE_SETTING_PATTERN = /^SIGNALBOX_TENANT_STORAGE_[A-Z0-9_]{1,64}$/;

/** Reads one setting of the SIGNALBOX_TENANT_STORAGE_ family; undefined for any other name, or when unset or empty. */
export function readTenantStorageSetting(name: string, env: Environment = process.env): string | undefined {
  return TENANT_STORAGE_SETTING_PATTERN.test(name) ? trimmedValue(env[name]) : undefined;
}

/** Hosts outbound calls may reach; empty means none. */
export function allowedHosts(env: Environment = process.env): string[] {
  return (readSetting('SIGNALBOX_ALLOWED_HOSTS', env) ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean);
}

/** Host names the local server answers to besides the loopback names, lower case. */
export function serverNames(env: Environment = process.env): string[] {
  return (readSetting('SIGNALBOX_SERVER_NAMES', env) ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
}

/** Origins allowed by CORS; empty means CORS is off. */
export function corsAllowedOrigins(env: Environment = process.env): string[] {
  return (readSetting('SIGNALBOX_CORS_ALLOWED_ORIGINS', env) ?? '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

/** The instance limit in bytes from SIGNALBOX_MAX_INSTANCE_MB (undefined: the stores' default, 16 MiB). Anything but a positive number is refused at start-up. */
export function maxInstanceBytes(env: Environment = process.env): number | undefined {
  return mebibytesSetting('SIGNALBOX_MAX_INSTANCE_MB', env);
}

/** The body limit of an instance creation from SIGNALBOX_MAX_CREATE_BODY_MB (undefined: the limit of every body, 1 MiB). */
export function maxCreateBodyBytes(env: Environment = process.env): number | undefined {
  return mebibytesSetting('SIGNALBOX_MAX_CREATE_BODY_MB', env);
}

/** A setting in MiB, as bytes; undefined when unset or empty, a ValidationError for anything but a positive number. */
function mebibytesSetting(name: AppSettingName, env: Environment): number | undefined {
  const value = readSetting(name, env);
  if (value === undefined) return undefined;
  const mebibytes = Number(value);
  if (!Number.isFinite(mebibytes) || mebibytes <= 0) throw new ValidationError(`${name} must be a positive number of MiB`, [{ path: name, message: 'must be a positive number of MiB' }]);
  return Math.floor(mebibytes * 1024 * 1024);
}
