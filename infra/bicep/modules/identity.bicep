// The user-assigned managed identity the function app runs as. The same identity reaches storage
// (AzureWebJobsStorage__clientId), Application Insights (APPLICATIONINSIGHTS_AUTHENTICATION_STRING), the
// deployment container and, through AZURE_CLIENT_ID, anything DefaultAzureCredential is used for.

param name string
param location string
param tags object = {}

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output name string = identity.name
output clientId string = identity.properties.clientId
output principalId string = identity.properties.principalId
