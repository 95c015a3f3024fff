/**
 * What the tenant tests share (test/tenants): the storage of one tenant read back whole, for before/after
 * comparisons, the two workflows both tenants run under the same ids, and polling an API path.
 */
import { TableClient } from '@azure/data-tables';
import { BlobServiceClient } from '@azure/storage-blob';
import { expandDevelopmentStorage } from '../../src/storage/connection';
import type { StorageNames } from '../../src/storage/names';
import { tenantContainerNames, tenantTableNames } from '../../src/storage/tenant-storage';
import type { HttpResult, httpClient } from '../host/http-client';
import { testConnectionString } from './storage';

/**
 * Every row of every table of a tenant (each table StorageNames names, as the deletion removes them) and
 * every blob of its containers (leases and large contexts: name, properties, lease state). A table that is
 * missing is recorded as such.
 */
export async function dumpTenantStorage(names: StorageNames): Promise<{ readonly tables: Record<string, unknown[]>; readonly blobs: unknown[] }> {
  const connection = expandDevelopmentStorage(testConnectionString());
  const tables: Record<string, unknown[]> = {};
  for (const table of tenantTableNames(names)) {
    const client = TableClient.fromConnectionString(connection, table, { allowInsecureConnection: true });
    const rows: unknown[] = [];
    try {
      for await (const entity of client.listEntities()) rows.push(entity);
    } catch (error) {
      rows.push({ missing: String((error as { statusCode?: number }).statusCode) });
    }
    tables[table] = rows;
  }
  const blobs: unknown[] = [];
  for (const containerName of tenantContainerNames(names)) {
    const container = BlobServiceClient.fromConnectionString(connection).getContainerClient(containerName);
    if (!(await container.exists())) {
      blobs.push({ container: containerName, missing: true });
      continue;
    }
    for await (const blob of container.listBlobsFlat({ includeMetadata: true }))
      blobs.push({ container: containerName, name: blob.name, etag: blob.properties.etag, lastModified: blob.properties.lastModified, leaseState: blob.properties.leaseState });
  }
  return { tables, blobs };
}

/**
 * The order workflow both tenants run: Go raises Ping at itself and starts a parcel child, Ping arms a
 * one-second timer, Stop ends it. `label` goes into the display name (a tenant's marker value).
 */
export function tenantOrderWorkflow(label = '') {
  return {
    id: 'order',
    displayName: label ? `Order ${label}` : 'Order',
    initialStateId: 'open',
    states: {
      open: {
        transitions: [
          {
            id: 'go',
            targetStateId: 'working',
            conditions: [{ type: 'triggerName', name: 'Go' }],
            actions: [
              { type: 'raiseTrigger', trigger: { name: 'Ping', subjects: ['{{instance.id}}'] } },
              { type: 'startInstance', workflowId: 'parcel', instanceId: '{{instance.id}}-parcel' },
            ],
          },
          { id: 'stop', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Stop' }] },
        ],
      },
      working: { transitions: [{ id: 'pinged', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'Ping' }] }] },
      waiting: { transitions: [{ id: 'later', targetStateId: 'done', timer: { after: 'PT1S' } }] },
      done: {},
    },
  };
}

/** The order's child workflow: one state. */
export function tenantParcelWorkflow(label = '') {
  return { id: 'parcel', displayName: label ? `Parcel ${label}` : 'Parcel', initialStateId: 'packed', states: { packed: {} } };
}

/** GETs `path` until `done` says so, every 50 ms, at most `maxPolls` times (30 s by default); answers the last result. */
export async function pollUntil(api: ReturnType<typeof httpClient>, path: string, done: (result: HttpResult) => boolean, maxPolls = 600): Promise<HttpResult> {
  let result = await api.request('GET', path);
  for (let poll = 0; poll < maxPolls && !done(result); poll += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    result = await api.request('GET', path);
  }
  return result;
}
