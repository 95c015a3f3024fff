/**
 * @module The Azure resources Signalbox uses in its storage account. infra/bicep creates the same names,
 * and tests give each run its own prefix so they never collide.
 */
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
  };
}
