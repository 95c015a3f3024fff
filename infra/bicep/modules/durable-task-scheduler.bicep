// The Durable Task Scheduler backend of Durable Functions (main.bicep deploys this module only with
// durableBackend = 'durableTaskScheduler'): one scheduler and one task hub named like the Durable Functions
// task hub (host.json hubName: %SIGNALBOX_TASK_HUB%). The scheduler takes identities only, no keys: rbac.bicep
// gives the app's identity Durable Task Data Contributor on it. API version 2025-11-01 is the first GA one
// (https://learn.microsoft.com/azure/templates/microsoft.durabletask/2025-11-01/schedulers).

@minLength(3)
@maxLength(64)
@description('Scheduler name: letters, digits and hyphens.')
param name string
param location string
param tags object = {}

@description('Task hub name: the one host.json names (SIGNALBOX_TASK_HUB), so the app finds its hub.')
param taskHubName string

@allowed([
  'Consumption'
  'Dedicated'
])
param skuName string = 'Consumption'

@minValue(1)
@maxValue(3)
@description('Capacity units of the Dedicated SKU; the Consumption SKU takes none.')
param capacity int = 1

// An empty allow-list refuses every call (403 even with the role), so at least one entry is required.
@minLength(1)
@description('IPv4/IPv6 addresses or CIDR ranges the scheduler accepts calls from.')
param ipAllowlist array

resource scheduler 'Microsoft.DurableTask/schedulers@2025-11-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    ipAllowlist: ipAllowlist
    sku: skuName == 'Dedicated' ? { name: 'Dedicated', capacity: capacity } : { name: 'Consumption' }
  }
}

resource taskHub 'Microsoft.DurableTask/schedulers/taskHubs@2025-11-01' = {
  parent: scheduler
  name: taskHubName
}

output name string = scheduler.name
// The endpoint the app connects to (an https address in the region): not a secret, calls need the role.
output endpoint string = scheduler.properties.endpoint
output taskHubName string = taskHub.name
