/**
 * The function app runs as ONE user-assigned identity, and that identity (the one whose client id goes into
 * AzureWebJobsStorage__clientId) holds every data-plane role the host, Durable Functions and Signalbox need.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { arrayItems, calledFunctions, declaration, declarations, Declaration, Node, path, property, resourcesOfType, stringValue, template } from './bicep';

/** Built-in role definition ids (identical in every tenant; checked against Microsoft's role list and samples). */
const REQUIRED_ROLES = {
  'Storage Blob Data Owner': { id: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b', scope: 'Microsoft.Storage/storageAccounts' },
  'Storage Queue Data Contributor': { id: '974c5e8b-45b9-4653-ba55-5f855dd0fb88', scope: 'Microsoft.Storage/storageAccounts' },
  'Storage Table Data Contributor': { id: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3', scope: 'Microsoft.Storage/storageAccounts' },
  'Monitoring Metrics Publisher': { id: '3913510d-42f4-4e42-8a64-420c390055eb', scope: 'Microsoft.Insights/components' },
} as const;

/** Roles of the app identity that only one durable backend needs (test/infra/durable-backend.test.ts evaluates when). */
const BACKEND_ROLES = {
  // https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/integration#durable-task-data-contributor
  'Durable Task Data Contributor': { id: '0ad04412-c4d5-4796-b79c-f76d14c8d402', scope: 'Microsoft.DurableTask/schedulers' },
} as const;

const main = template('main.bicep');
const rbac = template('modules/rbac.bicep');
const identityModule = template('modules/identity.bicep');
const functionAppModule = template('modules/functionapp.bicep');

interface Assignment {
  readonly resource: string;
  readonly roleIds: readonly string[];
  readonly scopeType: string;
  readonly scopeName: string;
  readonly principal: string;
  readonly principalType: string | undefined;
  readonly roleDefinitionCall: readonly string[];
}

/** The GUIDs a roleDefinitionId expression can take: a var holding a GUID, or `item.id` over a var array. */
function roleIdsOf(assignment: Declaration, roleDefinition: Node): string[] {
  const args = roleDefinition.namedChildren.find((child) => child.type === 'arguments')?.namedChildren ?? [];
  const roleArg = args[args.length - 1];
  if (!roleArg) return [];
  if (roleArg.type === 'string') return [stringValue(roleArg) ?? ''];
  if (roleArg.type === 'identifier') {
    const variable = declaration(rbac, 'variable_declaration', roleArg.text);
    return [stringValue(variable.body!) ?? ''];
  }
  if (roleArg.type === 'member_expression' && assignment.loop && roleArg.text === `${assignment.loop.item}.id`) {
    const source = declaration(rbac, 'variable_declaration', assignment.loop.over.text);
    return arrayItems(source.body).map((item) => stringValue(property(item, 'id')!) ?? '');
  }
  throw new Error(`${rbac.path}: cannot resolve role id of ${assignment.name}: ${roleArg.text}`);
}

function assignments(): Assignment[] {
  return resourcesOfType(rbac, 'Microsoft.Authorization/roleAssignments').map((assignment) => {
    const roleDefinition = path(assignment.body, 'properties', 'roleDefinitionId');
    if (!roleDefinition || roleDefinition.type !== 'call_expression') throw new Error(`${assignment.name}: roleDefinitionId is not a call`);
    const scopeSymbol = property(assignment.body, 'scope')?.text ?? '';
    const scope = declaration(rbac, 'resource_declaration', scopeSymbol);
    const principalType = path(assignment.body, 'properties', 'principalType');
    return {
      resource: assignment.name,
      roleIds: roleIdsOf(assignment, roleDefinition),
      scopeType: (scope.target ?? '').split('@')[0]!,
      scopeName: property(scope.body, 'name')?.text ?? '',
      principal: path(assignment.body, 'properties', 'principalId')?.text ?? '',
      principalType: principalType ? stringValue(principalType) : undefined,
      roleDefinitionCall: calledFunctions(roleDefinition),
    };
  });
}

const all = assignments();
/** The app identity's assignments; the optional deployer's are checked on their own below. */
const found = all.filter((assignment) => assignment.principal !== 'deployerPrincipalId');
const deployer = all.filter((assignment) => assignment.principal === 'deployerPrincipalId');

function moduleArgument(moduleName: string, param: string): string | undefined {
  return path(declaration(main, 'module_declaration', moduleName).body, 'params', param)?.text;
}

describe('identity and role assignments', () => {
  it('assigns each required role, at the right scope', () => {
    for (const [role, { id, scope }] of Object.entries(REQUIRED_ROLES)) {
      const assignment = found.find((a) => a.roleIds.includes(id));
      expect({ role, scope: assignment?.scopeType }).toEqual({ role, scope });
    }
  });

  it('assigns the roles to the identity parameter only, as a service principal, by built-in role id', () => {
    expect(found.length).toBeGreaterThan(0);
    for (const assignment of found) {
      expect(assignment).toEqual(expect.objectContaining({ principal: 'principalId', principalType: 'ServicePrincipal' }));
      expect(assignment.roleDefinitionCall[0]).toBe('subscriptionResourceId');
    }
    const allIds = found.flatMap((a) => a.roleIds);
    const known = [...Object.values(REQUIRED_ROLES), ...Object.values(BACKEND_ROLES)];
    expect(allIds.filter((id) => !known.some((role) => role.id === id))).toEqual([]);
  });

  it('scopes the roles to the storage account and the component the app uses', () => {
    const storageScopes = found.filter((a) => a.scopeType === 'Microsoft.Storage/storageAccounts');
    const insightsScopes = found.filter((a) => a.scopeType === 'Microsoft.Insights/components');
    expect(new Set(storageScopes.map((a) => a.scopeName))).toEqual(new Set(['storageAccountName']));
    expect(new Set(insightsScopes.map((a) => a.scopeName))).toEqual(new Set(['applicationInsightsName']));
    // ...and main.bicep gives rbac and the function app the same storage account and component.
    expect(moduleArgument('rbac', 'storageAccountName')).toBe(moduleArgument('functionApp', 'storageAccountName'));
    expect(moduleArgument('rbac', 'applicationInsightsName')).toBe(moduleArgument('functionApp', 'applicationInsightsName'));
  });

  it('assigns Durable Task Data Contributor on the scheduler the app uses, only when one is named', () => {
    const { id, scope } = BACKEND_ROLES['Durable Task Data Contributor'];
    const assignment = found.find((a) => a.roleIds.includes(id));
    expect(assignment).toMatchObject({ scopeType: scope, scopeName: 'durableTaskSchedulerName' });
    const node = declaration(rbac, 'resource_declaration', assignment!.resource).node;
    expect(node.text).toMatch(/\bif \(!empty\(durableTaskSchedulerName\)\)/);
    expect(stringValue(declaration(rbac, 'parameter_declaration', 'durableTaskSchedulerName').body!)).toBe('');
    expect(moduleArgument('rbac', 'durableTaskSchedulerName')).toBe("useDurableTaskScheduler ? durableTaskScheduler.outputs.name : ''");
  });

  it('gives rbac the principal of the same identity whose client id and resource id the app uses', () => {
    const identityModules = declarations(main, 'module_declaration').filter((m) => m.target === 'modules/identity.bicep');
    expect(identityModules).toHaveLength(1);
    const id = identityModules[0]!.name;
    expect(moduleArgument('rbac', 'principalId')).toBe(`${id}.outputs.principalId`);
    expect(moduleArgument('functionApp', 'identityClientId')).toBe(`${id}.outputs.clientId`);
    expect(moduleArgument('functionApp', 'identityId')).toBe(`${id}.outputs.id`);

    // identity.bicep: the three outputs come from one and the same identity resource.
    const identities = resourcesOfType(identityModule, 'Microsoft.ManagedIdentity/userAssignedIdentities');
    expect(identities).toHaveLength(1);
    const symbol = identities[0]!.name;
    expect(declaration(identityModule, 'output_declaration', 'id').body?.text).toBe(`${symbol}.id`);
    expect(declaration(identityModule, 'output_declaration', 'clientId').body?.text).toBe(`${symbol}.properties.clientId`);
    expect(declaration(identityModule, 'output_declaration', 'principalId').body?.text).toBe(`${symbol}.properties.principalId`);
  });

  it('runs the app as that identity only, and deploys its package with it', () => {
    const site = declaration(functionAppModule, 'resource_declaration', 'functionApp');
    const identity = property(site.body, 'identity');
    expect(stringValue(property(identity, 'type')!)).toBe('UserAssigned');
    const assigned = property(identity, 'userAssignedIdentities');
    const keys = assigned?.namedChildren.filter((child) => child.type === 'object_property') ?? [];
    expect(keys.map((key) => key.namedChildren[0]!.text)).toEqual(["'${identityId}'"]);

    const auth = path(site.body, 'properties', 'functionAppConfig', 'deployment', 'storage', 'authentication');
    expect(stringValue(property(auth, 'type')!)).toBe('UserAssignedIdentity');
    expect(property(auth, 'userAssignedIdentityResourceId')?.text).toBe('identityId');
  });

  it('grants the roles before the app is created', () => {
    const dependsOn = path(declaration(main, 'module_declaration', 'functionApp').body, 'dependsOn');
    expect(arrayItems(dependsOn).map((item) => item.text)).toContain('rbac');
  });
});

/** Data roles for browsing the storage account without shared keys (issue 12): optional, off by default. */
describe('the optional deployer data roles', () => {
  const DEPLOYER_ROLES = {
    'Storage Blob Data Contributor': 'ba92f5b4-2d11-453d-a403-e96b0029c9fe',
    'Storage Queue Data Contributor': '974c5e8b-45b9-4653-ba55-5f855dd0fb88',
    'Storage Table Data Contributor': '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3',
  };
  const mainParam = (name: string) => declaration(main, 'parameter_declaration', name);

  it('grants the deployer data (not owner) roles on the storage account only, by built-in role id', () => {
    expect(deployer.flatMap((assignment) => assignment.roleIds).sort()).toEqual(Object.values(DEPLOYER_ROLES).sort());
    for (const assignment of deployer) {
      expect(assignment).toMatchObject({ scopeType: 'Microsoft.Storage/storageAccounts', scopeName: 'storageAccountName' });
      expect(assignment.roleDefinitionCall[0]).toBe('subscriptionResourceId');
      expect(path(declaration(rbac, 'resource_declaration', assignment.resource).body, 'properties', 'principalType')?.text).toBe('deployerPrincipalType');
    }
  });

  it('assigns nothing unless a deployer principal is given', () => {
    for (const assignment of deployer) {
      const node = declaration(rbac, 'resource_declaration', assignment.resource).node;
      expect(node.text).toMatch(/\bif \(!empty\(deployerPrincipalId\)\)/);
    }
    expect(stringValue(declaration(rbac, 'parameter_declaration', 'deployerPrincipalId').body!)).toBe('');
  });

  it('is off by default in main.bicep, and azd passes the signed-in user when it is turned on', () => {
    expect(mainParam('grantDeployerDataAccess').body?.text).toBe('false');
    expect(moduleArgument('rbac', 'deployerPrincipalId')).toBe("grantDeployerDataAccess ? deployerPrincipalId : ''");
    expect(moduleArgument('rbac', 'deployerPrincipalType')).toBe('deployerPrincipalType');
    const parameters = JSON.parse(readFileSync(join(__dirname, '..', '..', 'infra', 'bicep', 'main.parameters.json'), 'utf8')) as { parameters: Record<string, { value: string }> };
    expect(parameters.parameters.deployerPrincipalId?.value).toBe('${AZURE_PRINCIPAL_ID}');
    expect(parameters.parameters.grantDeployerDataAccess?.value).toBe('${SIGNALBOX_GRANT_DEPLOYER_DATA_ACCESS=false}');
  });
});
