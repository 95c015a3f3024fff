/**
 * @module Tenants on both hosts: the registry of tenants (a table in the default tenant's storage), each
 * tenant's storage (tables and a lease container of its own, named by tenantStorageNames, in the
 * deployment's account or an account of its own), and a cache of whatever a host builds per tenant
 * (TenantCores: a HostCore on Azure, a HostCore with its runner and timer scheduler locally), built on
 * first use. The default tenant always exists and keeps today's names.
 */
import { DefaultAzureCredential } from '@azure/identity';
import { z } from 'zod';
import { ConflictError, delay, NotFoundError, ValidationError } from '../engine/model';
import { createAzureStorage } from '../storage/create-azure-storage';
import { expandDevelopmentStorage, type StorageConnection } from '../storage/connection';
import { DEFAULT_TENANT_ID, TENANT_ID_PATTERN, tenantStorageNames, type StorageNames } from '../storage/names';
import type { StoredTenantRecord, TableTenantRegistry, TenantRecord, TenantStorageAccount } from '../storage/table-tenant-registry';
import { removeTenantStorage } from '../storage/tenant-storage';
import { StorageBeingDeletedError } from '../storage/errors';
import type { Logger } from './operation-activity-service';
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

/**
 * What a host built for each tenant, built on first use and kept; a tenant that is not registered (or is
 * being deleted) has none. A failed build is tried again by the next use. A kept core's registry record is
 * read again once it is RECHECK_AFTER_IN_MS old: on Azure a tenant is deleted (or created again, with other
 * storage or quotas) through one worker, and every other worker must stop serving the old core too.
 */
export class TenantCores<Core> {
  static readonly RECHECK_AFTER_IN_MS = 30_000;
  private readonly cores = new Map<string, { readonly core: Promise<Core>; readonly record: TenantRecord; checkedAtInMs: number }>();

  constructor(
    private readonly registry: Pick<TenantRegistry, 'get' | 'list'>,
    private readonly build: (record: TenantRecord) => Promise<Core>,
    private readonly defaultCore: () => Promise<Core>,
    private readonly nowInMs: () => number = Date.now,
  ) {}

  /** The tenant's core; undefined for a tenant that does not exist or is being deleted. */
  async get(tenantId: string): Promise<Core | undefined> {
    if (tenantId === DEFAULT_TENANT_ID) return this.defaultCore();
    const cached = this.cores.get(tenantId);
    if (cached && this.nowInMs() - cached.checkedAtInMs < TenantCores.RECHECK_AFTER_IN_MS) return cached.core;
    if (!isTenantId(tenantId)) return undefined;
    const record = await this.registry.get(tenantId);
    if (!record || record.deletion) {
      if (this.cores.get(tenantId) === cached) this.cores.delete(tenantId);
      return undefined;
    }
    if (cached && sameServing(cached.record, record)) {
      cached.checkedAtInMs = this.nowInMs();
      return cached.core;
    }
    return this.start(record);
  }

  /** Builds the core of every registered tenant that has none yet (start-up, sweeps), and answers all, default first. */
  async all(): Promise<{ readonly tenantId: string; readonly core: Core }[]> {
    const records = (await this.registry.list()).filter((record) => !record.deletion && record.id !== DEFAULT_TENANT_ID);
    const cores = await Promise.all(records.map(async (record) => ({ tenantId: record.id, core: await (this.cores.get(record.id)?.core ?? this.start(record)) })));
    return [{ tenantId: DEFAULT_TENANT_ID, core: await this.defaultCore() }, ...cores];
  }

  /** The cores built so far (stopping a host), without the default tenant's. */
  async built(): Promise<Core[]> {
    const settled = await Promise.allSettled([...this.cores.values()].map((entry) => entry.core));
    return settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  }

  /** Forgets a tenant's core (its tenant is being deleted); answers it when one was built. */
  async forget(tenantId: string): Promise<Core | undefined> {
    const cached = this.cores.get(tenantId);
    this.cores.delete(tenantId);
    return cached?.core.catch(() => undefined);
  }

  private start(record: TenantRecord): Promise<Core> {
    const building = this.build(record);
    const entry = { core: building, record, checkedAtInMs: this.nowInMs() };
    this.cores.set(record.id, entry);
    building.catch(() => {
      if (this.cores.get(record.id) === entry) this.cores.delete(record.id);
    });
    return building;
  }
}

