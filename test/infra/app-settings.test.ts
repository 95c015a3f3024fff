/**
 * Every setting the code reads (`appSettings` in src/host/settings.ts) is either provided to the deployed
 * function app by infra/bicep or listed below as local-only with the reason. A setting added to
 * settings.ts without either fails here.
 */
import { appSettings } from '../../src/host/settings';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { arrayItems, calledFunctions, declaration, declarations, Node, path, property, referencedIdentifiers, repoRoot, stringValue, template } from './bicep';

/** Settings the deployed app must NOT get, each with why. */
const LOCAL_ONLY: Readonly<Record<string, string>> = {
  AzureWebJobsStorage: 'A connection string carries an account key; the account has shared-key access off, so on Azure the identity-based AzureWebJobsStorage__* settings are used instead.',
  AzureWebJobsStorage__accountName: 'An alternative to the three explicit service URIs the app gets (__blobServiceUri, __queueServiceUri, __tableServiceUri); setting both would be redundant.',
  SIGNALBOX_STORAGE: 'An override connection string (with a key) for local or test storage; on Azure Signalbox uses the identity-based AzureWebJobsStorage settings.',
  SIGNALBOX_STORAGE_PREFIX:
    'For sharing one account between deployments or test runs; each azd environment gets its own account, and infra/bicep creates the defaultStorageNames tables and lease container, which a prefix would bypass.',
  SIGNALBOX_API_KEY:
    'A secret, so never in a template: on Azure the Functions host checks function keys; only with token issuers set may an operator add this key by hand (az functionapp config appsettings set), and leaving it unset turns keys off.',
  SIGNALBOX_RUNNER_SLOTS_PER_TENANT: "The local runner's slots per tenant; on Azure the fan-out's batches per tenant are the operations-running quota's.",
  SIGNALBOX_RUNNER_APPLICATIONS_PER_SECOND_PER_TENANT: "The local runner's pace per tenant; on Azure a tenant's fan-out is bounded by its fanOutBatches quota instead.",
  SIGNALBOX_SERVER_NAMES: 'The Host names the local server answers to; on Azure the platform routes by host name, so the app makes no Host check.',
  PORT: 'The local server port; on Azure the Functions host owns the listener.',
  SIGNALBOX_AZURITE_LOCATION: 'The data folder of the embedded Azurite that only the local server starts; on Azure storage is the account.',
};

/** The settings Azure needs, from the issue: identity-based storage, task hub, outbound hosts, telemetry, identity. */
const AZURE_SETTINGS = [
  'AzureWebJobsStorage__credential',
  'AzureWebJobsStorage__clientId',
  'AzureWebJobsStorage__blobServiceUri',
  'AzureWebJobsStorage__queueServiceUri',
  'AzureWebJobsStorage__tableServiceUri',
  'SIGNALBOX_ALLOWED_HOSTS',
  // Issue 14: lifecycle events' `source` names the deployment.
  'SIGNALBOX_EVENT_SOURCE_PREFIX',
  'SIGNALBOX_TASK_HUB',
  // Issue 15: the retention recipe's setting (empty: off).
  'SIGNALBOX_RETENTION_DAYS',
  // Issue 22: operation records' own retention (empty: the default, 30 days).
  'SIGNALBOX_OPERATION_RETENTION_DAYS',
  // Issue 41 section 2: the instance limit (empty: the code's, 16 MiB).
  'SIGNALBOX_MAX_INSTANCE_MB',
  'SIGNALBOX_MAX_CREATE_BODY_MB',
  // Issue 28 section 4: per-tenant quotas' defaults (empty: the code's).
  'SIGNALBOX_QUOTA_TRIGGERS_PER_SECOND',
  'SIGNALBOX_QUOTA_TRIGGER_BURST',
  'SIGNALBOX_QUOTA_INSTANCES_ALIVE',
  'SIGNALBOX_QUOTA_OPERATIONS_RUNNING',
  // Issue 41 section 3: the price table of cost estimates, and counting on or off (empty: the defaults).
  'SIGNALBOX_PRICE_TABLE',
  'SIGNALBOX_COST_COUNTING',
  // Sensitive search fields' HMAC key (secure parameter; empty: they stay unindexed).
  'SIGNALBOX_INDEX_HMAC_KEY',
  'APPLICATIONINSIGHTS_CONNECTION_STRING',
  'APPLICATIONINSIGHTS_AUTHENTICATION_STRING',
  'AZURE_CLIENT_ID',
  'SIGNALBOX_CORS_ALLOWED_ORIGINS',
  // Issue 27: who may call the API (tokens from Microsoft Entra ID; the roles of function keys).
  'SIGNALBOX_AUTH_ISSUERS',
  'SIGNALBOX_AUTH_AUDIENCE',
  'SIGNALBOX_AUTH_ROLES_CLAIM',
  'SIGNALBOX_API_KEY_ROLES',
  // Issue 28: the tenants keys and tokens may use.
  'SIGNALBOX_API_KEY_TENANTS',
  'SIGNALBOX_AUTH_TENANT_MAP',
  // Where the web console signs in (issue 27 section 5).
  'SIGNALBOX_CONSOLE_AUTHORITY',
  'SIGNALBOX_CONSOLE_CLIENT_ID',
  'SIGNALBOX_CONSOLE_SCOPE',
] as const;

