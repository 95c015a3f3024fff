/**
 * @module The Azure resources Signalbox uses in its storage account. infra/bicep creates the same names,
 * and tests give each run its own prefix so they never collide. Each tenant has names of its own
 * (`tenantStorageNames`): no table or container is shared between two tenants.
 */
import { createHash } from 'node:crypto';

export interface StorageNames {
  readonly workflowsTable: string;
  /** Instances and their history rows share a partition per instance (one atomic save). */
  readonly instancesTable: string;
  readonly interestsTable: string;
  readonly operationsTable: string;
  /** Armed timers by due time (the local server's scheduler). */
  readonly timersTable: string;
  /** Instances by business data: a partition per workflow (table-search-index.ts). */
  readonly searchTable: string;
  /** Flow control: concurrency slots, limit overrides and their audit, a partition per workflow (table-flow-store.ts). */
  readonly flowTable: string;
  readonly leaseContainer: string;
  /**
   * Blobs of instance records too large for a Table entity (instance-body-blobs.ts). Absent in names built
   * before large contexts: derived from the lease container's name (`contextContainerOf`).
   */
  readonly contextContainer?: string;
  /**
   * The tenant registry (one row per tenant), kept in the default tenant's storage only. Absent in names
   * built before tenants: derived from the workflows table's name (`tenantRegistryTable`).
   */
  readonly tenantsTable?: string;
}

export const defaultStorageNames: StorageNames = {
  workflowsTable: 'SignalboxWorkflows',
  instancesTable: 'SignalboxInstances',
  interestsTable: 'SignalboxInterests',
  operationsTable: 'SignalboxOperations',
  timersTable: 'SignalboxTimers',
  searchTable: 'SignalboxSearch',
  flowTable: 'SignalboxFlow',
  leaseContainer: 'signalbox-leases',
  contextContainer: 'signalbox-contexts',
  tenantsTable: 'SignalboxTenants',
};

/** Names with a prefix (letters and digits) for isolated test runs or tenants. */
export function prefixedStorageNames(prefix: string): StorageNames {
  if (!/^[A-Za-z][A-Za-z0-9]{0,30}$/.test(prefix)) throw new RangeError('prefix must be a letter followed by at most 30 letters or digits');
  return {
    workflowsTable: `${prefix}Workflows`,
    instancesTable: `${prefix}Instances`,
    interestsTable: `${prefix}Interests`,
    operationsTable: `${prefix}Operations`,
    timersTable: `${prefix}Timers`,
    searchTable: `${prefix}Search`,
    flowTable: `${prefix}Flow`,
    leaseContainer: `${prefix.toLowerCase()}-leases`,
    contextContainer: `${prefix.toLowerCase()}-contexts`,
    tenantsTable: `${prefix}Tenants`,
  };
}

/** The container of large instance records for `names`: its own, or the lease container's name with `-contexts` for `-leases`. */
export function contextContainerOf(names: StorageNames): string {
  return names.contextContainer ?? `${names.leaseContainer.replace(/-leases$/, '')}-contexts`;
}

/** The id of the tenant every deployment has: `/api/...` without a tenant is this one. */
export const DEFAULT_TENANT_ID = 'default';

/** Tenant ids: lowercase letters, digits and hyphens, 3-63 characters (a DNS label's alphabet). */
export const TENANT_ID_PATTERN = /^[a-z0-9-]{3,63}$/;

/** The registry table's name for `base` (the default tenant's names). */
export function tenantRegistryTable(base: StorageNames): string {
  return base.tenantsTable ?? `${base.workflowsTable.replace(/Workflows$/, '')}Tenants`;
}

/**
 * The names of a tenant's tables and its lease and context containers. The default tenant keeps `base` (today's names, or
 * SIGNALBOX_STORAGE_PREFIX's), so an existing deployment changes nothing. Any other tenant's names are
 * `T` and 24 hex digits of sha256(base workflows table, tenant id), then the usual suffixes: alphanumeric
 * tables of 32 characters at most and a lowercase container (Azure's rules), stable across restarts and
 * hosts, distinct per tenant (and per base, so test runs with their own prefix never share a tenant's
 * tables), and saying nothing of the tenant's id to whoever lists the account.
 */
export function tenantStorageNames(tenantId: string, base: StorageNames = defaultStorageNames): StorageNames {
  if (!TENANT_ID_PATTERN.test(tenantId)) throw new RangeError('a tenant id is 3-63 lowercase letters, digits or hyphens');
  if (tenantId === DEFAULT_TENANT_ID) return base;
  const digest = createHash('sha256').update(`${base.workflowsTable}\n${tenantId}`).digest('hex').slice(0, 24);
  const { tenantsTable: _registryOfTheDefaultTenantOnly, ...names } = prefixedStorageNames(`T${digest}`);
  return names;
}
