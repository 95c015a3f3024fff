/**
 * TenantCores keeps each tenant's core, and reads the tenant's registry record again once the kept one is
 * RECHECK_AFTER_IN_MS old: a tenant deleted (or created again with other storage) through another worker
 * is served no more by this one. A registry in memory, a clock by hand.
 */
import { TenantCores } from '../../src/host/tenant-cores';
import type { StoredTenantRecord } from '../../src/storage';

function setUp() {
  const records = new Map<string, StoredTenantRecord>();
  let registryReads = 0;
  const registry = {
    get: async (id: string) => {
      registryReads += 1;
      return records.get(id);
    },
    list: async () => [...records.values()],
  };
  let now = 0;
  let built = 0;
  const cores = new TenantCores<{ readonly tenantId: string; readonly build: number }>(
    registry as never,
    async (record) => ({ tenantId: record.id, build: ++built }),
    async () => ({ tenantId: 'default', build: 0 }),
    () => now,
  );
  const put = (id: string, extra: Partial<StoredTenantRecord> = {}) => records.set(id, { id, createdAt: '2026-11-26T10:00:00.000Z', etag: 'e', ...extra });
  return { records, cores, put, reads: () => registryReads, advance: (ms: number) => (now += ms) };
}

describe('TenantCores', () => {
  it('serves a kept core without reading the registry until the record is due for a re-check', async () => {
    const { cores, put, reads, advance } = setUp();
    put('acme');
    const first = await cores.get('acme');
    expect(await cores.get('acme')).toBe(first);
    expect(reads()).toBe(1);
    advance(TenantCores.RECHECK_AFTER_IN_MS);
    expect(await cores.get('acme')).toBe(first);
    expect(reads()).toBe(2);
  });

  it('stops serving a tenant another worker deleted once its record is re-checked', async () => {
    const { cores, put, records, advance } = setUp();
    put('acme');
    expect(await cores.get('acme')).toBeDefined();
    records.delete('acme');
    advance(TenantCores.RECHECK_AFTER_IN_MS);
    expect(await cores.get('acme')).toBeUndefined();
    put('acme', { deletion: { status: 'running', startedAt: '2026-11-26T10:01:00.000Z' } as never });
    expect(await cores.get('acme')).toBeUndefined();
  });

  it('builds a new core for a tenant created again with other storage or quotas', async () => {
    const { cores, put, advance } = setUp();
    put('acme');
    const first = await cores.get('acme');
    put('acme', { createdAt: '2026-11-26T11:00:00.000Z', quotas: { triggersPerSecond: 1 } });
    advance(TenantCores.RECHECK_AFTER_IN_MS);
    const second = await cores.get('acme');
    expect(second).not.toBe(first);
    expect(second?.build).toBe(2);
  });
});
