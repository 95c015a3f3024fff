/**
 * What the templates create and how: storage hardening and the Signalbox tables and lease container
 * (names read from src/storage/names.ts), Application Insights with local auth off, the FC1 plan and a
 * Node >= 22 app, azd tags, main.bicep parameters, and outputs that never carry a key or secret.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultStorageNames } from '../../src/storage/names';
import {
  arrayItems,
  bicepFiles,
  calledFunctions,
  declaration,
  declarations,
  Declaration,
  Node,
  path,
  property,
  referencedIdentifiers,
  repoRoot,
  resourcesOfType,
  stringValue,
  template,
  Template,
} from './bicep';

const main = template('main.bicep');
const storageModule = template('modules/storage.bicep');
const monitoringModule = template('modules/monitoring.bicep');
const functionAppModule = template('modules/functionapp.bicep');

const literal = (node: Node | undefined): string | number | boolean | undefined => {
  if (!node) return undefined;
  if (node.type === 'string') return stringValue(node);
  if (node.type === 'number') return Number(node.text);
  if (node.type === 'boolean') return node.text === 'true';
  return undefined;
};

function moduleOf(target: string): Declaration {
  const modules = declarations(main, 'module_declaration').filter((m) => m.target === target);
  expect(modules).toHaveLength(1);
  return modules[0]!;
}

/** The value main.bicep passes to a module param, resolving a plain `var` reference. */
function resolvedArgument(module: Declaration, param: string): Node | undefined {
  const argument = path(module.body, 'params', param);
  if (argument?.type === 'identifier') {
    const variable = declarations(main, 'variable_declaration').find((v) => v.name === argument.text);
    if (variable) return variable.body;
  }
  return argument;
}

function singleResource(tpl: Template, type: string): Declaration {
  const found = resourcesOfType(tpl, type).filter((r) => !r.existing);
  expect(found.map((r) => r.name)).toHaveLength(1);
  return found[0]!;
}

describe('storage account', () => {
  const account = singleResource(storageModule, 'Microsoft.Storage/storageAccounts');
  const props = property(account.body, 'properties');

  it('turns shared-key access and public blob access off and requires TLS 1.2 over HTTPS', () => {
    expect(literal(property(props, 'allowSharedKeyAccess'))).toBe(false);
    expect(literal(property(props, 'allowBlobPublicAccess'))).toBe(false);
    expect(literal(property(props, 'minimumTlsVersion'))).toBe('TLS1_2');
    expect(literal(property(props, 'supportsHttpsTrafficOnly'))).toBe(true);
    expect(literal(property(props, 'defaultToOAuthAuthentication'))).toBe(true);
  });

  it('declares the blob, queue and table services Functions and Durable Functions use', () => {
    for (const service of ['blobServices', 'queueServices', 'tableServices']) {
      const resource = singleResource(storageModule, `Microsoft.Storage/storageAccounts/${service}`);
      expect(property(resource.body, 'parent')?.text).toBe(account.name);
      expect(literal(property(resource.body, 'name'))).toBe('default');
    }
  });

  it('creates every Signalbox table of defaultStorageNames', () => {
    const tables = singleResource(storageModule, 'Microsoft.Storage/storageAccounts/tableServices/tables');
    expect(tables.loop?.over.text).toBe('tableNames');
    expect(property(tables.body, 'name')?.text).toBe(tables.loop?.item);

    const passed = resolvedArgument(moduleOf('modules/storage.bicep'), 'tableNames');
    const names = arrayItems(passed).map((item) => literal(item));
    const expected = [
      defaultStorageNames.workflowsTable,
      defaultStorageNames.instancesTable,
      defaultStorageNames.interestsTable,
      defaultStorageNames.operationsTable,
      defaultStorageNames.timersTable,
      defaultStorageNames.searchTable,
      defaultStorageNames.flowTable,
    ];
    expect([...names].sort()).toEqual([...expected].sort());
    for (const name of expected) expect(name).toMatch(/^[A-Za-z][A-Za-z0-9]{2,62}$/);
  });

  it('creates the lease and context containers of defaultStorageNames and the deployment container, all private', () => {
    const containers = resourcesOfType(storageModule, 'Microsoft.Storage/storageAccounts/blobServices/containers');
    const names = containers.map((c) => property(c.body, 'name')?.text);
    expect(names).toEqual(expect.arrayContaining(['leaseContainerName', 'contextContainerName', 'deploymentContainerName']));
    for (const container of containers) expect(literal(path(container.body, 'properties', 'publicAccess'))).toBe('None');

    const storage = moduleOf('modules/storage.bicep');
    expect(literal(resolvedArgument(storage, 'leaseContainerName'))).toBe(defaultStorageNames.leaseContainer);
    expect(defaultStorageNames.leaseContainer).toMatch(/^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/);
    expect(literal(resolvedArgument(storage, 'contextContainerName'))).toBe(defaultStorageNames.contextContainer);
    expect(defaultStorageNames.contextContainer).toMatch(/^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/);
    // The app's deployment source is the container the storage module created.
    expect(path(moduleOf('modules/functionapp.bicep').body, 'params', 'deploymentContainerName')?.text).toBe(`${storage.name}.outputs.deploymentContainerName`);
  });
});