/** Settings Flex Consumption rejects or ignores (runtime, version and deployment live in functionAppConfig). */
const FLEX_DEPRECATED = [
  'FUNCTIONS_WORKER_RUNTIME',
  'FUNCTIONS_EXTENSION_VERSION',
  'WEBSITE_RUN_FROM_PACKAGE',
  'WEBSITE_CONTENTSHARE',
  'WEBSITE_CONTENTAZUREFILECONNECTIONSTRING',
  'WEBSITE_NODE_DEFAULT_VERSION',
  'SCM_DO_BUILD_DURING_DEPLOYMENT',
  'ENABLE_ORYX_BUILD',
];

const functionAppModule = template('modules/functionapp.bicep');
const main = template('main.bicep');
const site = declaration(functionAppModule, 'resource_declaration', 'functionApp');

/**
 * The site's siteConfig.appSettings: `concat([...the settings of every deployment...], durableBackendSettings)`,
 * the second only with the Durable Task Scheduler backend (test/infra/durable-backend.test.ts checks those).
 */
function appSettingsArguments(): readonly Node[] {
  const value = path(site.body, 'properties', 'siteConfig', 'appSettings');
  expect(value?.type).toBe('call_expression');
  expect(value?.namedChildren[0]?.text).toBe('concat');
  return value?.namedChildren.find((child) => child.type === 'arguments')?.namedChildren ?? [];
}

/** name -> value expression of each entry of the site's siteConfig.appSettings that every deployment gets. */
function providedSettings(): Map<string, Node> {
  const settings = new Map<string, Node>();
  const list = appSettingsArguments()[0];
  expect(list?.type).toBe('array');
  for (const item of arrayItems(list)) {
    const nameNode = property(item, 'name');
    const value = property(item, 'value');
    const name = nameNode ? stringValue(nameNode) : undefined;
    if (!name || !value) throw new Error(`${functionAppModule.path}: app setting without a literal name and a value: ${item.text}`);
    if (settings.has(name)) throw new Error(`${functionAppModule.path}: app setting ${name} appears twice`);
    settings.set(name, value);
  }
  return settings;
}

const provided = providedSettings();
const codeSettings = Object.keys(appSettings);

/** The expression main.bicep passes to the function app module for one of its params. */
function mainArgument(param: string): string | undefined {
  const module = declaration(main, 'module_declaration', 'functionApp');
  return path(module.body, 'params', param)?.text;
}

