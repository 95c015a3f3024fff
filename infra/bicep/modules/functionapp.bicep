// The Flex Consumption (FC1) plan and the Signalbox function app. The app runs as one user-assigned
// identity and reaches storage and Application Insights with it: no keys, no connection strings with
// secrets. Flex Consumption takes runtime, scale and deployment from functionAppConfig; the legacy
// settings (FUNCTIONS_WORKER_RUNTIME, FUNCTIONS_EXTENSION_VERSION, WEBSITE_RUN_FROM_PACKAGE...) are not set.

param planName string
param functionAppName string
param location string
param tags object = {}

@description('The azd service name (azure.yaml) this app is deployed as; set as the azd-service-name tag.')
param serviceName string = 'api'

@description('Resource id of the user-assigned identity the app runs as.')
param identityId string

@description('Client id of the same identity (AzureWebJobsStorage__clientId, AZURE_CLIENT_ID).')
param identityClientId string

param storageAccountName string
param deploymentContainerName string
param applicationInsightsName string

@description('Durable Functions task hub name (host.json reads %SIGNALBOX_TASK_HUB%).')
param taskHubName string

@allowed([
  'azureStorage'
  'durableTaskScheduler'
])
@description('Backend of Durable Functions: the AzureWebJobsStorage account (host.json\'s default) or a Durable Task Scheduler.')
param durableBackend string = 'azureStorage'

@description('Endpoint of the Durable Task Scheduler (durableBackend = durableTaskScheduler); empty otherwise.')
param durableTaskSchedulerEndpoint string = ''

@description('Comma-separated hosts the invokeExternalService action may call; empty allows none.')
param allowedOutboundHosts string = ''

@description('Days after which finished instances are purged by the hourly retention function; empty turns retention off.')
param retentionDays string = ''

@description('Days after which finished operation records are deleted (hourly); empty: the app\'s default, 30; 0 keeps them forever.')
param operationRetentionDays string = ''

@description('The most one instance may hold, context and all, in MiB (empty: the app\'s default, 16). Not a main.bicep parameter yet: change the app setting to raise or lower it.')
param maxInstanceMb string = ''

@description('The largest body of an instance creation, in MiB (empty: 1, as every request body). Not a main.bicep parameter yet: change the app setting.')
param maxCreateBodyMb string = ''

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
@description('The key sensitive search indexes are hashed with (HMAC-SHA256); empty leaves sensitive fields unindexed.')
param indexHmacKey string = ''
@description('Lifecycle events\' source prefix; empty uses /<function app name>.')
param eventSourcePrefix string = ''

@allowed([
  '22'
])
param nodeVersion string = '22'

@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 100

@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('Comma-separated origins browsers may call the API from, or `*`; empty turns CORS off.')
param corsAllowedOrigins string = ''

@description('Token issuers the API accepts (SIGNALBOX_AUTH_ISSUERS), e.g. https://login.microsoftonline.com/<tenant-id>/v2.0; empty: keys only.')
param authIssuers string = ''

@description('Accepted token audiences (SIGNALBOX_AUTH_AUDIENCE): the API app registration\'s application id URI and/or client id.')
param authAudience string = ''

@description('The token claim holding app roles (SIGNALBOX_AUTH_ROLES_CLAIM); empty: `roles`.')
param authRolesClaim string = ''

@description('App roles a key acts with (SIGNALBOX_API_KEY_ROLES); empty: Signalbox.Admin.')
param apiKeyRoles string = ''

@description('Tenants a key may use (SIGNALBOX_API_KEY_TENANTS); empty: the default tenant only.')
param apiKeyTenants string = ''

@description('Entra tenant ids mapped to Signalbox tenants (SIGNALBOX_AUTH_TENANT_MAP); empty: none.')
param authTenantMap string = ''

@description('The authority the web console signs in with (SIGNALBOX_CONSOLE_AUTHORITY); empty: keys only.')
param consoleAuthority string = ''

@description('The web console\'s client id (SIGNALBOX_CONSOLE_CLIENT_ID).')
param consoleClientId string = ''

@description('The scope the web console asks an API token for (SIGNALBOX_CONSOLE_SCOPE).')
param consoleScope string = ''

@description('Concurrent HTTP requests per instance; 0 keeps the platform default for the instance size.')
@minValue(0)
@maxValue(1000)
param httpPerInstanceConcurrency int = 0

resource storageAccount 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

var corsOrigins = filter(map(split(corsAllowedOrigins, ','), origin => trim(origin)), origin => !empty(origin))

// The Durable Task Scheduler backend: host.json names no storage provider (Azure Storage, the default), and
// AzureFunctionsJobHost__<path> app settings override host.json at <path>, so these two select the
// scheduler (`azureManaged`) and name the setting holding its connection. The connection is identity-only:
// the user-assigned identity by client id, which holds Durable Task Data Contributor (rbac.bicep).
// https://learn.microsoft.com/azure/azure-functions/durable/durable-task-scheduler/durable-task-scheduler-identity
var durableTaskSchedulerConnectionSetting = 'DURABLE_TASK_SCHEDULER_CONNECTION_STRING'
var durableBackendSettings = durableBackend == 'durableTaskScheduler' ? [
  {
    name: 'AzureFunctionsJobHost__extensions__durableTask__storageProvider__type'
    value: 'azureManaged'
  }
  {
    name: 'AzureFunctionsJobHost__extensions__durableTask__storageProvider__connectionStringName'
    value: durableTaskSchedulerConnectionSetting
  }
  {
    name: durableTaskSchedulerConnectionSetting
    value: 'Endpoint=${durableTaskSchedulerEndpoint};Authentication=ManagedIdentity;ClientID=${identityClientId}'
  }
] : []

