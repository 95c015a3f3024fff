// Log Analytics and a workspace-based Application Insights component with local (instrumentation-key)
// authentication off: telemetry is accepted only with an Entra ID token, which the app gets for its
// user-assigned identity (Monitoring Metrics Publisher, see rbac.bicep).
// The connection string is not an output: the function app module reads it from the component directly.

param logAnalyticsName string
param applicationInsightsName string
param location string
param tags object = {}

@description('Days Log Analytics keeps data (30 is included in the ingestion price).')
@minValue(30)
@maxValue(730)
param retentionInDays int = 30

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
    features: {
      enableLogAccessUsingOnlyResourcePermissions: true
    }
  }
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: applicationInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: logAnalytics.id
    IngestionMode: 'LogAnalytics'
    DisableLocalAuth: true
  }
}

output applicationInsightsName string = applicationInsights.name
output applicationInsightsId string = applicationInsights.id
output logAnalyticsName string = logAnalytics.name
output logAnalyticsId string = logAnalytics.id
