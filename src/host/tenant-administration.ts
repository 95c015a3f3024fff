/**
 * @module The admin API's tenant service (TenantAdministration): registering a tenant after provisioning its
 * storage (waiting out names Azure is still deleting), and deleting one: marked first (it serves nothing from
 * then on), its storage removed and proved empty, then its record, resumed by the next sweep after a crash.
 */
import { ConflictError, delay, NotFoundError, ValidationError } from '../engine/model';
import { createAzureStorage } from '../storage/create-azure-storage';
import { DEFAULT_TENANT_ID } from '../storage/names';
import type { StoredTenantRecord, TenantRecord } from '../storage/table-tenant-registry';
import { removeTenantStorage } from '../storage/tenant-storage';
import { StorageBeingDeletedError } from '../storage/errors';
import type { Logger } from './operation-activity-service';
import { readTenantStorageSetting, type Environment } from './settings';
import { tenantStorageOf, type TenantAdministration, type TenantRegistry, type TenantStorage } from './tenants';

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
