// Signalbox on Azure: a Flex Consumption (FC1) function app with a user-assigned identity, an identity-only
// storage account (shared keys off), Log Analytics and Application Insights (local auth off), and the
// role assignments that tie them together; with durableBackend = 'durableTaskScheduler' also a Durable
// Task Scheduler and its task hub. `azd up` deploys this with main.parameters.json.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('Name of the azd environment; names the resource group and seeds the unique resource token.')
param environmentName string

@minLength(1)
@description('Azure region for every resource. It must offer the Flex Consumption plan (az functionapp list-flexconsumption-locations).')
@metadata({
  azd: {
    type: 'location'
  }
})
param location string

@minLength(1)
@maxLength(9)
@description('Short prefix of resource names: lowercase letters and digits (it is also part of the storage account name).')
param namePrefix string = 'signalbox'

@minLength(3)
@maxLength(45)
@description('Durable Functions task hub name: letters and digits, starting with a letter.')
param taskHubName string = 'SignalboxHub'

// docs/guides/scaling-out.md says when to choose which. Durable Functions' data cannot move between the two:
// drain the running orchestrations before switching a deployment.
@allowed([
  'azureStorage'
  'durableTaskScheduler'
])
@description('Backend of Durable Functions (orchestrations, activities, timers): the storage account\'s queues, tables and blobs, or a Durable Task Scheduler. Signalbox\'s own data stays in the storage account with either.')
param durableBackend string = 'azureStorage'

@allowed([
  'Consumption'
  'Dedicated'
])
@description('Durable Task Scheduler SKU (durableBackend = durableTaskScheduler): Consumption bills per action (up to 500 actions/s); Dedicated bills per capacity unit (2,000 actions/s each).')
param durableTaskSchedulerSku string = 'Consumption'

@minValue(1)
@maxValue(3)
@description('Capacity units of a Dedicated Durable Task Scheduler (1 to 3); ignored by Consumption.')
param durableTaskSchedulerCapacity int = 1

@minLength(1)
@description('Comma-separated IPv4/IPv6 addresses or CIDR ranges the Durable Task Scheduler accepts calls from (an empty list refuses every call); the default allows any address, access still needs the identity\'s role.')
param durableTaskSchedulerIpAllowlist string = '0.0.0.0/0'

@description('Comma-separated hosts the invokeExternalService action may call (`*.example.com` allowed); empty allows none.')
param allowedOutboundHosts string = ''

@description('Days after which finished (complete, cancelled) instances are purged by the hourly retention function; empty (the default) turns retention off.')
param retentionDays string = ''

@description('Days after which finished operation records are deleted by the hourly purge; empty (the default) means the app\'s default of 30 days, 0 keeps them forever.')
param operationRetentionDays string = ''

@description('Quota: triggers a tenant may send per second, sustained, per worker (empty: 100).')
param quotaTriggersPerSecond string = ''

@description('Quota: triggers a tenant may send at once after a quiet spell, per worker (empty: 500).')
param quotaTriggerBurst string = ''

@description('Quota: instances a tenant may have alive (empty: 100000).')
param quotaInstancesAlive string = ''

@description('Quota: operations a tenant may have running at once (empty: 1000).')
param quotaOperationsRunning string = ''

@description('The price table that turns counted requests into an estimate (JSON over the defaults, docs/guides/cost.md; empty: the defaults).')
param priceTable string = ''

@description('on or off: whether operations and instances record what they cost (empty: on).')
param costCounting string = ''

@secure()
@description('The key sensitive search indexes are hashed with (HMAC-SHA256; at least 32 characters, never changed once used); empty (the default) leaves sensitive fields unindexed.')
param indexHmacKey string = ''
@description('Put before /signalbox/workflows/<id> in lifecycle events\' CloudEvents source; empty (the default) uses /<function app name>.')
param eventSourcePrefix string = ''

@minValue(40)
@maxValue(1000)
@description('Most instances Flex Consumption may scale the app out to.')
param maximumInstanceCount int = 100

@allowed([
  512
  2048
  4096
])
@description('Memory of each instance in MB; CPU and default HTTP concurrency grow with it.')
param instanceMemoryMB int = 2048

@minValue(0)
@maxValue(1000)
@description('Concurrent HTTP requests per instance; 0 keeps the platform default for the instance size.')
param httpPerInstanceConcurrency int = 0