/** True when a core built from `built` still serves `current`: the same storage and the same quotas. */
function sameServing(built: TenantRecord, current: TenantRecord): boolean {
  return JSON.stringify([built.createdAt, built.storage ?? null, built.quotas ?? null]) === JSON.stringify([current.createdAt, current.storage ?? null, current.quotas ?? null]);
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

export interface TenantAdministrationOptions {
  readonly registry: TenantRegistry;
  readonly deployment: TenantStorage;
  /** The app settings a tenant's `storage.connectionSetting` is read from. */
  readonly env: Environment;
  readonly now: () => Date;
  readonly logger: Logger;
  /** Called before a tenant's storage is removed: the host stops and forgets what it built for it. */
  readonly onDeleting?: (tenantId: string) => Promise<void>;
  /** Creates a tenant's tables and container, "already exists" absorbed. @default createAzureStorage */
  readonly provisionStorage?: (storage: TenantStorage) => Promise<unknown>;
  /** Waits between provisioning attempts (tests pass a clock of their own). @default delay */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * The waits between attempts to provision a tenant whose names Azure is still deleting (a tenant id created
 * again right after its deletion): Azure keeps a deleted table's name for at least 40 s and a container's
 * for about 30 s, so the waits add up to a little over a minute, within an HTTP request's time on Azure (230 s).
 */
export const TENANT_PROVISION_RETRY_DELAYS_IN_MS: readonly number[] = [1_000, 2_000, 4_000, 8_000, 16_000, 16_000, 16_000];

export function createTenantAdministration({
  registry,
  deployment,
  env,
  now,
  logger,
  onDeleting,
  provisionStorage = (storage) => createAzureStorage(storage),
  sleep = (ms) => delay(ms),
}: TenantAdministrationOptions): TenantAdministration {
  const running = new Map<string, Promise<void>>();
  const defaultRecord: TenantRecord = { id: DEFAULT_TENANT_ID, createdAt: new Date(0).toISOString() };

  const provision = async (record: TenantRecord) => {
    const storage = tenantStorageOf(record.id, record.storage, deployment, env);
    // The same creation as a host's first start: tables and the lease container, "already exists" absorbed.
    for (let attempt = 0; ; attempt += 1) {
      try {
        await provisionStorage(storage);
        return;
      } catch (error) {
        if (!(error instanceof StorageBeingDeletedError)) throw error;
        const wait = TENANT_PROVISION_RETRY_DELAYS_IN_MS[attempt];
        if (wait === undefined) {
          // No cause: a conflict carrying a storage failure is answered with a generic detail (problem.ts), and this one must say what to do.
          logger.error('tenant storage still being deleted; provisioning gave up', { tenantId: record.id, error: String(error) });
          throw new ConflictError(`The storage of an earlier tenant "${record.id}" is still being deleted by Azure; create the tenant again in a minute`);
        }
        logger.warn('tenant storage is still being deleted; provisioning waits', { tenantId: record.id, attempt: attempt + 1, waitInMs: wait });
        await sleep(wait);
      }
    }
  };

  const remove = (record: StoredTenantRecord): Promise<void> => {
    const existing = running.get(record.id);
    if (existing) return existing;
    const removal = (async () => {
      let current = record;
      try {
        await onDeleting?.(record.id);
        const storage = tenantStorageOf(record.id, record.storage, deployment, env);
        const check = await removeTenantStorage(storage.connection, storage.names);
        const left = check.filter((resource) => resource.exists);
        if (left.length > 0) throw new Error(`left after removal: ${left.map((resource) => resource.resource).join(', ')}`);
        // Proved empty: the record goes too, so the id may be created again.
        await registry.remove(record.id);
        logger.info('tenant deleted', { tenantId: record.id, checked: check.length });
      } catch (error) {
        logger.error('tenant deletion failed; it is resumed by the next sweep', { tenantId: record.id, error: String(error) });
        current = (await registry.get(record.id)) ?? current;
        if (current.deletion) {
          await registry
            .replace({ ...withoutEtag(current), deletion: { ...current.deletion, status: 'failed', finishedAt: now().toISOString(), failure: String(error) } }, current.etag)
            .catch(() => undefined);
        }
      } finally {
        running.delete(record.id);
      }
    })();
    running.set(record.id, removal);
    return removal;
  };

  return {
    async list() {
      const records = await registry.list();
      return [defaultRecord, ...records.filter((record) => record.id !== DEFAULT_TENANT_ID).map(withoutEtag)];
    },
    async get(tenantId) {
      if (tenantId === DEFAULT_TENANT_ID) return defaultRecord;
      const record = await registry.get(tenantId);
      return record && withoutEtag(record);
    },
    async create(tenantId, input) {
      if (tenantId === DEFAULT_TENANT_ID) return { record: defaultRecord, created: false };
      const existing = await registry.get(tenantId);
      if (existing?.deletion) throw new ConflictError(`tenant "${tenantId}" is being deleted; create it again when the deletion has finished`);
      if (existing) {
        // Idempotent: provisioning again is harmless and heals a creation a crash interrupted.
        await provision(existing);
        return { record: withoutEtag(existing), created: false };
      }
      const setting = input.storage && 'connectionSetting' in input.storage ? input.storage.connectionSetting : undefined;
      if (setting && !readTenantStorageSetting(setting, env)) {
        throw new ValidationError(`No app setting ${setting} is set on this deployment`, [
          { path: 'storage.connectionSetting', message: `set the app setting ${setting} to the connection string first` },
        ]);
      }
      const record: TenantRecord = { id: tenantId, createdAt: now().toISOString(), ...(input.storage ? { storage: input.storage } : {}), ...(input.quotas ? { quotas: input.quotas } : {}) };
      // Storage first, then the record: a tenant is never registered without its tables.
      await provision(record);
      try {
        return { record: withoutEtag(await registry.create(record)), created: true };
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        const winner = await registry.get(tenantId);
        if (!winner) throw error;
        return { record: withoutEtag(winner), created: false };
      }
    },
    async delete(tenantId) {
      if (tenantId === DEFAULT_TENANT_ID) throw new ValidationError('The default tenant cannot be deleted', [{ path: 'tenantId', message: 'the default tenant cannot be deleted' }]);
      const record = await registry.get(tenantId);
      if (!record) throw new NotFoundError(`tenant "${tenantId}" was not found`);
      const marked =
        record.deletion && record.deletion.status !== 'failed'
          ? record
          : await registry.replace({ ...withoutEtag(record), deletion: { status: 'running', requestedAt: now().toISOString() } }, record.etag);
      void remove(marked);
      return withoutEtag(marked);
    },
    async resumeDeletions() {
      const pending = (await registry.list()).filter((record) => record.deletion);
      await Promise.all(pending.map((record) => remove(record)));
      return pending.length;
    },
    async settle() {
      await Promise.all(running.values());
    },
  };
}

function withoutEtag(record: StoredTenantRecord | TenantRecord): TenantRecord {
  const { etag: _etag, ...rest } = record as StoredTenantRecord;
  return rest;
}
