// Data-plane roles for the function app's user-assigned identity: what the Functions host, Durable
// Functions (Azure Storage backend) and Signalbox need with shared-key access off, what the host needs
// to send telemetry to an Application Insights component with local auth off, and, with the Durable Task
// Scheduler backend, its data role on the scheduler. The storage roles stay with either backend: the host
// (AzureWebJobsStorage) and Signalbox's own tables and leases use the account in both cases.

param storageAccountName string
param applicationInsightsName string

@description('Principal (object) id of the user-assigned identity the function app runs as.')
param principalId string

@description('Object id of a user or group to grant data access to the storage account, so its tables, blobs and queues can be browsed without shared keys; empty grants nothing.')
param deployerPrincipalId string = ''

@allowed([
  'User'
  'Group'
  'ServicePrincipal'
])
param deployerPrincipalType string = 'User'

@description('Name of the Durable Task Scheduler the app uses (durableBackend = durableTaskScheduler); empty assigns no scheduler role.')
param durableTaskSchedulerName string = ''

// Built-in role definition ids (the same in every tenant).
var storageRoles = [
  {
    name: 'Storage Blob Data Owner' // host keys and locks, Durable lease blobs, Signalbox leases, deployment packages
    id: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  }
  {
    name: 'Storage Queue Data Contributor' // Durable Functions control and work-item queues
    id: '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
  }
  {
    name: 'Storage Table Data Contributor' // Durable history and instances tables, Signalbox tables
    id: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
  }
]
// Reading and changing data, not owning it: enough for Storage Explorer or the portal's storage browser.
var deployerStorageRoles = [
  {
    name: 'Storage Blob Data Contributor'
    id: 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
  }
  {
    name: 'Storage Queue Data Contributor'
    id: '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
  }
  {
    name: 'Storage Table Data Contributor'
    id: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
  }
]
var monitoringMetricsPublisherRoleId = '3913510d-42f4-4e42-8a64-420c390055eb'
// Durable Task Data Contributor: every data action on the scheduler and its task hubs (Microsoft.DurableTask/*),
// what a Durable Functions app needs (it both starts and runs orchestrations). Built-in role id from
// https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/integration#durable-task-data-contributor
var durableTaskDataContributorRoleId = '0ad04412-c4d5-4796-b79c-f76d14c8d402'

resource storageAccount 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource durableTaskScheduler 'Microsoft.DurableTask/schedulers@2025-11-01' existing = if (!empty(durableTaskSchedulerName)) {
  name: durableTaskSchedulerName
}

resource storageRoleAssignments 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for role in storageRoles: {
  name: guid(storageAccount.id, principalId, role.id)
  scope: storageAccount
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', role.id)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: '${role.name} for the Signalbox function app identity'
  }
}]

resource monitoringRoleAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(applicationInsights.id, principalId, monitoringMetricsPublisherRoleId)
  scope: applicationInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', monitoringMetricsPublisherRoleId)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Monitoring Metrics Publisher for the Signalbox function app identity'
  }
}

resource deployerStorageRoleAssignments 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for role in deployerStorageRoles: if (!empty(deployerPrincipalId)) {
  name: guid(storageAccount.id, deployerPrincipalId, role.id)
  scope: storageAccount
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', role.id)
    principalId: deployerPrincipalId
    principalType: deployerPrincipalType
    description: '${role.name} for the deploying user (grantDeployerDataAccess)'
  }
}]

resource durableTaskRoleAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(durableTaskSchedulerName)) {
  name: guid(durableTaskScheduler.id, principalId, durableTaskDataContributorRoleId)
  scope: durableTaskScheduler
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', durableTaskDataContributorRoleId)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Durable Task Data Contributor for the Signalbox function app identity'
  }
}
