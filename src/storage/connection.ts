/**
 * @module A storage connection (a connection string, or service URIs with a token credential) and the
 * SDK clients for it. Which connection to use is decided from the app settings by the hosts
 * (src/host/storage-connection.ts); storage itself reads no settings.
 */
import { TableClient, type TableServiceClientOptions } from '@azure/data-tables';
import type { TokenCredential } from '@azure/core-auth';
import { BlobServiceClient, ContainerClient, newPipeline } from '@azure/storage-blob';
import { AZURITE_ACCOUNT_KEY, AZURITE_ACCOUNT_NAME } from './development-storage';
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
