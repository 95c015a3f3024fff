/**
 * Issue 41 section 1: one set of templates deploys either durable backend, chosen by main.bicep's
 * `durableBackend`. The templates are evaluated for each variant (test/infra/bicep-eval.ts): conditions,
 * module params and app settings as Azure Resource Manager would compute them, with outputs and resource
 * properties left as their expressions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { arrayItems, declaration, parseBicep, path, repoRoot, stringValue, template, Template } from './bicep';
import { evaluate, isOpaque, isRecord, Opaque, SymbolRef, TemplateScope, Value } from './bicep-eval';
import { deploy, Deployment, DeployedResource } from './bicep-deployment';

const DURABLE_TASK_DATA_CONTRIBUTOR = '0ad04412-c4d5-4796-b79c-f76d14c8d402';
const PROVIDER_TYPE_SETTING = 'AzureFunctionsJobHost__extensions__durableTask__storageProvider__type';
const PROVIDER_CONNECTION_SETTING = 'AzureFunctionsJobHost__extensions__durableTask__storageProvider__connectionStringName';

const azureStorage = deploy({});
const scheduler = deploy({ durableBackend: 'durableTaskScheduler' });
const main = template('main.bicep');

const opaqueText = (value: Value): string => {
  if (!isOpaque(value)) throw new Error(`expected a value known at deployment only, got ${JSON.stringify(value)}`);
  return value.text;
};

/** name -> value of the function app's app settings in a variant. */
function appSettings(deployment: Deployment): Map<string, Value> {
  const [site] = deployment.ofType('Microsoft.Web/sites');
  const list = site!.value('properties', 'siteConfig', 'appSettings');
  if (!Array.isArray(list)) throw new Error('appSettings is not an array');
  const settings = new Map<string, Value>();
  for (const item of list as Value[]) {
    if (!isRecord(item) || typeof item.name !== 'string') throw new Error(`app setting without a literal name: ${JSON.stringify(item)}`);
    expect(settings.has(item.name)).toBe(false);
    settings.set(item.name, item.value!);
  }
  return settings;
}

const isDurableTaskRole = (assignment: DeployedResource): boolean => String(assignment.value('properties', 'roleDefinitionId')).endsWith(`/roleDefinitions/${DURABLE_TASK_DATA_CONTRIBUTOR}`);

/** A stable description of each deployed resource, to compare what the two variants create. */
const inventory = (deployment: Deployment): string[] =>
  deployment.resources.filter((r) => !r.declaration.existing).map((r) => `${r.file} ${r.declaration.name} ${r.declaration.target} ${JSON.stringify([...r.locals.values()])}`);

describe('the durableBackend parameter', () => {
  const param = declaration(main, 'parameter_declaration', 'durableBackend');
  const parameters = JSON.parse(readFileSync(join(repoRoot, 'infra/bicep/main.parameters.json'), 'utf8')) as { parameters: Record<string, { value: string }> };

  it('allows exactly azureStorage and durableTaskScheduler, azureStorage by default, in main.bicep and the app module', () => {
    for (const tpl of [main, template('modules/functionapp.bicep')]) {
      const p = declaration(tpl, 'parameter_declaration', 'durableBackend');
      const allowed = p.decorators.find((d) => d.name === 'allowed');
      expect(arrayItems(allowed?.args[0]).map((item) => stringValue(item))).toEqual(['azureStorage', 'durableTaskScheduler']);
      expect(stringValue(p.body!)).toBe('azureStorage');
    }
    expect(param.decorators.some((d) => d.name === 'description')).toBe(true);
  });

  it('is set through azd env (SIGNALBOX_DURABLE_BACKEND), like the scheduler SKU, capacity and IP allow-list', () => {
    expect(parameters.parameters.durableBackend?.value).toBe('${SIGNALBOX_DURABLE_BACKEND=azureStorage}');
    expect(parameters.parameters.durableTaskSchedulerSku?.value).toBe('${SIGNALBOX_DTS_SKU=Consumption}');
    expect(parameters.parameters.durableTaskSchedulerCapacity?.value).toBe('${SIGNALBOX_DTS_CAPACITY=1}');
    expect(parameters.parameters.durableTaskSchedulerIpAllowlist?.value).toBe('${SIGNALBOX_DTS_IP_ALLOWLIST=0.0.0.0/0}');
  });

  it('passes the choice to the function app module', () => {
    expect(azureStorage.modules.get('functionApp')!.params.durableBackend).toBe('azureStorage');
    expect(scheduler.modules.get('functionApp')!.params.durableBackend).toBe('durableTaskScheduler');
  });
});

