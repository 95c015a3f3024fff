/**
 * Tenants (docs/guides/tenants.md) crossed with every kind of follow-up work: two tenants with the same
 * workflow and instance ids on one local server on Azurite; each row does its work in tenant A only and
 * checks that it happened there, and that tenant B's storage (every row of every table, every blob of its
 * lease container) is bit-for-bit what it was before. The host runs each tenant's runner and timer
 * scheduler on its own tables, so follow-up work has no path to another tenant's storage.
 */
import { TableClient } from '@azure/data-tables';
import { BlobServiceClient } from '@azure/storage-blob';
import { RetryLaterError, type ExternalRequest, type ExternalResponse, type ExternalServiceClient } from '../../src/engine';
import { expandDevelopmentStorage } from '../../src/storage/connection';
import { tenantStorageNames, type StorageNames } from '../../src/storage/names';
import type { HttpResult } from '../host/http-client';
import { startTestHost, type TestHost } from '../support/local-host';
import { testConnectionString, uniquePrefix } from '../support/storage';

/** Asks for a later attempt (a pending retry, a minute on) every time: the retry waits in its tenant's storage. */
class LaterService implements ExternalServiceClient {
  async send(request: ExternalRequest): Promise<ExternalResponse> {
    const attempt = request.retry?.firstAttempt ?? 1;
    throw new RetryLaterError({ type: 'http:5xx', message: `the external service ${request.url} answered HTTP 503`, status: 503 }, attempt + 1, 60_000);
  }
}