// Only sent when set, so the platform default for the instance size applies otherwise.
var httpTriggerConcurrency = httpPerInstanceConcurrency > 0 ? { triggers: { http: { perInstanceConcurrency: httpPerInstanceConcurrency } } } : {}

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true
  }
}

resource functionApp 'Microsoft.Web/sites@2024-04-01' = {
  name: functionAppName
  location: location
  tags: union(tags, { 'azd-service-name': serviceName })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storageAccount.properties.primaryEndpoints.blob}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      runtime: {
        name: 'node'
        version: nodeVersion
      }
      scaleAndConcurrency: union(
        {
          maximumInstanceCount: maximumInstanceCount
          instanceMemoryMB: instanceMemoryMB
        },
        httpTriggerConcurrency
      )
    }
    siteConfig: {
      minTlsVersion: '1.2'
      // The platform answers CORS (preflights included) before the worker; the app setting below gives
      // the worker the same list, for Core Tools and the local server.
      cors: {
        allowedOrigins: corsOrigins
      }
      appSettings: concat([
        // Identity-based AzureWebJobsStorage: the host, Durable Functions (Azure Storage backend) and
        // Signalbox use it; with the Durable Task Scheduler backend the host and Signalbox still do.
        {
          name: 'AzureWebJobsStorage__credential'
          value: 'managedidentity'
        }
        {
          name: 'AzureWebJobsStorage__clientId'
          value: identityClientId
        }
        {
          name: 'AzureWebJobsStorage__blobServiceUri'
          value: storageAccount.properties.primaryEndpoints.blob
        }
        {
          name: 'AzureWebJobsStorage__queueServiceUri'
          value: storageAccount.properties.primaryEndpoints.queue
        }
        {
          name: 'AzureWebJobsStorage__tableServiceUri'
          value: storageAccount.properties.primaryEndpoints.table
        }
        {
          name: 'SIGNALBOX_TASK_HUB'
          value: taskHubName
        }
        {
          name: 'SIGNALBOX_ALLOWED_HOSTS'
          value: allowedOutboundHosts
        }
        // Lifecycle events' `source` names the deployment: /<app name>/signalbox/workflows/<id>, unless set.
        {
          name: 'SIGNALBOX_EVENT_SOURCE_PREFIX'
          value: empty(eventSourcePrefix) ? '/${functionAppName}' : eventSourcePrefix
        }
        {
          name: 'SIGNALBOX_RETENTION_DAYS'
          value: retentionDays
        }
        {
          name: 'SIGNALBOX_OPERATION_RETENTION_DAYS'
          value: operationRetentionDays
        }
        {
          name: 'SIGNALBOX_MAX_INSTANCE_MB'
          value: maxInstanceMb
        }
        {
          name: 'SIGNALBOX_MAX_CREATE_BODY_MB'
          value: maxCreateBodyMb
        }
        {
          name: 'SIGNALBOX_QUOTA_TRIGGERS_PER_SECOND'
          value: quotaTriggersPerSecond
        }
        {
          name: 'SIGNALBOX_QUOTA_TRIGGER_BURST'
          value: quotaTriggerBurst
        }
        {
          name: 'SIGNALBOX_QUOTA_INSTANCES_ALIVE'
          value: quotaInstancesAlive
        }
        {
          name: 'SIGNALBOX_QUOTA_OPERATIONS_RUNNING'
          value: quotaOperationsRunning
        }
        {
          name: 'SIGNALBOX_PRICE_TABLE'
          value: priceTable
        }
        {
          name: 'SIGNALBOX_COST_COUNTING'
          value: costCounting
        }
        {
          name: 'SIGNALBOX_INDEX_HMAC_KEY'
          value: indexHmacKey
        }
        // The connection string only locates the component; with DisableLocalAuth the ingestion
        // endpoint accepts Entra ID tokens only (the authentication string names the identity).
        {
          name: 'APPLICATIONINSIGHTS_CONNECTION_STRING'
          value: applicationInsights.properties.ConnectionString
        }
        {
          name: 'APPLICATIONINSIGHTS_AUTHENTICATION_STRING'
          value: 'ClientId=${identityClientId};Authorization=AAD'
        }
        {
          name: 'AZURE_CLIENT_ID'
          value: identityClientId
        }
        {
          name: 'SIGNALBOX_CORS_ALLOWED_ORIGINS'
          value: corsAllowedOrigins
        }
        {
          name: 'SIGNALBOX_AUTH_ISSUERS'
          value: authIssuers
        }
        {
          name: 'SIGNALBOX_AUTH_AUDIENCE'
          value: authAudience
        }
        {
          name: 'SIGNALBOX_AUTH_ROLES_CLAIM'
          value: authRolesClaim
        }
        {
          name: 'SIGNALBOX_API_KEY_ROLES'
          value: apiKeyRoles
        }
        {
          name: 'SIGNALBOX_API_KEY_TENANTS'
          value: apiKeyTenants
        }
        {
          name: 'SIGNALBOX_AUTH_TENANT_MAP'
          value: authTenantMap
        }
        {
          name: 'SIGNALBOX_CONSOLE_AUTHORITY'
          value: consoleAuthority
        }
        {
          name: 'SIGNALBOX_CONSOLE_CLIENT_ID'
          value: consoleClientId
        }
        {
          name: 'SIGNALBOX_CONSOLE_SCOPE'
          value: consoleScope
        }
      ], durableBackendSettings)
    }
  }
}

output name string = functionApp.name
output id string = functionApp.id
output defaultHostName string = functionApp.properties.defaultHostName
output planName string = plan.name
