import { defaultStorageNames, prefixedStorageNames, tenantRegistryTable, tenantStorageNames, type StorageNames } from '../../src/storage/names';

const tableRule = /^[A-Za-z][A-Za-z0-9]{2,62}$/;
const containerRule = /^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/;

function allNames(names: StorageNames): string[] {
  return [names.workflowsTable, names.instancesTable, names.interestsTable, names.operationsTable, names.timersTable, names.searchTable, names.leaseContainer];
}

describe('tenant storage names', () => {
  it("keeps today's names for the default tenant, with or without a prefix", () => {
    expect(tenantStorageNames('default')).toBe(defaultStorageNames);
    const prefixed = prefixedStorageNames('Contoso');
    expect(tenantStorageNames('default', prefixed)).toBe(prefixed);
    expect(defaultStorageNames.workflowsTable).toBe('SignalboxWorkflows');
  });

  it("derives another tenant's names from a hash: stable, within Azure's rules, and shared with no other tenant", () => {
    const ids = ['acme', 'acme-2', 'a1b', 'x'.repeat(63), 'default-2'];
    const seen = new Set(allNames(defaultStorageNames));
    for (const id of ids) {
      const names = tenantStorageNames(id);
      expect(tenantStorageNames(id)).toEqual(names);
      for (const table of allNames(names).slice(0, 6)) expect(table).toMatch(tableRule);
      expect(names.leaseContainer).toMatch(containerRule);
      expect(names.tenantsTable).toBeUndefined();
      for (const name of allNames(names)) {
        expect(seen.has(name)).toBe(false);
        seen.add(name);
      }
      // Nothing in the names says which tenant they hold.
      expect(JSON.stringify(names)).not.toContain(id);
    }
  });

  it('derives different names under different bases (each test run or deployment prefix has its own)', () => {
    expect(tenantStorageNames('acme', prefixedStorageNames('RunA')).workflowsTable).not.toBe(tenantStorageNames('acme', prefixedStorageNames('RunB')).workflowsTable);
  });

  it('refuses ids outside 3-63 lowercase letters, digits and hyphens', () => {
    for (const id of ['ab', 'Acme', 'a_b', 'a'.repeat(64), '', 'a.b']) expect(() => tenantStorageNames(id)).toThrow(RangeError);
  });

  it("keeps the registry in the default tenant's storage: SignalboxTenants, or the prefix's", () => {
    expect(tenantRegistryTable(defaultStorageNames)).toBe('SignalboxTenants');
    expect(tenantRegistryTable(prefixedStorageNames('Run1'))).toBe('Run1Tenants');
    const { tenantsTable: _left, ...older } = prefixedStorageNames('Run1');
    expect(tenantRegistryTable(older)).toBe('Run1Tenants');
  });
});
