/**
 * @module A cache of whatever a host builds per tenant (TenantCores: a HostCore on Azure, a HostCore with its
 * runner and timer scheduler locally), built on first use from the tenant's registry record, and built again
 * when the record says the tenant's storage or quotas changed.
 */
import { DEFAULT_TENANT_ID, isTenantId, type TenantRecord, type TenantRegistry } from './tenants';

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