describe('monitoring', () => {
  it('creates a workspace-based Application Insights component with local auth disabled', () => {
    const component = singleResource(monitoringModule, 'Microsoft.Insights/components');
    const workspace = singleResource(monitoringModule, 'Microsoft.OperationalInsights/workspaces');
    expect(literal(path(component.body, 'properties', 'DisableLocalAuth'))).toBe(true);
    expect(path(component.body, 'properties', 'WorkspaceResourceId')?.text).toBe(`${workspace.name}.id`);
  });
});

describe('function app', () => {
  const plan = singleResource(functionAppModule, 'Microsoft.Web/serverfarms');
  const site = singleResource(functionAppModule, 'Microsoft.Web/sites');
  const config = path(site.body, 'properties', 'functionAppConfig');

  it('runs on a Flex Consumption FC1 Linux plan', () => {
    expect(literal(path(plan.body, 'sku', 'name'))).toBe('FC1');
    expect(literal(path(plan.body, 'sku', 'tier'))).toBe('FlexConsumption');
    expect(literal(path(plan.body, 'properties', 'reserved'))).toBe(true);
    expect(literal(property(site.body, 'kind'))).toBe('functionapp,linux');
    expect(path(site.body, 'properties', 'serverFarmId')?.text).toBe(`${plan.name}.id`);
    expect(literal(path(site.body, 'properties', 'httpsOnly'))).toBe(true);
  });

  it('uses an API version that knows functionAppConfig (2023-12-01 or later)', () => {
    for (const resource of [plan, site]) expect((resource.target ?? '').split('@')[1]! >= '2023-12-01').toBe(true);
  });

  it('runs Node 22 or later, in main.bicep and in the module', () => {
    expect(literal(path(config, 'runtime', 'name'))).toBe('node');
    expect(path(config, 'runtime', 'version')?.text).toBe('nodeVersion');
    expect(path(moduleOf('modules/functionapp.bicep').body, 'params', 'nodeVersion')?.text).toBe('nodeVersion');
    for (const tpl of [main, functionAppModule]) {
      const param = declaration(tpl, 'parameter_declaration', 'nodeVersion');
      expect(Number(literal(param.body))).toBeGreaterThanOrEqual(22);
      const allowed = param.decorators.find((d) => d.name === 'allowed');
      const versions = arrayItems(allowed?.args[0]).map((v) => Number(literal(v)));
      expect(versions.length).toBeGreaterThan(0);
      for (const version of versions) expect(version).toBeGreaterThanOrEqual(22);
    }
  });

  it('scales by the maximumInstanceCount and instanceMemoryMB parameters', () => {
    const scale = path(config, 'scaleAndConcurrency');
    expect(scale?.text).toContain('maximumInstanceCount: maximumInstanceCount');
    expect(scale?.text).toContain('instanceMemoryMB: instanceMemoryMB');
    const module = moduleOf('modules/functionapp.bicep');
    for (const param of ['maximumInstanceCount', 'instanceMemoryMB', 'httpPerInstanceConcurrency']) {
      expect(path(module.body, 'params', param)?.text).toBe(param);
    }
  });

  it('deploys from a blob container of the app storage account', () => {
    const storage = path(config, 'deployment', 'storage');
    expect(literal(property(storage, 'type'))).toBe('blobContainer');
    expect(property(storage, 'value')?.text).toBe("'${storageAccount.properties.primaryEndpoints.blob}${deploymentContainerName}'");
  });
});

