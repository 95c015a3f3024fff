/**
 * @module Tenants on both hosts, what they share: tenant ids, the admin API's input schemas and service
 * contract (TenantAdministration), the registry's operations (a table in the default tenant's storage), and
 * where each tenant's storage is (tables and a lease container of its own, named by tenantStorageNames, in
 * the deployment's account or an account of its own). The default tenant always exists and keeps today's
 * names. The service is tenant-administration.ts; what a host builds per tenant is cached by tenant-cores.ts.
 */
import { DefaultAzureCredential } from '@azure/identity';
import { z } from 'zod';
import { expandDevelopmentStorage, type StorageConnection } from '../storage/connection';
import { DEFAULT_TENANT_ID, TENANT_ID_PATTERN, tenantStorageNames, type StorageNames } from '../storage/names';
import type { StoredTenantRecord, TableTenantRegistry, TenantRecord, TenantStorageAccount } from '../storage/table-tenant-registry';
import { readTenantStorageSetting, TENANT_STORAGE_SETTING_PATTERN, type Environment } from './settings';
import { StorageNotConfiguredError } from './storage-connection';

export { DEFAULT_TENANT_ID };
export type { TenantRecord, StoredTenantRecord };

export const tenantIdSchema = z
  .string()
  .regex(TENANT_ID_PATTERN, 'a tenant id is 3-63 lowercase letters, digits or hyphens')
  .meta({ description: 'A tenant id: 3-63 lowercase letters, digits or hyphens; `default` is the default tenant.', example: 'contoso' });

export function isTenantId(value: string): boolean {
  return TENANT_ID_PATTERN.test(value);
}

/** The registry's operations the hosts use (TableTenantRegistry on Azure Storage). */
export type TenantRegistry = Pick<TableTenantRegistry, 'get' | 'list' | 'create' | 'replace' | 'remove'>;

/** Where a tenant's data is: the connection and the names. */
export interface TenantStorage {
  readonly connection: StorageConnection;
  readonly names: StorageNames;
}

/**
 * The tenant's own account (identity-based, or the connection string in the app setting it names), else the
 * deployment's connection. A named setting that is not set on this worker is a server fault (500, logged
 * with the setting's name), not the caller's: every worker of a deployment has the same settings.
 */
export function tenantStorageOf(tenantId: string, account: TenantStorageAccount | undefined, deployment: TenantStorage, env: Environment): TenantStorage {
  const names = tenantStorageNames(tenantId, deployment.names);
  if (!account) return { connection: deployment.connection, names };
  if ('connectionSetting' in account) {
    const connectionString = readTenantStorageSetting(account.connectionSetting, env);
    if (!connectionString) throw new StorageNotConfiguredError(`set ${account.connectionSetting}, the connection string of tenant "${tenantId}"'s storage account`);
    return { connection: { kind: 'connectionString', connectionString: expandDevelopmentStorage(connectionString) }, names };
  }
  return { connection: { kind: 'identity', tableServiceUri: account.tableServiceUri, blobServiceUri: account.blobServiceUri, credential: new DefaultAzureCredential() }, names };
}

export const tenantStorageAccountSchema = z
  .union(
    [
      z.strictObject({
        tableServiceUri: z
          .url({ protocol: /^https$/ })
          .meta({ description: "The tenant's own account's table endpoint (identity-based: the app's identity needs Storage Table Data Contributor there)." }),
        blobServiceUri: z.url({ protocol: /^https$/ }).meta({ description: "The tenant's own account's blob endpoint (Storage Blob Data Contributor)." }),
      }),
      z.strictObject({
        connectionSetting: z.string().regex(TENANT_STORAGE_SETTING_PATTERN, 'the name of an app setting SIGNALBOX_TENANT_STORAGE_<NAME> (capitals, digits, underscores)').meta({
          description: "The name of the app setting that holds the tenant's own account's connection string (`SIGNALBOX_TENANT_STORAGE_<NAME>`); the record keeps the name, never the value.",
          example: 'SIGNALBOX_TENANT_STORAGE_CONTOSO',
        }),
      }),
    ],
    { error: 'either tableServiceUri and blobServiceUri (identity-based) or connectionSetting' },
  )
  .meta({ id: 'TenantStorageAccount' });

export const tenantInputSchema = z
  .strictObject({
    storage: tenantStorageAccountSchema.optional(),
    quotas: z
      .record(z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,63}$/), z.number().int().min(0))
      .optional()
      .meta({ description: "Limits that differ from the deployment's defaults, by quota name." }),
  })
  .meta({ id: 'TenantInput' });
export type TenantInput = z.infer<typeof tenantInputSchema>;

/** Creating, reading and deleting tenants: the admin API's service. */
export interface TenantAdministration {
  list(): Promise<TenantRecord[]>;
  get(tenantId: string): Promise<TenantRecord | undefined>;
  /** Registers the tenant and provisions its storage; `created` false when it existed (its record is answered, unchanged). */
  create(tenantId: string, input: TenantInput): Promise<{ readonly record: TenantRecord; readonly created: boolean }>;
  /** Marks the tenant deleted (it serves nothing from now on) and starts the removal of its storage. */
  delete(tenantId: string): Promise<TenantRecord>;
  /** Resumes removals a crash or restart interrupted; answers how many it finished. */
  resumeDeletions(): Promise<number>;
  /** Removals still running in this process (stop() and tests wait for them). */
  settle(): Promise<void>;
}
