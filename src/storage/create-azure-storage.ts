/**
 * @module Everything Signalbox keeps in an Azure storage account, built from one connection: the
 * stores and the due-timer index on Table Storage, the lease provider and large instance records on Blob Storage. Tables and the containers are
 * created on first start (absorbing only "already exists"), so a fresh account or Azurite needs no setup.
 */
import { TableTaskIndex } from './table-task-index';
import type { TableClient } from '@azure/data-tables';
import type { ContainerClient } from '@azure/storage-blob';
import { BlobLeaseProvider, type BlobLeaseProviderOptions } from '../leasing/blob-lease-provider';
import { createContainerClient, createTableClient, expandDevelopmentStorage, type StorageConnection } from './connection';
import { isRestError, serviceErrorCode, statusOf, toSignalboxError, translate } from './errors';
import { contextContainerOf, defaultStorageNames, type StorageNames } from './names';
import { InstanceBodyBlobs } from './instance-body-blobs';
import type { RequestCounter } from './request-counter';
import type { StorageRequestMeter } from './request-kind';
import { TableInstanceStore } from './table-instance-store';
import { TableInterestIndex, type TableInterestIndexOptions } from './table-interest-index';
import { TableDueTimerIndex } from './table-due-timer-index';
import { TableSearchIndex } from './table-search-index';
import { TableOperationStore } from './table-operation-store';
import { TableCostStore } from './table-cost-store';
import { TableWorkflowStore } from './table-workflow-store';
import { TableFlowStore } from './table-flow-store';

export interface AzureStorageOptions {
  /** A connection string, or a resolved connection (src/host/storage-connection.ts reads the settings). */
  connection: StorageConnection | string;
  /** @default defaultStorageNames */
  names?: StorageNames;
  /** Counts every storage request (bench/storage.bench.ts). */
  requestCounter?: RequestCounter;
  /** Told the kind of every storage request (the cost of operations: src/host/cost). */
  requestMeter?: StorageRequestMeter;
  /** Create the tables and the lease container when missing. @default true */
  createIfMissing?: boolean;
  leases?: BlobLeaseProviderOptions;
  interests?: TableInterestIndexOptions;
  /** The largest instance record, UTF-8 JSON (SIGNALBOX_MAX_INSTANCE_MB). @default DEFAULT_MAX_INSTANCE_BYTES (16 MiB) */
  maxInstanceBytes?: number;
}

export interface AzureStorage {
  readonly workflows: TableWorkflowStore;
  /** Also the HistoryStore: instances and their history share a table (one-transaction saves). */
  readonly instances: TableInstanceStore;
  readonly history: TableInstanceStore;
  /** Also the instance store: outbox rows live in each instance's partition. */
  readonly outbox: TableInstanceStore;
  /** Also the instance store: lifecycle event records live in each instance's partition. */
  readonly events: TableInstanceStore;
  readonly interests: TableInterestIndex;
  readonly operations: TableOperationStore;
  /** What operations cost, per workflow per day (decision 0021): rows of the operations table. */
  readonly costs: TableCostStore;
  /** Armed timers by due time: the local server's scheduler reads it (the Functions app uses durable timers). */
  readonly dueTimers: TableDueTimerIndex;
  /** Instances by business data (declared and built-in search fields). */
  readonly search: TableSearchIndex;
  /** The inbox index of human tasks (rows of the search table, partitions of their own). */
  readonly tasks: TableTaskIndex;
  /** Flow control: concurrency slots, limit overrides and their audit. */
  readonly flow: TableFlowStore;
  readonly leases: BlobLeaseProvider;
  readonly names: StorageNames;
  /** The SDK clients, for tooling and tests. */
  readonly clients: {
    readonly workflows: TableClient;
    readonly instances: TableClient;
    readonly interests: TableClient;
    readonly operations: TableClient;
    readonly timers: TableClient;
    readonly search: TableClient;
    readonly flow: TableClient;
    readonly leases: ContainerClient;
    /** Instance records too large for a Table entity (instance-body-blobs.ts). */
    readonly contexts: ContainerClient;
  };
}

export async function createAzureStorage(options: AzureStorageOptions): Promise<AzureStorage> {
  const connection: StorageConnection = typeof options.connection === 'string' ? { kind: 'connectionString', connectionString: expandDevelopmentStorage(options.connection) } : options.connection;
  const names = options.names ?? defaultStorageNames;
  const clientOptions = {
    ...(options.requestCounter ? { requestCounter: options.requestCounter } : {}),
    ...(options.requestMeter ? { requestMeter: options.requestMeter } : {}),
  };
  const clients = {
    workflows: createTableClient(connection, names.workflowsTable, clientOptions),
    instances: createTableClient(connection, names.instancesTable, clientOptions),
    interests: createTableClient(connection, names.interestsTable, clientOptions),
    operations: createTableClient(connection, names.operationsTable, clientOptions),
    timers: createTableClient(connection, names.timersTable, clientOptions),
    search: createTableClient(connection, names.searchTable, clientOptions),
    flow: createTableClient(connection, names.flowTable, clientOptions),
    leases: createContainerClient(connection, names.leaseContainer, clientOptions),
    contexts: createContainerClient(connection, contextContainerOf(names), clientOptions),
  };
  if (options.createIfMissing ?? true) {
    await Promise.all([
      // TableClient.createTable absorbs exactly 409 TableAlreadyExists and nothing else.
      ...[clients.workflows, clients.instances, clients.interests, clients.operations, clients.timers, clients.search, clients.flow].map((table) =>
        translate(`table "${table.tableName}"`, () => table.createTable()),
      ),
      createContainer(clients.leases),
      createContainer(clients.contexts),
    ]);
  }
  const instances = new TableInstanceStore(clients.instances, {
    bodies: new InstanceBodyBlobs(clients.contexts),
    ...(options.maxInstanceBytes !== undefined ? { maxInstanceBytes: options.maxInstanceBytes } : {}),
  });
  return {
    workflows: new TableWorkflowStore(clients.workflows),
    instances,
    history: instances,
    outbox: instances,
    events: instances,
    interests: new TableInterestIndex(clients.interests, options.interests),
    operations: new TableOperationStore(clients.operations),
    // A client of its own, outside `requestCounter`: the daily sums are written in the background, in
    // batches (src/host/cost/daily-costs.ts), so they are no part of any one trigger's requests.
    costs: new TableCostStore(createTableClient(connection, names.operationsTable, options.requestMeter ? { requestMeter: options.requestMeter } : {})),
    dueTimers: new TableDueTimerIndex(clients.timers),
    search: new TableSearchIndex(clients.search),
    // The inbox rows share the search table (table-task-index.ts: partitions of their own).
    tasks: new TableTaskIndex(clients.search),
    flow: new TableFlowStore(clients.flow),
    leases: new BlobLeaseProvider(clients.leases, options.leases),
    names,
    clients,
  };
}

async function createContainer(container: ContainerClient): Promise<void> {
  try {
    await container.create();
  } catch (error) {
    if (statusOf(error) === 409 && isRestError(error) && serviceErrorCode(error) === 'ContainerAlreadyExists') return;
    throw toSignalboxError(error, `container "${container.containerName}"`);
  }
}