describe('main.bicep parameters', () => {
  const param = (name: string): Declaration => declaration(main, 'parameter_declaration', name);

  it('is a subscription deployment creating rg-<environmentName>', () => {
    const scope = main.root.namedChildren.find((n) => n.type === 'target_scope_assignment');
    expect(literal(scope?.namedChildren[0])).toBe('subscription');
    const rg = singleResource(main, 'Microsoft.Resources/resourceGroups');
    expect(property(rg.body, 'name')?.text).toBe("'${abbrs.resourceGroup}${environmentName}'");
    const abbrs = declaration(main, 'variable_declaration', 'abbrs');
    expect(literal(property(abbrs.body, 'resourceGroup'))).toBe('rg-');
  });

  it('derives names from a resource token of subscription, environment and location', () => {
    const token = declaration(main, 'variable_declaration', 'resourceToken');
    expect(token.body?.text.replace(/\s/g, '')).toBe('toLower(uniqueString(subscription().id,environmentName,location))');
  });

  it('has the parameters and defaults the deployment documents', () => {
    expect(param('environmentName').body).toBeUndefined();
    expect(param('location').body).toBeUndefined();
    const metadata = param('location').decorators.find((d) => d.name === 'metadata');
    expect(literal(path(metadata?.args[0], 'azd', 'type'))).toBe('location');
    expect(literal(param('taskHubName').body)).toBe('SignalboxHub');
    expect(literal(param('allowedOutboundHosts').body)).toBe('');
    expect(literal(param('maximumInstanceCount').body)).toBe(100);
    expect(literal(param('instanceMemoryMB').body)).toBe(2048);
    expect(literal(param('namePrefix').body)).toMatch(/^[a-z0-9]{1,9}$/);
    const maxValue = param('maximumInstanceCount').decorators.find((d) => d.name === 'maxValue');
    expect(literal(maxValue?.args[0])).toBe(1000);
  });

  it('keeps the storage account name within 24 lowercase letters and digits', () => {
    const maxPrefix = literal(param('namePrefix').decorators.find((d) => d.name === 'maxLength')?.args[0]);
    // 'st' + prefix + 13-character uniqueString token
    expect(2 + Number(maxPrefix) + 13).toBeLessThanOrEqual(24);
  });

  it('is a valid task hub name by default (letters and digits, 3 to 45, starting with a letter)', () => {
    expect(String(literal(param('taskHubName').body))).toMatch(/^[A-Za-z][A-Za-z0-9]{2,44}$/);
  });
});

