/** @module Azure Table and Blob Storage implementations of the engine's ports. */
export { createAzureStorage, type AzureStorage, type AzureStorageOptions } from './create-azure-storage';
export { createContainerClient, createTableClient, expandDevelopmentStorage, type StorageClientOptions, type StorageConnection } from './connection';
export { createRequestCounter, type RequestCounter, type RequestCounts, type StorageService } from './request-counter';
export { TableWorkflowStore } from './table-workflow-store';
export { TableInstanceStore } from './table-instance-store';
export { TableInterestIndex, type TableInterestIndexOptions } from './table-interest-index';
export { TableOperationStore } from './table-operation-store';
export { TableCostStore, dayOf, type CostQuery, type DailyCost } from './table-cost-store';
export { blobRequestKind, tableRequestKind, type StorageRequestMeter } from './request-kind';
export { TableSearchIndex } from './table-search-index';
export { TableFlowStore } from './table-flow-store';
export { StorageBeingDeletedError, toSignalboxError } from './errors';
export { decodeKey, encodeBlobName, encodeKey, encodeLookupKey, MAX_TABLE_KEY_LENGTH } from './keys';
export { MAX_ENTITY_BYTES, MAX_PROPERTY_CHARS } from './entity-body';
export { AZURITE_ACCOUNT_KEY, AZURITE_ACCOUNT_NAME } from './development-storage';
export { DEFAULT_TENANT_ID, defaultStorageNames, prefixedStorageNames, TENANT_ID_PATTERN, tenantRegistryTable, tenantStorageNames, type StorageNames } from './names';
export { TableTenantRegistry, type StoredTenantRecord, type TenantDeletion, type TenantRecord, type TenantStorageAccount } from './table-tenant-registry';
export { checkTenantStorage, removeTenantStorage, type ResourceCheck } from './tenant-storage';
