/**
 * @module Which storage the hosts use, from the app settings (src/host/settings.ts).
 *
 * Order: `SIGNALBOX_STORAGE` (a connection string), else `AzureWebJobsStorage` as a connection string
 * (`UseDevelopmentStorage=true` means the local Azurite on its default ports), else identity-based
 * settings as the Functions host reads them: `AzureWebJobsStorage__blobServiceUri` and
 * `__tableServiceUri`, or `__accountName` (public-cloud endpoints derived from it), with
 * DefaultAzureCredential (the user-assigned identity `__clientId` when `__credential` is
 * `managedidentity`).
 */
import { DefaultAzureCredential } from '@azure/identity';
import { expandDevelopmentStorage, type StorageConnection } from '../storage/connection';
import { readSetting, type Environment } from './settings';

/**
 * No storage setting is present. A server fault, not the caller's: it is deliberately not a
 * SignalboxError, so the hosts answer 500 and log it (with this hint) instead of blaming the request.
 */
export class StorageNotConfiguredError extends Error {
  constructor(readonly hint: string) {
    super(`No storage is configured: ${hint}`);
    this.name = 'StorageNotConfiguredError';
  }
}

/** Reads the settings; throws StorageNotConfiguredError naming them when none is set. */
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
  throw new StorageNotConfiguredError(hint);
}

function trimSlash(uri: string): string {
  return uri.replace(/\/+$/, '');
}
