/**
 * @module The ports on Azure Storage for both hosts: names from SIGNALBOX_STORAGE_PREFIX (or the
 * defaults), the connection from the app settings, and a health check that asks the table service.
 */
import { LEASE_CARRY_OVER_IN_MS, type BlobLeaseProviderOptions } from '../leasing/blob-lease-provider';
import { createAzureStorage, type AzureStorage } from '../storage/create-azure-storage';
import type { RequestCounter } from '../storage/request-counter';
import type { StorageConnection } from '../storage/connection';
import { defaultStorageNames, prefixedStorageNames, type StorageNames } from '../storage/names';
import { maxInstanceBytes, readSetting, type Environment } from './settings';
import { resolveStorageConnection } from './storage-connection';
import { costMeter } from './cost/cost-scope';
import type { SignalboxPorts } from './host-services';

export interface AzurePortsOptions {
  /** @default process.env */
  env?: Environment;
  /** @default from SIGNALBOX_STORAGE_PREFIX, else defaultStorageNames */
  names?: StorageNames;
  /** Counts every storage request (the benchmarks). */
  requestCounter?: RequestCounter;
  /** Lease provider options beyond the hosts' defaults (the benchmarks compare hand-overs off). */
  leases?: BlobLeaseProviderOptions;
  /** The storage to use (a tenant's own account). @default from the app settings */
  connection?: StorageConnection;
}

export function storageNamesFrom(env: Environment): StorageNames {
  const prefix = readSetting('SIGNALBOX_STORAGE_PREFIX', env);
  return prefix ? prefixedStorageNames(prefix) : defaultStorageNames;
}

export async function createAzurePorts(options: AzurePortsOptions = {}): Promise<SignalboxPorts & { readonly storage: AzureStorage }> {
  const env = options.env ?? process.env;
  const instanceLimit = maxInstanceBytes(env);
  const storage = await createAzureStorage({
    connection: options.connection ?? resolveStorageConnection(env),
    names: options.names ?? storageNamesFrom(env),
    // An operation's result write overlaps the release of the instance's lease, and the next trigger to
    // the instance in this process within the carry-over time takes the lease over unreleased (see the options).
    leases: { releaseInBackground: true, carryOverInMs: LEASE_CARRY_OVER_IN_MS, ...options.leases },
    ...(options.requestCounter ? { requestCounter: options.requestCounter } : {}),
    ...(instanceLimit !== undefined ? { maxInstanceBytes: instanceLimit } : {}),
    // Every request is attributed to the operation it is sent for, if any (src/host/cost/cost-scope.ts).
    requestMeter: costMeter,
  });
  return {
    storage,
    workflows: storage.workflows,
    instances: storage.instances,
    history: storage.history,
    outbox: storage.outbox,
    events: storage.events,
    interests: storage.interests,
    search: storage.search,
    tasks: storage.tasks,
    flow: storage.flow,
    operations: storage.operations,
    costs: storage.costs,
    leases: storage.leases,
    async checkHealth() {
      try {
        // One cheap round trip: the first page (of at most one entity) of the workflows table.
        await storage.clients.workflows.listEntities().byPage({ maxPageSize: 1 }).next();
        return true;
      } catch {
        return false;
      }
    },
  };
}
