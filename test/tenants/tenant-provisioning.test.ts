/**
 * Azure deletes tables and containers asynchronously: for some time after a tenant's deletion its table
 * names answer 409 TableBeingDeleted (ContainerBeingDeleted), so creating the same tenant id again meets
 * that. Provisioning waits it out, with a backoff on an injected clock, and answers a clear 409 when it
 * lasts longer than the bound; the tenant is then not registered. A registry in memory and a provisioning
 * port that fails as storage does (src/storage/errors.ts translates the services' codes).
 */
import { ConflictError, StorageError } from '../../src/engine/model';
import { problemResponse } from '../../src/host/problem';
import { createTenantAdministration, TENANT_PROVISION_RETRY_DELAYS_IN_MS } from '../../src/host/tenant-administration';
import type { TenantRegistry } from '../../src/host/tenants';
import { prefixedStorageNames, type StoredTenantRecord } from '../../src/storage';
import { StorageBeingDeletedError } from '../../src/storage/errors';
import { silentLogger } from '../../src/host/local/logger';

function memoryRegistry(): TenantRegistry {
  const records = new Map<string, StoredTenantRecord>();
  return {
    get: async (id) => records.get(id),
    list: async () => [...records.values()],
    create: async (record) => {
      if (records.has(record.id)) throw new ConflictError(`tenant "${record.id}" exists`);
      const stored = { ...record, etag: '1' };
      records.set(record.id, stored);
      return stored;
    },
    replace: async (record) => {
      const stored = { ...record, etag: '2' };
      records.set(record.id, stored);
      return stored;
    },
    remove: async (id) => void records.delete(id),
  };
}

/** Storage that is still deleting the tenant's old tables for the first `beingDeletedFor` calls. */
function provisioningPort(beingDeletedFor: number, failure: () => Error = () => new StorageBeingDeletedError('table "Tabc"', 409)) {
  const calls: string[] = [];
  return {
    calls,
    provisionStorage: async (storage: { readonly names: { readonly workflowsTable: string } }) => {
      calls.push(storage.names.workflowsTable);
      if (calls.length <= beingDeletedFor) throw failure();
    },
  };
}

function setUp(port: ReturnType<typeof provisioningPort>) {
  const registry = memoryRegistry();
  const waits: number[] = [];
  const administration = createTenantAdministration({
    registry,
    deployment: { connection: { kind: 'connectionString', connectionString: 'UseDevelopmentStorage=true' }, names: prefixedStorageNames('prov') },
    env: {},
    now: () => new Date('2026-11-26T10:00:00.000Z'),
    logger: silentLogger,
    provisionStorage: port.provisionStorage,
    sleep: async (ms) => void waits.push(ms),
  });
  return { registry, administration, waits };
}

describe('tenant provisioning while Azure still deletes the old storage', () => {
  it('waits with a growing backoff and creates the tenant once the names are free', async () => {
    const port = provisioningPort(3);
    const { administration, registry, waits } = setUp(port);
    const { created, record } = await administration.create('acme', {});
    expect(created).toBe(true);
    expect(record.id).toBe('acme');
    expect(port.calls).toHaveLength(4);
    expect(waits).toEqual(TENANT_PROVISION_RETRY_DELAYS_IN_MS.slice(0, 3));
    expect(waits[1]).toBeGreaterThan(waits[0]!);
    expect(await registry.get('acme')).toBeDefined();
  });

  it('gives up after the bound with a clear 409, and registers nothing', async () => {
    const port = provisioningPort(Number.POSITIVE_INFINITY);
    const { administration, registry, waits } = setUp(port);
    const error = await administration.create('acme', {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect(waits).toEqual([...TENANT_PROVISION_RETRY_DELAYS_IN_MS]);
    expect(port.calls).toHaveLength(TENANT_PROVISION_RETRY_DELAYS_IN_MS.length + 1);
    const answer = problemResponse(error);
    expect(answer.status).toBe(409);
    expect((answer.body as { detail: string }).detail).toMatch(/tenant "acme" is still being deleted.*again/);
    expect(await registry.get('acme')).toBeUndefined();
  });

  it('does not wait out other storage failures', async () => {
    const port = provisioningPort(1, () => new StorageError('Storage request for table "x" failed with 403 AuthorizationFailure', 403, false));
    const { administration, waits } = setUp(port);
    await expect(administration.create('acme', {})).rejects.toBeInstanceOf(StorageError);
    expect(waits).toEqual([]);
    expect(port.calls).toHaveLength(1);
  });
});