// Only 22: three Azure Monitor telemetry packages the app loads on Azure declare Node >= 22.
@allowed([
  '22'
])
@description('Node.js version of the Functions runtime.')
param nodeVersion string = '22'

@description('Comma-separated origins browsers may call the API from (`https://console.example.com`, or `*`); empty turns CORS off.')
param corsAllowedOrigins string = ''

@description('Token issuers the API accepts, e.g. https://login.microsoftonline.com/<tenant-id>/v2.0 (README: Identity and access); empty: keys only.')
param authIssuers string = ''

@description('Accepted token audiences: the API app registration\'s application id URI and/or client id.')
param authAudience string = ''

@description('The token claim holding app roles; empty: `roles`.')
param authRolesClaim string = ''

@description('App roles a function key acts with; empty: Signalbox.Admin.')
param apiKeyRoles string = ''

@description('Tenants a function key may use (comma-separated, or *); empty: the default tenant only.')
param apiKeyTenants string = ''

@description('Entra tenant ids mapped to Signalbox tenants (<tid>=<tenant-id>, comma-separated); empty: none.')
param authTenantMap string = ''

@description('The OpenID Connect authority the web console signs in with, e.g. https://login.microsoftonline.com/<tenant-id>/v2.0; empty: the console offers keys only.')
param consoleAuthority string = ''

@description('The web console\'s client id (a single-page application registration).')
param consoleClientId string = ''

@description('The scope the web console asks an API token for, e.g. api://<api-client-id>/access.')
param consoleScope string = ''

@description('Object id of the user or group to grant data access to the storage account (azd passes the signed-in user as AZURE_PRINCIPAL_ID); used only when grantDeployerDataAccess is true.')
param deployerPrincipalId string = ''

@allowed([
  'User'
  'Group'
  'ServicePrincipal'
])
@description('Kind of principal deployerPrincipalId names.')
param deployerPrincipalType string = 'User'

@description('Grant deployerPrincipalId Storage Blob Data Contributor, Queue Data Contributor and Table Data Contributor on the storage account, so the tables, leases and queues can be browsed (shared-key access is off). Off by default.')
param grantDeployerDataAccess bool = false

// Abbreviations from the Azure Cloud Adoption Framework, as in the azd templates.
var abbrs = {
  resourceGroup: 'rg-'
  functionApp: 'func-'
  appServicePlan: 'plan-'
  storageAccount: 'st'
  userAssignedIdentity: 'id-'
  logAnalyticsWorkspace: 'log-'
  applicationInsights: 'appi-'
  durableTaskScheduler: 'dts-'
}
var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var prefix = toLower(namePrefix)
var storagePrefix = replace(prefix, '-', '')
var tags = {
  'azd-env-name': environmentName
}

// The service name in azure.yaml; azd finds the app to deploy to by this tag.
var serviceName = 'api'
var functionAppName = '${abbrs.functionApp}${prefix}-${resourceToken}'
var deploymentContainerName = 'app-package-${take(functionAppName, 32)}-${take(resourceToken, 7)}'

// Must equal defaultStorageNames in src/storage/names.ts (test/infra checks it).
var signalboxTableNames = [
  'SignalboxWorkflows'
  'SignalboxInstances'
  'SignalboxInterests'
  'SignalboxOperations'
  'SignalboxTimers'
  'SignalboxSearch'
  'SignalboxFlow'
]
var signalboxLeaseContainerName = 'signalbox-leases'
var signalboxContextContainerName = 'signalbox-contexts'

var useDurableTaskScheduler = durableBackend == 'durableTaskScheduler'

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: '${abbrs.resourceGroup}${environmentName}'
  location: location
  tags: tags
}

module identity 'modules/identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    name: '${abbrs.userAssignedIdentity}${prefix}-${resourceToken}'
    location: location
    tags: tags
  }
}

module storage 'modules/storage.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    name: take('${abbrs.storageAccount}${storagePrefix}${resourceToken}', 24)
    location: location
    tags: tags
    deploymentContainerName: deploymentContainerName
    leaseContainerName: signalboxLeaseContainerName
    contextContainerName: signalboxContextContainerName
    tableNames: signalboxTableNames
  }
}