describe('azd tags', () => {
  it('tags the resource group and passes the same tags to every module that creates taggable resources', () => {
    const tags = declaration(main, 'variable_declaration', 'tags');
    expect(property(tags.body, 'azd-env-name')?.text).toBe('environmentName');
    const rg = singleResource(main, 'Microsoft.Resources/resourceGroups');
    expect(property(rg.body, 'tags')?.text).toBe('tags');
    for (const module of declarations(main, 'module_declaration')) {
      if (module.target === 'modules/rbac.bicep') continue; // role assignments take no tags
      expect({ module: module.name, tags: path(module.body, 'params', 'tags')?.text }).toEqual({ module: module.name, tags: 'tags' });
    }
  });

  it('tags every top-level resource the modules create', () => {
    const untaggable = /^Microsoft\.Authorization\/|^Microsoft\.Storage\/storageAccounts\/.+|^Microsoft\.DurableTask\/schedulers\/.+/;
    for (const file of ['modules/storage.bicep', 'modules/monitoring.bicep', 'modules/identity.bicep', 'modules/functionapp.bicep', 'modules/durable-task-scheduler.bicep']) {
      const tpl = template(file);
      for (const resource of declarations(tpl, 'resource_declaration')) {
        if (resource.existing || untaggable.test(resource.target ?? '')) continue;
        const tagsValue = property(resource.body, 'tags');
        expect({ file, resource: resource.name, usesTags: tagsValue ? referencedIdentifiers(tagsValue).has('tags') : false }).toEqual({
          file,
          resource: resource.name,
          usesTags: true,
        });
      }
    }
  });

  it("tags the function app with azd-service-name 'api', the service in azure.yaml", () => {
    const site = singleResource(functionAppModule, 'Microsoft.Web/sites');
    const tags = property(site.body, 'tags');
    expect(tags?.text.replace(/\s/g, '')).toBe("union(tags,{'azd-service-name':serviceName})");
    const passed = resolvedArgument(moduleOf('modules/functionapp.bicep'), 'serviceName');
    expect(literal(passed)).toBe('api');
    const azureYaml = readFileSync(join(repoRoot, 'azure.yaml'), 'utf8');
    expect(azureYaml).toMatch(/^services:\n {2}api:\n/m);
  });
});

describe('outputs', () => {
  const SECRETISH = /connectionstring|accountkey|instrumentationkey|secret|password|sharedaccess|\bsas\b|\bkeys?\b/i;

  it.each(bicepFiles().map((file) => file.replace(/^infra\/bicep\//, '')))('%s outputs no key, secret or connection string', (file) => {
    const tpl = template(file);
    const secureParams = new Set(
      declarations(tpl, 'parameter_declaration')
        .filter((p) => p.decorators.some((d) => d.name === 'secure'))
        .map((p) => p.name),
    );
    for (const output of declarations(tpl, 'output_declaration')) {
      const value = output.body!;
      const problems = [
        output.decorators.some((d) => d.name === 'secure') ? '@secure output' : '',
        calledFunctions(value).some((fn) => /^list/i.test(fn)) ? 'calls list*()' : '',
        SECRETISH.test(output.name) || SECRETISH.test(value.text) ? 'looks like a secret' : '',
        [...referencedIdentifiers(value)].some((id) => secureParams.has(id)) ? 'uses a @secure param' : '',
      ].filter(Boolean);
      expect({ output: output.name, problems }).toEqual({ output: output.name, problems: [] });
    }
  });

  it('calls no list*() function anywhere (shared keys are off; nothing needs a key)', () => {
    for (const file of bicepFiles()) {
      const root = template(file.replace(/^infra\/bicep\//, '')).root;
      expect({ file, calls: calledFunctions(root).filter((fn) => /^list/i.test(fn)) }).toEqual({ file, calls: [] });
      expect(root.text).not.toMatch(/AccountKey=/i);
    }
  });

  it('gives azd and the deployment guide the app name, host name, API base URL, location and resource group', () => {
    const outputs = new Map(declarations(main, 'output_declaration').map((o) => [o.name, o.body!.text]));
    expect(outputs.get('AZURE_FUNCTION_APP_NAME')).toBe('functionApp.outputs.name');
    expect(outputs.get('AZURE_FUNCTION_APP_HOST_NAME')).toBe('functionApp.outputs.defaultHostName');
    expect(outputs.get('SIGNALBOX_API_BASE_URL')).toBe("'https://${functionApp.outputs.defaultHostName}/api'");
    expect(outputs.get('AZURE_LOCATION')).toBe('location');
    expect(outputs.get('AZURE_RESOURCE_GROUP')).toBe('rg.name');
  });
});
