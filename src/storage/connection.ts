/**
 * @module A storage connection (a connection string, or service URIs with a token credential) and the
 * SDK clients for it. Which connection to use is decided from the app settings by the hosts
 * (src/host/storage-connection.ts); storage itself reads no settings.
 */
import { TableClient, type TableServiceClientOptions } from '@azure/data-tables';
import type { TokenCredential } from '@azure/core-auth';
import type { Pipeline as CorePipeline } from '@azure/core-rest-pipeline';
import { BlobServiceClient, ContainerClient, newPipeline } from '@azure/storage-blob';
import { AZURITE_ACCOUNT_KEY, AZURITE_ACCOUNT_NAME } from './development-storage';
import type { RequestCounter } from './request-counter';
import { blobMeterPolicyFactory, tableMeterPolicy, type StorageRequestMeter } from './request-kind';

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
  /** Told the kind of every request the clients send (the cost of operations: src/host/cost). */
  requestMeter?: StorageRequestMeter;
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

/**
 * Policies the SDKs put in every pipeline that cost CPU on every request and do nothing here. The
 * tracing policy parses and sanitises the URL and opens a span per request, a no-op span unless an
 * Azure SDK instrumenter is registered, and Signalbox registers none (functions/telemetry.ts traces
 * outgoing HTTP with the HTTP instrumentation, which sees these requests anyway). The log policy stays:
 * it returns at once unless AZURE_LOG_LEVEL turns the SDK's logging on.
 */
const IDLE_POLICY_NAMES = ['tracingPolicy'] as const;

function removeIdlePolicies(pipeline: CorePipeline): void {
  for (const name of IDLE_POLICY_NAMES) pipeline.removePolicy({ name });
}

/**
 * The core pipeline a blob client sends through: the blob SDK builds it from its legacy `Pipeline` on
 * the first client and shares it with every client made from that one (`getBlockBlobClient`), but
 * exposes it only to subclasses, hence the narrowing here.
 */
export function corePipelineOf(client: ContainerClient): CorePipeline {
  return (client as unknown as { readonly storageClientContext: { readonly pipeline: CorePipeline } }).storageClientContext.pipeline;
}

export function createTableClient(connection: StorageConnection, tableName: string, options: StorageClientOptions = {}): TableClient {
  const additionalPolicies = [
    ...(options.requestCounter ? [{ policy: options.requestCounter.tablePolicy, position: 'perRetry' as const }] : []),
    ...(options.requestMeter ? [{ policy: tableMeterPolicy(options.requestMeter), position: 'perRetry' as const }] : []),
  ];
  const clientOptions: TableServiceClientOptions = additionalPolicies.length > 0 ? { additionalPolicies } : {};
  const client =
    connection.kind === 'identity'
      ? new TableClient(connection.tableServiceUri, tableName, connection.credential, clientOptions)
      : TableClient.fromConnectionString(connection.connectionString, tableName, {
          ...clientOptions,
          // Azurite speaks plain HTTP; the SDK refuses shared-key auth over HTTP unless told.
          allowInsecureConnection: isInsecure(connection.connectionString),
        });
  removeIdlePolicies(client.pipeline);
  return client;
}

export function createContainerClient(connection: StorageConnection, containerName: string, options: StorageClientOptions = {}): ContainerClient {
  const { url, credential } =
    connection.kind === 'identity'
      ? { url: `${connection.blobServiceUri}/${containerName}`, credential: connection.credential }
      : BlobServiceClient.fromConnectionString(connection.connectionString).getContainerClient(containerName);
  const pipeline = newPipeline(credential);
  // The blob SDK takes no core-rest-pipeline policies; a legacy factory is its public extension point.
  if (options.requestCounter) pipeline.factories.push(options.requestCounter.blobPolicyFactory);
  if (options.requestMeter) pipeline.factories.push(blobMeterPolicyFactory(options.requestMeter));
  const client = new ContainerClient(url, pipeline);
  removeIdlePolicies(corePipelineOf(client));
  return client;
}