module monitoring 'modules/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    logAnalyticsName: '${abbrs.logAnalyticsWorkspace}${prefix}-${resourceToken}'
    applicationInsightsName: '${abbrs.applicationInsights}${prefix}-${resourceToken}'
    location: location
    tags: tags
  }
}

// Only for durableBackend = 'durableTaskScheduler'. The storage account above stays in both cases: the
// Functions host (AzureWebJobsStorage: keys, locks, timers) and Signalbox's tables and leases need it.
module durableTaskScheduler 'modules/durable-task-scheduler.bicep' = if (useDurableTaskScheduler) {
  name: 'durable-task-scheduler'
  scope: rg
  params: {
    name: '${abbrs.durableTaskScheduler}${prefix}-${resourceToken}'
    location: location
    tags: tags
    taskHubName: taskHubName
    skuName: durableTaskSchedulerSku
    capacity: durableTaskSchedulerCapacity
    ipAllowlist: filter(map(split(durableTaskSchedulerIpAllowlist, ','), address => trim(address)), address => !empty(address))
  }
}

module rbac 'modules/rbac.bicep' = {
  name: 'rbac'
  scope: rg
  params: {
    storageAccountName: storage.outputs.name
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    principalId: identity.outputs.principalId
    deployerPrincipalId: grantDeployerDataAccess ? deployerPrincipalId : ''
    deployerPrincipalType: deployerPrincipalType
    durableTaskSchedulerName: useDurableTaskScheduler ? durableTaskScheduler.outputs.name : ''
  }
}

module functionApp 'modules/functionapp.bicep' = {
  name: 'functionapp'
  scope: rg
  params: {
    planName: '${abbrs.appServicePlan}${prefix}-${resourceToken}'
    functionAppName: functionAppName
    location: location
    tags: tags
    serviceName: serviceName
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    storageAccountName: storage.outputs.name
    deploymentContainerName: storage.outputs.deploymentContainerName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    taskHubName: taskHubName
    durableBackend: durableBackend
    durableTaskSchedulerEndpoint: useDurableTaskScheduler ? durableTaskScheduler.outputs.endpoint : ''
    allowedOutboundHosts: allowedOutboundHosts
    retentionDays: retentionDays
    operationRetentionDays: operationRetentionDays
    quotaTriggersPerSecond: quotaTriggersPerSecond
    quotaTriggerBurst: quotaTriggerBurst
    quotaInstancesAlive: quotaInstancesAlive
    quotaOperationsRunning: quotaOperationsRunning
    priceTable: priceTable
    costCounting: costCounting
    indexHmacKey: indexHmacKey
    eventSourcePrefix: eventSourcePrefix
    nodeVersion: nodeVersion
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    httpPerInstanceConcurrency: httpPerInstanceConcurrency
    corsAllowedOrigins: corsAllowedOrigins
    authIssuers: authIssuers
    authAudience: authAudience
    authRolesClaim: authRolesClaim
    apiKeyRoles: apiKeyRoles
    apiKeyTenants: apiKeyTenants
    authTenantMap: authTenantMap
    consoleAuthority: consoleAuthority
    consoleClientId: consoleClientId
    consoleScope: consoleScope
  }
  // The app reads its deployment package and starts the host with the identity: grant the roles first.
  dependsOn: [
    rbac
  ]
}

// Names and addresses only: no keys, no connection strings.
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_FUNCTION_APP_NAME string = functionApp.outputs.name
output AZURE_FUNCTION_APP_HOST_NAME string = functionApp.outputs.defaultHostName
output SIGNALBOX_API_BASE_URL string = 'https://${functionApp.outputs.defaultHostName}/api'
output AZURE_STORAGE_ACCOUNT_NAME string = storage.outputs.name
output AZURE_USER_ASSIGNED_IDENTITY_CLIENT_ID string = identity.outputs.clientId
output SIGNALBOX_TASK_HUB string = taskHubName
output SIGNALBOX_DURABLE_BACKEND string = durableBackend
// The scheduler's endpoint (no secret: access needs a role); empty with azureStorage.
output SIGNALBOX_DURABLE_TASK_SCHEDULER_ENDPOINT string = useDurableTaskScheduler ? durableTaskScheduler.outputs.endpoint : ''
