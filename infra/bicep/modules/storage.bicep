// The storage account the Functions host, Durable Functions (task hub queues, tables and lease blobs) and
// Signalbox itself (tables, the lease container and the large-context container of src/storage/names.ts) use. Shared-key access is off:
// every client authenticates with Entra ID (the app's user-assigned identity, see rbac.bicep).

@description('Storage account name: 3-24 lowercase letters and digits, globally unique.')
@minLength(3)
@maxLength(24)
param name string

param location string
param tags object = {}

@description('Blob container that holds the Flex Consumption deployment packages.')
param deploymentContainerName string

@description('Blob container for the per-instance leases Signalbox takes (defaultStorageNames.leaseContainer).')
param leaseContainerName string

@description('Blob container for instance records too large for a Table entity (defaultStorageNames.contextContainer).')
param contextContainerName string

@description('Tables Signalbox stores workflows, instances, interests and operations in (defaultStorageNames).')
param tableNames array

resource storageAccount 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    accessTier: 'Hot'
    allowSharedKeyAccess: false
    allowBlobPublicAccess: false
    allowCrossTenantReplication: false
    defaultToOAuthAuthentication: true
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    }
    dnsEndpointType: 'Standard'
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storageAccount
  name: 'default'
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource leaseContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: leaseContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource contextContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: contextContainerName
  properties: {
    publicAccess: 'None'
  }
}

// Durable Functions (Azure Storage backend) creates its control and work-item queues itself; the queue
// service is declared so the account's queue endpoint is part of the deployment.
resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' = {
  parent: storageAccount
  name: 'default'
}

resource tableService 'Microsoft.Storage/storageAccounts/tableServices@2023-05-01' = {
  parent: storageAccount
  name: 'default'
}

resource tables 'Microsoft.Storage/storageAccounts/tableServices/tables@2023-05-01' = [for tableName in tableNames: {
  parent: tableService
  name: tableName
}]

output name string = storageAccount.name
output id string = storageAccount.id
output blobEndpoint string = storageAccount.properties.primaryEndpoints.blob
output queueEndpoint string = storageAccount.properties.primaryEndpoints.queue
output tableEndpoint string = storageAccount.properties.primaryEndpoints.table
output deploymentContainerName string = deploymentContainer.name
output leaseContainerName string = leaseContainer.name
output contextContainerName string = contextContainer.name