describe('app settings of the deployed function app', () => {
  it('adds only the durable backend settings to the common list', () => {
    expect(appSettingsArguments().map((argument) => argument.text)).toEqual([expect.stringMatching(/^\[/), 'durableBackendSettings']);
  });

  it('provides every setting of settings.ts that is not local-only', () => {
    const missing = codeSettings.filter((name) => !provided.has(name) && !(name in LOCAL_ONLY));
    expect(missing).toEqual([]);
  });

  it('keeps the local-only list honest: each is a real setting and none is provided', () => {
    expect(Object.keys(LOCAL_ONLY).filter((name) => !codeSettings.includes(name))).toEqual([]);
    expect(Object.keys(LOCAL_ONLY).filter((name) => provided.has(name))).toEqual([]);
    for (const reason of Object.values(LOCAL_ONLY)) expect(reason.length).toBeGreaterThan(20);
  });

  it('provides exactly the Azure settings the issue names, each one read by the code', () => {
    expect([...provided.keys()].sort()).toEqual([...AZURE_SETTINGS].sort());
    expect([...provided.keys()].filter((name) => !codeSettings.includes(name))).toEqual([]);
  });

  it('sets none of the settings Flex Consumption deprecates', () => {
    expect(FLEX_DEPRECATED.filter((name) => provided.has(name))).toEqual([]);
  });

  it('uses the managed identity for AzureWebJobsStorage, with the three service endpoints of the account', () => {
    expect(stringValue(provided.get('AzureWebJobsStorage__credential')!)).toBe('managedidentity');
    expect(provided.get('AzureWebJobsStorage__clientId')!.text).toBe('identityClientId');
    for (const service of ['blob', 'queue', 'table'] as const) {
      expect(provided.get(`AzureWebJobsStorage__${service}ServiceUri`)!.text).toBe(`storageAccount.properties.primaryEndpoints.${service}`);
    }
    const storageAccount = declaration(functionAppModule, 'resource_declaration', 'storageAccount');
    expect(storageAccount.existing).toBe(true);
    expect(property(storageAccount.body, 'name')?.text).toBe('storageAccountName');
    expect(mainArgument('storageAccountName')).toBe('storage.outputs.name');
  });

  it('passes the task hub and the outbound hosts from main.bicep parameters', () => {
    expect(provided.get('SIGNALBOX_TASK_HUB')!.text).toBe('taskHubName');
    expect(mainArgument('taskHubName')).toBe('taskHubName');
    expect(provided.get('SIGNALBOX_ALLOWED_HOSTS')!.text).toBe('allowedOutboundHosts');
    expect(mainArgument('allowedOutboundHosts')).toBe('allowedOutboundHosts');
    expect(provided.get('SIGNALBOX_RETENTION_DAYS')!.text).toBe('retentionDays');
    expect(mainArgument('retentionDays')).toBe('retentionDays');
    expect(provided.get('SIGNALBOX_OPERATION_RETENTION_DAYS')!.text).toBe('operationRetentionDays');
    expect(mainArgument('operationRetentionDays')).toBe('operationRetentionDays');
  });

  it('lets a deployment change every app setting it may want to (azd env set): each comes from a main.bicep parameter that main.parameters.json maps', () => {
    const parameters = JSON.parse(readFileSync(join(repoRoot, 'infra/bicep/main.parameters.json'), 'utf8')) as { parameters: Record<string, { value: string }> };
    const moduleParams = new Set(declarations(functionAppModule, 'parameter_declaration').map((p) => p.name));
    const mainParams = new Set(declarations(main, 'parameter_declaration').map((p) => p.name));
    // The settings a deployment tunes (the rest are wiring: endpoints, identity, telemetry).
    const tunable = [
      'SIGNALBOX_ALLOWED_HOSTS',
      'SIGNALBOX_CORS_ALLOWED_ORIGINS',
      'SIGNALBOX_RETENTION_DAYS',
      'SIGNALBOX_EVENT_SOURCE_PREFIX',
      'SIGNALBOX_TASK_HUB',
      'SIGNALBOX_AUTH_ISSUERS',
      'SIGNALBOX_AUTH_AUDIENCE',
      'SIGNALBOX_AUTH_ROLES_CLAIM',
      'SIGNALBOX_API_KEY_ROLES',
      // Issue 28: the tenants keys and tokens may use.
      'SIGNALBOX_API_KEY_TENANTS',
      'SIGNALBOX_AUTH_TENANT_MAP',
      'SIGNALBOX_CONSOLE_AUTHORITY',
      'SIGNALBOX_CONSOLE_CLIENT_ID',
      'SIGNALBOX_CONSOLE_SCOPE',
    ];
    const unwired = tunable.filter((setting) => {
      const fromParams = [...referencedIdentifiers(provided.get(setting)!)].filter((name) => moduleParams.has(name));
      return !fromParams.some((name) => {
        const argument = mainArgument(name);
        return argument !== undefined && mainParams.has(argument) && /^\$\{[A-Z0-9_]+/.test(parameters.parameters[argument]?.value ?? '');
      });
    });
    expect(unwired).toEqual([]);
    // Named after the app setting it becomes, so `azd env set SIGNALBOX_RETENTION_DAYS 30` does what it says.
    expect(parameters.parameters.retentionDays?.value).toBe('${SIGNALBOX_RETENTION_DAYS}');
    expect(parameters.parameters.eventSourcePrefix?.value).toBe('${SIGNALBOX_EVENT_SOURCE_PREFIX}');
  });

  it("names the deployment in lifecycle events' source by default, or as SIGNALBOX_EVENT_SOURCE_PREFIX says", () => {
    expect(provided.get('SIGNALBOX_EVENT_SOURCE_PREFIX')!.text.replace(/\s/g, '')).toBe("empty(eventSourcePrefix)?'/${functionAppName}':eventSourcePrefix");
    expect(mainArgument('eventSourcePrefix')).toBe('eventSourcePrefix');
    expect(stringValue(declaration(main, 'parameter_declaration', 'eventSourcePrefix').body!)).toBe('');
  });

  it('wires one CORS parameter to the platform CORS config and to the app setting, off by default', () => {
    expect(providedSettings().get('SIGNALBOX_CORS_ALLOWED_ORIGINS')?.text).toBe('corsAllowedOrigins');
    const allowedOrigins = path(site.body, 'properties', 'siteConfig', 'cors', 'allowedOrigins');
    expect(allowedOrigins?.text).toBe('corsOrigins');
    expect(declaration(functionAppModule, 'variable_declaration', 'corsOrigins').body?.text).toContain('split(corsAllowedOrigins');
    expect(path(declaration(main, 'module_declaration', 'functionApp').body, 'params', 'corsAllowedOrigins')?.text).toBe('corsAllowedOrigins');
    expect(stringValue(declaration(main, 'parameter_declaration', 'corsAllowedOrigins').body!)).toBe('');
  });

  it('wires Application Insights with Entra ID authentication for the app identity', () => {
    expect(provided.get('APPLICATIONINSIGHTS_CONNECTION_STRING')!.text).toBe('applicationInsights.properties.ConnectionString');
    const component = declaration(functionAppModule, 'resource_declaration', 'applicationInsights');
    expect(component.existing).toBe(true);
    expect(component.target).toMatch(/^Microsoft\.Insights\/components@/);
    expect(mainArgument('applicationInsightsName')).toBe('monitoring.outputs.applicationInsightsName');

    const auth = provided.get('APPLICATIONINSIGHTS_AUTHENTICATION_STRING')!;
    expect(auth.type).toBe('string');
    expect(auth.text).toContain('Authorization=AAD');
    expect(auth.text).toContain('ClientId=${identityClientId}');
    expect(provided.get('AZURE_CLIENT_ID')!.text).toBe('identityClientId');
  });

  it('takes no setting value from a key or a secret', () => {
    const offenders = [...provided]
      .filter(([, value]) => /AccountKey=|SharedAccessSignature|SharedAccessKey/i.test(value.text) || calledFunctions(value).some((fn) => /^list/i.test(fn)))
      .map(([name]) => name);
    expect(offenders).toEqual([]);
  });
});