function flow(version: number) {
  return {
    id: 'flow',
    displayName: `Flow v${version}`,
    initialStateId: 'open',
    subscriptions: [{ id: 'hook', url: 'https://hook.example/' }],
    states: {
      open: {
        transitions: [
          {
            id: 'go',
            targetStateId: 'working',
            conditions: [{ type: 'triggerName', name: 'Go' }],
            actions: [
              { type: 'raiseTrigger', trigger: { name: 'Ping', subjects: ['{{instance.id}}'] } },
              { type: 'startInstance', workflowId: 'parcel', instanceId: '{{instance.id}}-child' },
            ],
          },
          { id: 'wait', targetStateId: 'sleeping', conditions: [{ type: 'triggerName', name: 'Wait' }] },
          {
            id: 'pay',
            targetStateId: 'paid',
            conditions: [{ type: 'triggerName', name: 'Pay' }],
            actions: [{ type: 'invokeExternalService', url: 'https://pay.example/charge', retry: { attempts: 3, initialDelay: 'PT1M' } }],
          },
        ],
      },
      working: { transitions: [{ id: 'pinged', targetStateId: 'pinged', conditions: [{ type: 'triggerName', name: 'Ping' }] }] },
      sleeping: { transitions: [{ id: 'wake', targetStateId: 'woken', timer: { after: 'PT1S' } }] },
      pinged: {},
      woken: {},
      paid: {},
    },
  };
}
/** `Update` debounced: a burst is applied once, its latest trigger after the period. */
const deb = {
  id: 'deb',
  displayName: 'Debounced',
  initialStateId: 'open',
  flow: { debounce: [{ trigger: 'Update', periodMs: 300 }] },
  states: {
    open: {
      transitions: [
        {
          id: 'update',
          targetStateId: 'open',
          conditions: [{ type: 'triggerName', name: 'Update' }],
          actions: [{ type: 'setContext', expressions: { applied: '($exists(context.applied) ? context.applied : 0) + 1' } }],
        },
      ],
    },
  },
};
/** At most one instance per customer in `picking`: the next waits, and is re-offered when the first leaves. */
const cap = {
  id: 'cap',
  displayName: 'Capacity',
  initialStateId: 'open',
  states: {
    open: { transitions: [{ id: 'pick', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Pick' }] }] },
    picking: { capacity: { key: 'customer:{{context.customer}}', limit: 1 }, transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }] },
    done: {},
  },
};
const parcel = { id: 'parcel', displayName: 'Parcel', initialStateId: 'packed', states: { packed: {} } };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let test: TestHost;
const tenantA = `sa-${uniquePrefix('t').toLowerCase()}`;
const tenantB = `sb-${uniquePrefix('t').toLowerCase()}`;
const a = (path: string) => `/api/tenants/${tenantA}${path}`;
const b = (path: string) => `/api/tenants/${tenantB}${path}`;

async function call(method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return test.api.request(method, path, json === undefined ? { headers } : { json, headers });
}

async function pollUntil(path: string, done: (result: HttpResult) => boolean, maxPolls = 600): Promise<HttpResult> {
  let result = await call('GET', path);
  for (let poll = 0; poll < maxPolls && !done(result); poll += 1) {
    await sleep(50);
    result = await call('GET', path);
  }
  return result;
}

/** Every row of tenant B's tables and every blob of its container. */
async function dumpOfB(): Promise<unknown> {
  const names: StorageNames = tenantStorageNames(tenantB, test.storageNames);
  const connection = expandDevelopmentStorage(testConnectionString());
  const tables: Record<string, unknown[]> = {};
  for (const table of [names.workflowsTable, names.instancesTable, names.interestsTable, names.operationsTable, names.timersTable, names.searchTable]) {
    const rows: unknown[] = [];
    // B's daily cost totals (partition `~cost`) are B's own operations' figures, flushed on a timer at any time after
    // them (src/host/cost/daily-costs.ts): under load, B's set-up lands there after the first dump. Everything else is compared.
    for await (const entity of TableClient.fromConnectionString(connection, table, { allowInsecureConnection: true }).listEntities()) if (entity.partitionKey !== '~cost') rows.push(entity);
    tables[table] = rows;
  }
  const blobs: unknown[] = [];
  for await (const blob of BlobServiceClient.fromConnectionString(connection).getContainerClient(names.leaseContainer).listBlobsFlat())
    blobs.push({ name: blob.name, etag: blob.properties.etag, leaseState: blob.properties.leaseState });
  return { tables, blobs };
}

/** Creates `instanceId` of flow in both tenants, then answers B's dump (its instance's leases settled). */
async function inBothThenDumpB(instanceId: string): Promise<unknown> {
  for (const tenant of [a, b]) expect((await call('POST', tenant('/instances'), { workflowId: 'flow', instanceId })).status).toBe(201);
  // B's lease of it released before the dump (releases may run in the background).
  await pollUntil(b(`/instances/${instanceId}`), (result) => result.status === 200);
  await sleep(200);
  return dumpOfB();
}

async function stateIn(tenant: (path: string) => string, instanceId: string, stateId: string): Promise<HttpResult> {
  return pollUntil(tenant(`/instances/${instanceId}`), (result) => result.body?.stateId === stateId);
}

beforeAll(async () => {
  test = await startTestHost('seamtenants', { engineOptions: { http: new LaterService() } });
  for (const tenant of [tenantA, tenantB]) expect((await call('PUT', `/api/tenants/${tenant}`, {})).status).toBe(201);
  for (const tenant of [a, b]) {
    expect((await call('PUT', tenant('/workflows/flow'), flow(1))).status).toBe(201);
    expect((await call('PUT', tenant('/workflows/parcel'), parcel)).status).toBe(201);
    expect((await call('PUT', tenant('/workflows/deb'), deb)).status).toBe(201);
    expect((await call('PUT', tenant('/workflows/cap'), cap)).status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await test?.host.stop();
});

describe('tenants', () => {
  it('tenants × raised triggers: a trigger raised in A moves A’s instance; B’s instance of the same id and B’s storage are unchanged', async () => {
    const before = await inBothThenDumpB('r1');
    expect((await call('POST', a('/triggers'), { id: 'go-r1', name: 'Go', subjects: ['r1'] })).status).toBe(202);
    expect((await stateIn(a, 'r1', 'pinged')).body.stateId).toBe('pinged');
    expect(await dumpOfB()).toEqual(before);
  }, 60_000);

  it('tenants × children: a child starts in its parent’s tenant, and nothing of it reaches B', async () => {
    const before = await inBothThenDumpB('c1');
    expect((await call('POST', a('/triggers'), { id: 'go-c1', name: 'Go', subjects: ['c1'] })).status).toBe(202);
    expect((await pollUntil(a('/instances/c1-child'), (result) => result.status === 200)).status).toBe(200);
    expect((await call('GET', b('/instances/c1-child'))).status).toBe(404);
    expect(await dumpOfB()).toEqual(before);
  }, 60_000);

  it('tenants × timers: a timer armed in A fires in A, from A’s due-timer rows only', async () => {
    const before = await inBothThenDumpB('t1');
    expect((await call('POST', a('/triggers'), { id: 'wait-t1', name: 'Wait', subjects: ['t1'] })).status).toBe(202);
    expect((await stateIn(a, 't1', 'woken')).body.stateId).toBe('woken');
    expect(await dumpOfB()).toEqual(before);
  }, 60_000);

  it('tenants × events: lifecycle events are recorded on A’s instance, none on B’s', async () => {
    const before = await inBothThenDumpB('e1');
    expect((await call('POST', a('/triggers'), { id: 'go-e1', name: 'Go', subjects: ['e1'] })).status).toBe(202);
    await stateIn(a, 'e1', 'pinged');
    const eventsOfA = await call('GET', a('/instances/e1/events'));
    expect(eventsOfA.body.items.length).toBeGreaterThan(1);
    expect(await dumpOfB()).toEqual(before);
  }, 60_000);

  it('tenants × pending retries: a retry waits in A’s storage (its due-timer row) and none in B’s', async () => {
    const before = await inBothThenDumpB('p1');
    expect((await call('POST', a('/triggers'), { id: 'pay-p1', name: 'Pay', subjects: ['p1'] })).status).toBe(202);
    const instance = await pollUntil(a('/instances/p1'), (result) => result.body?.pendingRetry !== undefined);
    expect(instance.body.pendingRetry).toMatchObject({ triggerId: 'pay-p1', attempt: 2 });
    // Its due-timer row is in A's timers table.
    const timersOfA = TableClient.fromConnectionString(expandDevelopmentStorage(testConnectionString()), tenantStorageNames(tenantA, test.storageNames).timersTable, { allowInsecureConnection: true });
    const rows: Record<string, unknown>[] = [];
    for await (const entity of timersOfA.listEntities<Record<string, unknown>>()) rows.push(entity);
    expect(rows.filter((row) => row.instanceId === 'p1' && row.retryTriggerId === 'pay-p1')).toHaveLength(1);
    expect(await dumpOfB()).toEqual(before);
  }, 60_000);

  it('tenants × migrations: migrating A’s workflow moves A’s instances only; B’s stay on their version', async () => {
    const before = await inBothThenDumpB('m1');
    expect((await call('PUT', a('/workflows/flow'), flow(2), { 'if-match': '*' })).status).toBe(200);
    const migration = await call('POST', a('/workflows/flow/migrations'), { fromVersion: 1, toVersion: 2 });
    expect(migration.status).toBe(202);
    expect((await pollUntil(a('/instances/m1'), (result) => result.body?.workflowVersion === 2)).body.workflowVersion).toBe(2);
    expect(await dumpOfB()).toEqual(before);
  }, 60_000);

  it('tenants × bulk actions: a bulk cancel in A cancels A’s instances only', async () => {
    const before = await inBothThenDumpB('k1');
    const bulk = await call('POST', a('/instances/bulk'), { action: 'cancel', filter: { workflowId: 'flow', stateId: 'open' } });
    expect(bulk.status).toBe(202);
    expect((await pollUntil(a('/instances/k1'), (result) => result.body?.status === 'cancelled')).body.status).toBe('cancelled');
    expect(await dumpOfB()).toEqual(before);
  }, 60_000);

  it('tenants × bulk actions (retry): a retry in A applies A’s faulted trigger again in A only; B’s instance faulted by a trigger of the same id, and B’s storage, are unchanged', async () => {
    const broken = {
      id: 'brk',
      displayName: 'Broken',
      initialStateId: 'open',
      states: {
        open: { transitions: [{ id: 'break', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Break' }], actions: [{ type: 'setContext', expressions: { x: '$error("down")' } }] }] },
        done: {},
      },
    };
    for (const tenant of [a, b]) {
      expect((await call('PUT', tenant('/workflows/brk'), broken)).status).toBe(201);
      expect((await call('POST', tenant('/instances'), { workflowId: 'brk', instanceId: 'f1' })).status).toBe(201);
      expect((await call('POST', tenant('/triggers'), { id: 'break-f1', name: 'Break', subjects: ['f1'] }, { prefer: 'wait=30' })).status).toBe(200);
    }
    await sleep(200);
    const before = await dumpOfB();
    // Still failing (the expression is the definition's): A's retry faults A's instance again, in A.
    const retried = await call('POST', a('/instances/f1/retry'), undefined, { prefer: 'wait=30' });
    expect(retried.status).toBe(200);
    expect(retried.body.instances).toMatchObject([{ instanceId: 'f1', outcome: 'faulted' }]);
    expect((await call('GET', a('/instances/f1/history'))).body.items.map((entry: { event: string }) => entry.event)).toEqual(['created', 'faulted', 'faulted']);
    expect((await call('GET', b('/instances/f1/history'))).body.items.map((entry: { event: string }) => entry.event)).toEqual(['created', 'faulted']);
    expect(await dumpOfB()).toEqual(before);
  }, 60_000);

  it('tenants × debounced triggers: a burst held back on A’s instance is applied in A, once; B is untouched', async () => {
    for (const tenant of [a, b]) expect((await call('POST', tenant('/instances'), { workflowId: 'deb', instanceId: 'q1' })).status).toBe(201);
    await sleep(200);
    const before = await dumpOfB();
    for (const id of ['u1', 'u2']) expect((await call('POST', a('/triggers'), { id, name: 'Update', subjects: ['q1'] })).status).toBe(202);
    expect((await pollUntil(a('/instances/q1'), (result) => result.body?.context?.applied === 1)).body.context.applied).toBe(1);
    expect(await dumpOfB()).toEqual(before);
  }, 60_000);

  it('tenants × capacity re-offers: a waiter re-offered in A enters in A, once; B’s instances of the same ids, its key and its storage are untouched', async () => {
    for (const tenant of [a, b]) for (const id of ['w1', 'w2']) expect((await call('POST', tenant('/instances'), { workflowId: 'cap', instanceId: id, context: { customer: '42' } })).status).toBe(201);
    expect((await call('POST', b('/triggers'), { id: 'pick-w2-b', name: 'Pick', subjects: ['w2'] })).status).toBe(202);
    expect((await stateIn(b, 'w2', 'picking')).body.stateId).toBe('picking');
    expect((await call('POST', a('/triggers'), { id: 'pick-w1', name: 'Pick', subjects: ['w1'] })).status).toBe(202);
    expect((await stateIn(a, 'w1', 'picking')).body.stateId).toBe('picking');
    expect((await call('POST', a('/triggers'), { id: 'pick-w2', name: 'Pick', subjects: ['w2'] })).status).toBe(202);
    expect((await pollUntil(a('/flow/cap/keys/customer%3A42'), (result) => result.body?.capacity?.[0]?.queued?.length === 1)).body.capacity[0].queued).toHaveLength(1);
    await sleep(200);
    const before = await dumpOfB();
    const keyOfB = (await call('GET', b('/flow/cap/keys/customer%3A42'))).body;
    expect((await call('POST', a('/triggers'), { id: 'done-w1', name: 'Done', subjects: ['w1'] })).status).toBe(202);
    expect((await stateIn(a, 'w2', 'picking')).body.stateId).toBe('picking');
    expect((await call('GET', a('/instances/w2/history'))).body.items.filter((entry: { triggerId?: string }) => entry.triggerId === 'pick-w2')).toHaveLength(1);
    expect((await call('GET', b('/instances/w1'))).body.stateId).toBe('open');
    expect((await call('GET', b('/flow/cap/keys/customer%3A42'))).body).toEqual(keyOfB);
    expect(await dumpOfB()).toEqual(before);
  }, 60_000);

  it('tenants × deletion and re-creation: deleting and creating again A’s instance leaves B’s of the same id as it was', async () => {
    const before = await inBothThenDumpB('d1');
    expect((await call('DELETE', a('/instances/d1?force=true'))).status).toBeLessThan(300);
    expect((await pollUntil(a('/instances/d1'), (result) => result.status === 404)).status).toBe(404);
    expect((await call('POST', a('/instances'), { workflowId: 'flow', instanceId: 'd1' })).status).toBe(201);
    expect((await call('GET', b('/instances/d1'))).body.stateId).toBe('open');
    expect(await dumpOfB()).toEqual(before);
  }, 60_000);
});