describe('with durableBackend = durableTaskScheduler', () => {
  const schedulers = scheduler.ofType('Microsoft.DurableTask/schedulers');
  const taskHubs = scheduler.ofType('Microsoft.DurableTask/schedulers/taskHubs');
  const settings = appSettings(scheduler);

  it('creates one scheduler, with a GA API version, in the deployment location', () => {
    expect(schedulers).toHaveLength(1);
    const [resource] = schedulers;
    const apiVersion = resource!.declaration.target!.split('@')[1]!;
    expect(apiVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/); // no -preview
    expect(apiVersion >= '2025-11-01').toBe(true);
    expect(opaqueText(resource!.value('location'))).toBe('location');
    // 'dts-' + namePrefix (at most 9) + '-' + a 13-character uniqueString token: within the 3 to 64 allowed.
    expect(opaqueText(resource!.value('name'))).toMatch(/^dts-signalbox-\$\{toLower\(uniqueString\(/);
    const maxPrefix = Number(declaration(main, 'parameter_declaration', 'namePrefix').decorators.find((d) => d.name === 'maxLength')?.args[0]?.text);
    expect('dts-'.length + maxPrefix + 1 + 13).toBeLessThanOrEqual(64);
  });

  it('lets calls through: a non-empty IP allow-list (by default every address; the role still gates access)', () => {
    expect(schedulers[0]!.value('properties', 'ipAllowlist')).toEqual(['0.0.0.0/0']);
    const listed = deploy({ durableBackend: 'durableTaskScheduler', durableTaskSchedulerIpAllowlist: ' 203.0.113.0/24, ,2001:db8::/32 ' });
    expect(listed.ofType('Microsoft.DurableTask/schedulers')[0]!.value('properties', 'ipAllowlist')).toEqual(['203.0.113.0/24', '2001:db8::/32']);
    // An empty value is refused at deployment rather than deploying a scheduler that refuses every call.
    const minLength = (tpl: Template, name: string) => declaration(tpl, 'parameter_declaration', name).decorators.find((d) => d.name === 'minLength')?.args[0]?.text;
    expect(minLength(template('modules/durable-task-scheduler.bicep'), 'ipAllowlist')).toBe('1');
    expect(minLength(main, 'durableTaskSchedulerIpAllowlist')).toBe('1');
  });

  it('takes the Consumption SKU by default, Dedicated with its capacity units when asked', () => {
    expect(schedulers[0]!.value('properties', 'sku')).toEqual({ name: 'Consumption' });
    const dedicated = deploy({ durableBackend: 'durableTaskScheduler', durableTaskSchedulerSku: 'Dedicated', durableTaskSchedulerCapacity: 3 });
    expect(dedicated.ofType('Microsoft.DurableTask/schedulers')[0]!.value('properties', 'sku')).toEqual({ name: 'Dedicated', capacity: 3 });
  });

  it("creates the task hub in that scheduler, named as host.json's hubName setting (SIGNALBOX_TASK_HUB)", () => {
    expect(taskHubs).toHaveLength(1);
    const parent = taskHubs[0]!.value('parent');
    expect(parent).toBeInstanceOf(SymbolRef);
    expect({ name: (parent as SymbolRef).declaration.name, file: (parent as SymbolRef).scope.tpl.path }).toEqual({ name: schedulers[0]!.declaration.name, file: schedulers[0]!.scope.tpl.path });
    expect(taskHubs[0]!.value('name')).toBe('SignalboxHub');
    expect(settings.get('SIGNALBOX_TASK_HUB')).toBe('SignalboxHub');
    const custom = deploy({ durableBackend: 'durableTaskScheduler', taskHubName: 'OrdersHub' });
    expect(custom.ofType('Microsoft.DurableTask/schedulers/taskHubs')[0]!.value('name')).toBe('OrdersHub');
    expect(appSettings(custom).get('SIGNALBOX_TASK_HUB')).toBe('OrdersHub');
  });

  it("gives the app's identity Durable Task Data Contributor, scoped to that scheduler", () => {
    const assignments = scheduler.ofType('Microsoft.Authorization/roleAssignments').filter(isDurableTaskRole);
    expect(assignments).toHaveLength(1);
    const [assignment] = assignments;
    expect(assignment!.value('properties', 'principalType')).toBe('ServicePrincipal');
    // The principal of the identity module whose client id and resource id the app runs with.
    expect(opaqueText(assignment!.value('properties', 'principalId'))).toBe('identity.outputs.principalId');
    expect(opaqueText(scheduler.modules.get('functionApp')!.params.identityClientId!)).toBe('identity.outputs.clientId');
    expect(opaqueText(scheduler.modules.get('functionApp')!.params.identityId!)).toBe('identity.outputs.id');

    // Scope: the existing scheduler of the name the scheduler module outputs, which is the one it creates.
    const scope = assignment!.value('scope');
    expect(scope).toBeInstanceOf(SymbolRef);
    const scopeDeclaration = (scope as SymbolRef).declaration;
    expect(scopeDeclaration.existing).toBe(true);
    expect(scopeDeclaration.target!.split('@')[0]).toBe('Microsoft.DurableTask/schedulers');
    expect(opaqueText(evaluate(path(scopeDeclaration.body, 'name')!, (scope as SymbolRef).scope))).toBe('durableTaskScheduler.outputs.name');
    expect(declaration(template('modules/durable-task-scheduler.bicep'), 'output_declaration', 'name').body?.text).toBe(`${schedulers[0]!.declaration.name}.name`);
  });

  it('grants that role before the app starts (the app module depends on rbac)', () => {
    const dependsOn = path(declaration(main, 'module_declaration', 'functionApp').body, 'dependsOn');
    expect(arrayItems(dependsOn).map((item) => item.text)).toContain('rbac');
  });

  it('selects the azureManaged provider through app settings and names the connection setting', () => {
    expect(settings.get(PROVIDER_TYPE_SETTING)).toBe('azureManaged');
    const connectionSetting = settings.get(PROVIDER_CONNECTION_SETTING);
    expect(connectionSetting).toBe('DURABLE_TASK_SCHEDULER_CONNECTION_STRING');
    // Identity only: the scheduler's endpoint and the user-assigned identity's client id, no key.
    expect(opaqueText(settings.get(String(connectionSetting))!)).toBe('Endpoint=${durableTaskScheduler.outputs.endpoint};Authentication=ManagedIdentity;ClientID=${identity.outputs.clientId}');
    expect(declaration(template('modules/durable-task-scheduler.bicep'), 'output_declaration', 'endpoint').body?.text).toBe(`${schedulers[0]!.declaration.name}.properties.endpoint`);
    // The app runs as that identity only.
    const site = scheduler.ofType('Microsoft.Web/sites')[0]!;
    expect(site.value('identity', 'type')).toBe('UserAssigned');
  });

  it('keeps the storage account, its containers and tables, its roles and the AzureWebJobsStorage settings', () => {
    const kept = inventory(azureStorage).filter((entry) => !inventory(scheduler).includes(entry));
    expect(kept).toEqual([]);
    expect(scheduler.ofType('Microsoft.Storage/storageAccounts')).toHaveLength(1);
    const storageRoles = scheduler
      .ofType('Microsoft.Authorization/roleAssignments')
      .filter((r) => r.file === 'modules/rbac.bicep' && (r.value('scope') as SymbolRef).declaration.name === 'storageAccount');
    expect(storageRoles.length).toBeGreaterThanOrEqual(3);
    for (const name of [
      'AzureWebJobsStorage__credential',
      'AzureWebJobsStorage__clientId',
      'AzureWebJobsStorage__blobServiceUri',
      'AzureWebJobsStorage__queueServiceUri',
      'AzureWebJobsStorage__tableServiceUri',
    ]) {
      expect({ name, value: settings.get(name) }).toEqual({ name, value: appSettings(azureStorage).get(name) });
      expect(settings.has(name)).toBe(true);
    }
  });

  it('adds exactly the scheduler, its task hub and the role assignment to what azureStorage deploys', () => {
    const added = inventory(scheduler).filter((entry) => !inventory(azureStorage).includes(entry));
    expect(added.map((entry) => entry.split(' ').slice(0, 3).join(' ')).sort()).toEqual(
      [
        'modules/durable-task-scheduler.bicep scheduler Microsoft.DurableTask/schedulers@2025-11-01',
        'modules/durable-task-scheduler.bicep taskHub Microsoft.DurableTask/schedulers/taskHubs@2025-11-01',
        'modules/rbac.bicep durableTaskRoleAssignment Microsoft.Authorization/roleAssignments@2022-04-01',
      ].sort(),
    );
  });

  it('outputs the backend and the endpoint (an address, no secret)', () => {
    const outputs = (d: Deployment) => evaluate(declaration(main, 'output_declaration', 'SIGNALBOX_DURABLE_TASK_SCHEDULER_ENDPOINT').body!, d.main);
    expect(opaqueText(outputs(scheduler))).toBe('durableTaskScheduler.outputs.endpoint');
    expect(outputs(azureStorage)).toBe('');
  });
});

describe('with durableBackend = azureStorage (the default)', () => {
  const settings = appSettings(azureStorage);

  it('creates no scheduler, task hub or scheduler role, and no scheduler module', () => {
    expect(azureStorage.ofType('Microsoft.DurableTask/schedulers')).toEqual([]);
    expect(azureStorage.ofType('Microsoft.DurableTask/schedulers/taskHubs')).toEqual([]);
    expect(azureStorage.ofType('Microsoft.Authorization/roleAssignments').filter(isDurableTaskRole)).toEqual([]);
    expect([...azureStorage.modules.values()].map((m) => m.file)).not.toContain('modules/durable-task-scheduler.bicep');
    expect(azureStorage.modules.get('rbac')!.params.durableTaskSchedulerName).toBe('');
  });

  it('sets no storage provider setting, so host.json (Azure Storage) applies', () => {
    expect([...settings.keys()].filter((name) => /storageProvider|DURABLE_TASK_SCHEDULER/i.test(name))).toEqual([]);
  });
});

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * host.json as the Functions host reads it with these app settings: `AzureFunctionsJobHost__a__b` sets
 * `a.b` (keys matched case-insensitively, as .NET configuration does), over the file's own values.
 */
function effectiveHostJson(settings: Map<string, Value>): { [key: string]: Json } {
  const effective = JSON.parse(readFileSync(join(repoRoot, 'host.json'), 'utf8')) as { [key: string]: Json };
  for (const [name, value] of settings) {
    const match = /^AzureFunctionsJobHost__(.+)$/i.exec(name);
    if (!match) continue;
    const keys = match[1]!.split('__');
    let node = effective;
    for (const [index, key] of keys.entries()) {
      const existing = Object.keys(node).find((k) => k.toLowerCase() === key.toLowerCase()) ?? key;
      if (index === keys.length - 1) {
        node[existing] = isOpaque(value) ? value.text : (value as Json);
      } else {
        if (typeof node[existing] !== 'object' || node[existing] === null) node[existing] = {};
        node = node[existing] as { [key: string]: Json };
      }
    }
  }
  return effective;
}

describe('host.json, one file for both backends', () => {
  const hostJson = JSON.parse(readFileSync(join(repoRoot, 'host.json'), 'utf8')) as {
    extensionBundle: { id: string; version: string };
    extensions: { durableTask: Record<string, unknown> };
  };
  const version = (text: string): number[] => text.split('.').map(Number);
  const compare = (a: number[], b: number[]): number => a.reduce((order, part, i) => order || part - (b[i] ?? 0), 0);

  it('takes an extension bundle from 4.32.0 (the scheduler for Node.js apps) up to, not including, 5.0.0', () => {
    expect(hostJson.extensionBundle.id).toBe('Microsoft.Azure.Functions.ExtensionBundle');
    const range = /^\[\s*([\d.]+)\s*,\s*([\d.]+)\s*\)$/.exec(hostJson.extensionBundle.version);
    expect(range).not.toBeNull();
    expect(compare(version(range![1]!), [4, 32, 0])).toBeGreaterThanOrEqual(0);
    expect(compare(version(range![2]!), [5, 0, 0])).toBeLessThanOrEqual(0);
  });

  it('names no storage provider itself, so Azure Storage is the default and the app settings choose', () => {
    expect(Object.keys(hostJson.extensions.durableTask).map((key) => key.toLowerCase())).not.toContain('storageprovider');
    expect(hostJson.extensions.durableTask.hubName).toBe('%SIGNALBOX_TASK_HUB%');
  });

  it('becomes the scheduler provider with the scheduler variant, and stays as written with azureStorage', () => {
    const settings = appSettings(scheduler);
    const durableTask = (effectiveHostJson(settings).extensions as { durableTask: { [key: string]: Json } }).durableTask;
    expect(durableTask.storageProvider).toEqual({ type: 'azureManaged', connectionStringName: 'DURABLE_TASK_SCHEDULER_CONNECTION_STRING' });
    // The connection it names is an app setting of the same deployment; the rest of durableTask is unchanged.
    expect(settings.has(String((durableTask.storageProvider as { connectionStringName: string }).connectionStringName))).toBe(true);
    const { storageProvider: _provider, ...rest } = durableTask;
    expect(rest).toEqual(hostJson.extensions.durableTask);

    expect(effectiveHostJson(appSettings(azureStorage))).toEqual(JSON.parse(readFileSync(join(repoRoot, 'host.json'), 'utf8')));
  });
});

describe('the evaluator itself', () => {
  const scopeOf = (source: string, bindings: Record<string, Value> = {}): TemplateScope => {
    const tpl: Template = { path: 'inline.bicep', source, root: parseBicep(source).rootNode };
    return new TemplateScope(tpl, bindings);
  };
  const variable = (scope: TemplateScope, name: string): Value => scope.lookup(name);

  it('follows parameters, defaults, ternaries, filters and interpolation', () => {
    const source = "param a string = 'x'\nparam b string\nvar c = a == 'x' ? [1] : []\nvar d = filter(map(split(' p, ,q', ','), s => trim(s)), s => !empty(s))\nvar e = 'k=${b};v=${a}'";
    expect(variable(scopeOf(source), 'c')).toEqual([1]);
    expect(variable(scopeOf(source, { a: 'y' }), 'c')).toEqual([]);
    expect(variable(scopeOf(source), 'd')).toEqual(['p', 'q']);
    expect(variable(scopeOf(source), 'e')).toEqual(new Opaque('k=${b};v=x', true));
    expect(variable(scopeOf("param b string\nvar e = '${b}'"), 'e')).toEqual(new Opaque('${b}', false));
  });

  it('deploys a conditional resource only when its condition holds, and refuses to guess one known at deployment only', () => {
    const inline = (source: string): Template => ({ path: 'inline.bicep', source, root: parseBicep(source).rootNode });
    const conditional = inline("param on bool = false\nresource r 'A/b@2024-01-01' = if (on) {\n  name: 'n'\n}");
    expect(deploy({}, conditional).resources).toEqual([]);
    expect(deploy({ on: true }, conditional).resources.map((r) => r.value('name'))).toEqual(['n']);
    const unknown = inline("resource s 'A/c@2024-01-01' existing = {\n  name: 's'\n}\nresource r 'A/b@2024-01-01' = if (!empty(s.properties.x)) {\n  name: 'n'\n}");
    expect(() => deploy({}, unknown)).toThrow(/only known at deployment/);
  });
});
