/**
 * @module Where Signalbox's storage is, from the app settings (src/host/settings.ts), and the SDK
 * clients for it.
 *
 * Order: `SIGNALBOX_STORAGE` (a connection string), else `AzureWebJobsStorage` as a connection string
 * (`UseDevelopmentStorage=true` means the local Azurite on its default ports), else identity-based
 * settings as the Functions host reads them: `AzureWebJobsStorage__blobServiceUri` and
 * `__tableServiceUri`, or `__accountName` (public-cloud endpoints derived from it), with
 * DefaultAzureCredential (the user-assigned identity `__clientId` when `__credential` is
 * `managedidentity`).
 */
import { TableClient, type TableServiceClientOptions } from '@azure/data-tables';
import { DefaultAzureCredential } from '@azure/identity';
import type { TokenCredential } from '@azure/core-auth';
import { BlobServiceClient, ContainerClient, newPipeline } from '@azure/storage-blob';
import { ValidationError } from '../engine/errors';
import { AZURITE_ACCOUNT_KEY, AZURITE_ACCOUNT_NAME } from '../host/azurite';
import { readSetting, type Environment } from '../host/settings';
import type { RequestCounter } from './request-counter';

export type StorageConnection =
  | { readonly kind: 'connectionString'; readonly connectionString: string }
  | {
      readonly kind: 'identity';
      readonly blobServiceUri: string;
      readonly tableServiceUri: string;
      readonly credential: TokenCredential;
    };

export interface StorageClientOptions {
  /** Counts every request the clients send (bench/storage.bench.ts). */
  requestCounter?: RequestCounter;
}

/**
 * `UseDevelopmentStorage=true` expanded: the table SDK does not understand the shorthand. The account
 * key is Azurite's published development key, not a secret.
 */
export function expandDevelopmentStorage(connectionString: string): string {
  if (!/^\s*UseDevelopmentStorage=true/i.test(connectionString)) return connectionString;
  const proxy = /DevelopmentStorageProxyUri=([^;]+)/i.exec(connectionString)?.[1];
  const base = (proxy ?? 'http://127.0.0.1').replace(/\/+$/, '').replace(/:\d+$/, '');
  return [
    'DefaultEndpointsProtocol=http',
    `AccountName=${AZURITE_ACCOUNT_NAME}`,
    `AccountKey=${AZURITE_ACCOUNT_KEY}`,
    `BlobEndpoint=${base}:10000/${AZURITE_ACCOUNT_NAME}`,
    `QueueEndpoint=${base}:10001/${AZURITE_ACCOUNT_NAME}`,
    `TableEndpoint=${base}:10002/${AZURITE_ACCOUNT_NAME}`,
  ].join(';');
}

/** Reads the settings; throws ValidationError naming them when none is set. */
export function resolveStorageConnection(env: Environment = process.env): StorageConnection {
  const connectionString = readSetting('SIGNALBOX_STORAGE', env) ?? readSetting('AzureWebJobsStorage', env);
  if (connectionString) return { kind: 'connectionString', connectionString: expandDevelopmentStorage(connectionString) };

  const accountName = readSetting('AzureWebJobsStorage__accountName', env);
  const blobServiceUri = readSetting('AzureWebJobsStorage__blobServiceUri', env) ?? (accountName && `https://${accountName}.blob.core.windows.net`);
  const tableServiceUri = readSetting('AzureWebJobsStorage__tableServiceUri', env) ?? (accountName && `https://${accountName}.table.core.windows.net`);
  if (blobServiceUri && tableServiceUri) {
    const clientId = readSetting('AzureWebJobsStorage__clientId', env);
    const useManagedIdentity = readSetting('AzureWebJobsStorage__credential', env)?.toLowerCase() === 'managedidentity';
    const credential = new DefaultAzureCredential(useManagedIdentity && clientId ? { managedIdentityClientId: clientId } : {});
    return { kind: 'identity', blobServiceUri: trimSlash(blobServiceUri), tableServiceUri: trimSlash(tableServiceUri), credential };
  }
  const hint =
    'set SIGNALBOX_STORAGE or AzureWebJobsStorage to a connection string (UseDevelopmentStorage=true for Azurite), ' +
    'or AzureWebJobsStorage__accountName (or __blobServiceUri and __tableServiceUri) for identity-based access';
  throw new ValidationError(`No storage is configured: ${hint}`, [{ path: 'AzureWebJobsStorage', message: hint }]);
}

function trimSlash(uri: string): string {
  return uri.replace(/\/+$/, '');
}

function isInsecure(connectionString: string): boolean {
  return /DefaultEndpointsProtocol=http(;|$)/i.test(connectionString) || /Endpoint=http:/i.test(connectionString);
}

export function createTableClient(connection: StorageConnection, tableName: string, options: StorageClientOptions = {}): TableClient {
  const clientOptions: TableServiceClientOptions = {
    ...(options.requestCounter && { additionalPolicies: [{ policy: options.requestCounter.tablePolicy, position: 'perRetry' as const }] }),
  };
  if (connection.kind === 'identity') return new TableClient(connection.tableServiceUri, tableName, connection.credential, clientOptions);
  return TableClient.fromConnectionString(connection.connectionString, tableName, {
    ...clientOptions,
    // Azurite speaks plain HTTP; the SDK refuses shared-key auth over HTTP unless told.
    allowInsecureConnection: isInsecure(connection.connectionString),
  });
}

export function createContainerClient(connection: StorageConnection, containerName: string, options: StorageClientOptions = {}): ContainerClient {
  const { url, credential } =
    connection.kind === 'identity'
      ? { url: `${connection.blobServiceUri}/${containerName}`, credential: connection.credential }
      : BlobServiceClient.fromConnectionString(connection.connectionString).getContainerClient(containerName);
  const pipeline = newPipeline(credential);
  // The blob SDK takes no core-rest-pipeline policies; a legacy factory is its public extension point.
  if (options.requestCounter) pipeline.factories.push(options.requestCounter.blobPolicyFactory);
  return new ContainerClient(url, pipeline);
}
