/**
 * @module The tenant registry on Table Storage: one row per tenant (PartitionKey `tenant`, RowKey the
 * tenant id) in the default tenant's storage. A tenant's own data never lives here, only what the hosts
 * need to find its storage and limits.
 */
import type { TableClient } from '@azure/data-tables';
import { ConflictError, PreconditionFailedError } from '../engine/model';
import { parseBody, toBody } from './entity-body';
import { statusOf, toSignalboxError, translate } from './errors';

/**
 * Where a tenant's data lives when not in the deployment's own account: identity-based endpoints, or the
 * name of the app setting holding its connection string. Never a key: the record is readable by every
 * tenant administrator.
 */
export type TenantStorageAccount = { readonly tableServiceUri: string; readonly blobServiceUri: string } | { readonly connectionSetting: string };

/** The state of the tenant's offboarding, from DELETE until the check proved nothing of it is left. */
export interface TenantDeletion {
  readonly status: 'running' | 'completed' | 'failed';
  readonly requestedAt: string;
  readonly finishedAt?: string;
  /** What the check after the removal found: each table and the lease container, and whether it still exists. */
  readonly check?: readonly { readonly resource: string; readonly exists: boolean }[];
  readonly failure?: string;
}

export interface TenantRecord {
  readonly id: string;
  readonly createdAt: string;
  /** Its own storage account; absent: the deployment's account, under names of its own. */
  readonly storage?: TenantStorageAccount;
  /** Limits that differ from the deployment's defaults (by quota name). */
  readonly quotas?: Readonly<Record<string, number>>;
  /** Present from DELETE on: a tenant being deleted (or deleted) serves no request. */
  readonly deletion?: TenantDeletion;
}

export type StoredTenantRecord = TenantRecord & { readonly etag: string };

const PARTITION = 'tenant';

export class TableTenantRegistry {
  constructor(private readonly client: TableClient) {}

  /** Creates the table when missing (the hosts call it at start-up). */
  async ensureTable(): Promise<void> {
    await translate(`table "${this.client.tableName}"`, () => this.client.createTable());
  }

  async get(tenantId: string): Promise<StoredTenantRecord | undefined> {
    try {
      const entity = await this.client.getEntity<Record<string, unknown>>(PARTITION, tenantId);
      return { ...parseBody<TenantRecord>(entity), etag: entity.etag };
    } catch (error) {
      // A missing row, or a missing table (a deployment that never had tenants): no such tenant.
      if (statusOf(error) === 404) return undefined;
      throw toSignalboxError(error, `tenant "${tenantId}"`);
    }
  }

  async list(): Promise<StoredTenantRecord[]> {
    const records: StoredTenantRecord[] = [];
    try {
      for await (const entity of this.client.listEntities<Record<string, unknown>>({ queryOptions: { filter: `PartitionKey eq '${PARTITION}'` } })) {
        records.push({ ...parseBody<TenantRecord>(entity), etag: entity.etag });
      }
    } catch (error) {
      if (statusOf(error) === 404) return records;
      throw toSignalboxError(error, 'the tenant registry');
    }
    return records.sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Adds a record; ConflictError when the tenant is registered already. */
  async create(record: TenantRecord): Promise<StoredTenantRecord> {
    try {
      const response = await this.client.createEntity({ partitionKey: PARTITION, rowKey: record.id, ...toBody(record) });
      return { ...record, etag: response.etag ?? '' };
    } catch (error) {
      if (statusOf(error) === 409) throw new ConflictError(`tenant "${record.id}" exists`);
      throw toSignalboxError(error, `tenant "${record.id}"`);
    }
  }

  /** Replaces a record read before; PreconditionFailedError when someone changed it since. */
  async replace(record: TenantRecord, etag: string): Promise<StoredTenantRecord> {
    try {
      const response = await this.client.updateEntity({ partitionKey: PARTITION, rowKey: record.id, ...toBody(record) }, 'Replace', { etag });
      return { ...record, etag: response.etag ?? '' };
    } catch (error) {
      if (statusOf(error) === 412) throw new PreconditionFailedError(`tenant "${record.id}" was changed by someone else`);
      throw toSignalboxError(error, `tenant "${record.id}"`);
    }
  }

  async remove(tenantId: string): Promise<void> {
    try {
      await this.client.deleteEntity(PARTITION, tenantId);
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw toSignalboxError(error, `tenant "${tenantId}"`);
    }
  }
}
