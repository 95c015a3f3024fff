/**
 * @module A tenant's storage as a whole: its tables and lease container are created when the tenant is
 * (createAzureStorage), and removed together when it is deleted, then checked gone one by one. Removing a
 * table removes every row in it (instances, history, outbox, events, operations, timers, interest and
 * search rows); removing the containers removes every lease blob, leased or not, and every large
 * instance record's blob.
 */
import { createContainerClient, createTableClient, type StorageConnection } from './connection';
import { statusOf, toSignalboxError } from './errors';
import { contextContainerOf, type StorageNames } from './names';

/** One resource the check looked for after a removal. */
export interface ResourceCheck {
  /** `table:<name>` or `container:<name>`. */
  readonly resource: string;
  readonly exists: boolean;
}

/**
 * Every table of a tenant: each `...Table` name but the registry's (the default tenant's only). Derived from
 * the names, so a table added to StorageNames is removed and checked with the others without a change here.
 */
export function tenantTableNames(names: StorageNames): string[] {
  return Object.entries(names)
    .filter(([key, value]) => key.endsWith('Table') && key !== 'tenantsTable' && typeof value === 'string')
    .map(([, value]) => value as string);
}

/** Every container of a tenant: its leases' and its large instance records'. */
export function tenantContainerNames(names: StorageNames): string[] {
  return [names.leaseContainer, contextContainerOf(names)];
}

/** Deletes the tables and the containers (absent ones are fine), then answers what the check found of each. */
export async function removeTenantStorage(connection: StorageConnection, names: StorageNames): Promise<ResourceCheck[]> {
  const tables = tenantTableNames(names).map((name) => createTableClient(connection, name));
  await Promise.all([
    ...tables.map(async (table) => {
      try {
        await table.deleteTable();
      } catch (error) {
        if (statusOf(error) !== 404) throw toSignalboxError(error, `table "${table.tableName}"`);
      }
    }),
    ...tenantContainerNames(names).map((name) =>
      createContainerClient(connection, name)
        .deleteIfExists()
        .catch((error: unknown) => {
          throw toSignalboxError(error, `container "${name}"`);
        }),
    ),
  ]);
  return checkTenantStorage(connection, names);
}

/** Whether each of the tenant's tables and containers exists (a read of each, nothing listed across tenants). */
export async function checkTenantStorage(connection: StorageConnection, names: StorageNames): Promise<ResourceCheck[]> {
  const tableChecks = tenantTableNames(names).map(async (name): Promise<ResourceCheck> => {
    const table = createTableClient(connection, name);
    try {
      await table.listEntities().byPage({ maxPageSize: 1 }).next();
      return { resource: `table:${name}`, exists: true };
    } catch (error) {
      if (statusOf(error) === 404) return { resource: `table:${name}`, exists: false };
      throw toSignalboxError(error, `table "${name}"`);
    }
  });
  const containerChecks = tenantContainerNames(names).map((name) =>
    createContainerClient(connection, name)
      .exists()
      .then((exists): ResourceCheck => ({ resource: `container:${name}`, exists })),
  );
  return Promise.all([...tableChecks, ...containerChecks]);
}
