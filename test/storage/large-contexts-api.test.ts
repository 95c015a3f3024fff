/**
 * A 10 MB context end to end (issue 41 section 2), over real HTTP on the local server and Azurite: it grows
 * by a transition (a creation's body stays under the 1 MiB request limit), lives in a blob while its row
 * references it, survives further transitions and a migration, and its blob goes with a deletion and with
 * the retention purge. Only the current version's blob exists after each save.
 */
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { TableClient } from '@azure/data-tables';
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { purgeFinishedInstances } from '../../src/host/retention';
import { maxCreateBodyBytes, maxInstanceBytes } from '../../src/host/settings';
import { contextContainerOf, prefixedStorageNames, type StorageNames } from '../../src/storage/names';
import { encodeKey } from '../../src/storage/keys';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from '../host/http-client';

/** Characters per key: as many as one expression may yield (1,000,000 characters of JSON, quotes included). */
const KEY_LENGTH = 999_998;
/** Ten such keys: a context of 10 MB. */
const GROW_EXPRESSIONS = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`blob${index}`, `$pad("", ${KEY_LENGTH}, "${String.fromCharCode(97 + index)}")`]));

const v1 = {
  id: 'large',
  displayName: 'Large',
  initialStateId: 'open',
  states: {
    open: { transitions: [{ id: 'grow', targetStateId: 'grown', conditions: [{ type: 'triggerName', name: 'Grow' }], actions: [{ type: 'setContext', expressions: GROW_EXPRESSIONS }] }] },
    grown: {
      transitions: [
        {
          id: 'note',
          targetStateId: 'noted',
          conditions: [{ type: 'triggerName', name: 'Note' }],
          actions: [
            {
              type: 'setContext',
              // Over the 10 MB context: a plain path, an in-process function over 1 MB of it, and one that runs in the worker pool (`$join`).
              expressions: { note: 'trigger.parameters.note', length: '$length(context.blob9)', joined: '$join([context.owner, trigger.parameters.note, $substring(context.blob0, 0, 3)], "-")' },
            },
          ],
        },
      ],
    },
    noted: { transitions: [{ id: 'finish', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Finish' }] }] },
    done: {},
  },
};
// Version 2: `noted` becomes `checked`.
const v2 = {
  ...v1,
  states: {
    open: v1.states.open,
    grown: { transitions: [{ ...v1.states.grown.transitions[0]!, targetStateId: 'checked' }] },
    checked: { transitions: [{ id: 'finish', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Finish' }] }] },
    done: {},
  },
};

let host: LocalHost;
let api: ReturnType<typeof httpClient>;
let names: StorageNames;
let contexts: ContainerClient;
let instancesTable: TableClient;

beforeAll(async () => {
  names = prefixedStorageNames(uniquePrefix('large'));
  host = await startLocalHost({ env: { SIGNALBOX_STORAGE: testConnectionString() }, port: 0, storageNames: names, logger: silentLogger });
  api = httpClient(host.url);
  contexts = BlobServiceClient.fromConnectionString(testConnectionString()).getContainerClient(contextContainerOf(names));
  instancesTable = TableClient.fromConnectionString(testConnectionString(), names.instancesTable, { allowInsecureConnection: true });
  expect((await api.request('PUT', '/api/workflows/large', { json: v1 })).status).toBe(201);
});

afterAll(async () => {
  await host?.stop();
});

async function send(instanceId: string, name: string, parameters?: Record<string, unknown>) {
  const accepted = await api.request('POST', `/api/instances/${instanceId}/triggers`, { json: { name, ...(parameters ? { parameters } : {}) } });
  expect(accepted.status).toBe(202);
  const finished = await api.waitForOperation(accepted.body.operationId);
  expect(finished.status).toBe(200);
  return finished.body;
}

async function runOperation(path: string, json: unknown) {
  const accepted = await api.request('POST', path, { json });
  expect(accepted.status).toBe(202);
  const finished = await api.waitForOperation(accepted.body.operationId);
  expect(finished.status).toBe(200);
  return finished.body;
}

async function blobsOf(instanceId: string): Promise<string[]> {
  const names: string[] = [];
  for await (const blob of contexts.listBlobsFlat({ prefix: `${encodeKey(instanceId)}/` })) names.push(blob.name);
  return names;
}

/** The instance row's reference to its body blob, straight from the table. */
async function rowReference(instanceId: string): Promise<unknown> {
  const row = await instancesTable.getEntity<Record<string, unknown>>(encodeKey(instanceId), 'instance');
  return row.bodyBlob;
}

async function grownInstance(instanceId: string) {
  expect((await api.request('POST', '/api/instances', { json: { workflowId: 'large', instanceId, context: { owner: 'ann' } } })).status).toBe(201);
  expect(await blobsOf(instanceId)).toEqual([]);
  expect(await send(instanceId, 'Grow')).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
}

function expectGrownContext(context: Record<string, unknown>): void {
  for (let index = 0; index < 10; index++) expect(context[`blob${index}`]).toBe(String.fromCharCode(97 + index).repeat(KEY_LENGTH));
}

it('a 10 MB context survives transitions and a migration, one blob per version, and its blob goes with the deletion', async () => {
  await grownInstance('big-1');
  const grown = await api.request('GET', '/api/instances/big-1');
  expect(grown.status).toBe(200);
  expect(grown.text.length).toBeGreaterThan(10_000_000);
  expect(grown.body).toMatchObject({ stateId: 'grown', context: { owner: 'ann' } });
  expectGrownContext(grown.body.context);
  // The row references the one blob there is.
  const first = await blobsOf('big-1');
  expect(first).toHaveLength(1);
  expect(await rowReference('big-1')).toBe(first[0]);

  expect(await send('big-1', 'Note', { note: 'checked' })).toMatchObject({ summary: { transitioned: 1 } });
  const noted = (await api.request('GET', '/api/instances/big-1')).body;
  expect(noted).toMatchObject({ stateId: 'noted', context: { owner: 'ann', note: 'checked', length: KEY_LENGTH, joined: 'ann-checked-aaa' } });
  expectGrownContext(noted.context);
  // A new blob for the new version; the previous one was deleted after the save.
  const second = await blobsOf('big-1');
  expect(second).toHaveLength(1);
  expect(second[0]).not.toBe(first[0]);
  expect(await rowReference('big-1')).toBe(second[0]);

  const current = await api.request('GET', '/api/workflows/large');
  expect((await api.request('PUT', '/api/workflows/large', { json: v2, headers: { 'if-match': current.headers.get('etag')! } })).status).toBe(200);
  const migration = await runOperation('/api/workflows/large/migrations', { fromVersion: 1, toVersion: 2, stateMap: { noted: 'checked' } });
  expect(migration).toMatchObject({ status: 'succeeded', summary: { migrated: 1, failed: 0 } });
  const migrated = (await api.request('GET', '/api/instances/big-1')).body;
  expect(migrated).toMatchObject({ workflowVersion: 2, stateId: 'checked', context: { note: 'checked' } });
  expectGrownContext(migrated.context);
  const third = await blobsOf('big-1');
  expect(third).toHaveLength(1);
  expect(third[0]).not.toBe(second[0]);
  // The history holds the steps, not copies of the context.
  const history = await api.request('GET', '/api/instances/big-1/history');
  expect(history.body.items.map((entry: { event: string }) => entry.event)).toEqual(['created', 'transitioned', 'transitioned', 'migrated']);
  expect(history.text.length).toBeLessThan(10_000);
  // Listed with the others, whole.
  const listed = await api.request('GET', '/api/instances?workflowId=large');
  expect(listed.status).toBe(200);
  expect(listed.body.items).toHaveLength(1);
  expect(listed.body.items[0]).toMatchObject({ id: 'big-1', stateId: 'checked' });
  expectGrownContext(listed.body.items[0].context);

  // Waiting still, so forced (a finished one needs no force).
  expect((await api.request('DELETE', '/api/instances/big-1?force=true')).status).toBe(204);
  expect((await api.request('GET', '/api/instances/big-1')).status).toBe(404);
  expect(await blobsOf('big-1')).toEqual([]);
});

it('the retention purge removes a finished 10 MB instance with its blob, and leaves a waiting one with its own', async () => {
  await grownInstance('big-done');
  await send('big-done', 'Note', { note: 'n' });
  expect(await send('big-done', 'Finish')).toMatchObject({ summary: { transitioned: 1 } });
  expect((await api.request('GET', '/api/instances/big-done')).body).toMatchObject({ status: 'complete' });
  expect(await blobsOf('big-done')).toHaveLength(1);
  await grownInstance('big-waiting');

  const services = host.core.servicesFor(host.runner);
  const operations = await purgeFinishedInstances(services, 1, new Date(Date.now() + 2 * 86_400_000));
  const finished = await Promise.all(operations.map(async (operation) => (await api.waitForOperation(operation.id)).body));
  expect(finished.map((operation) => operation.status)).toEqual(operations.map(() => 'succeeded'));

  expect((await api.request('GET', '/api/instances/big-done')).status).toBe(404);
  expect(await blobsOf('big-done')).toEqual([]);
  const waiting = await api.request('GET', '/api/instances/big-waiting');
  expect(waiting.body).toMatchObject({ stateId: 'grown' });
  expectGrownContext(waiting.body.context);
  expect(await blobsOf('big-waiting')).toHaveLength(1);
});

describe('SIGNALBOX_MAX_INSTANCE_MB', () => {
  it('reads MiB (fractions allowed), leaves the default when empty, and refuses anything but a positive number', () => {
    expect(maxInstanceBytes({})).toBeUndefined();
    expect(maxInstanceBytes({ SIGNALBOX_MAX_INSTANCE_MB: ' ' })).toBeUndefined();
    expect(maxInstanceBytes({ SIGNALBOX_MAX_INSTANCE_MB: '32' })).toBe(32 * 1024 * 1024);
    expect(maxInstanceBytes({ SIGNALBOX_MAX_INSTANCE_MB: '0.5' })).toBe(512 * 1024);
    for (const bad of ['0', '-1', 'big', '16MB']) expect(() => maxInstanceBytes({ SIGNALBOX_MAX_INSTANCE_MB: bad })).toThrow(/SIGNALBOX_MAX_INSTANCE_MB must be a positive number of MiB/);
  });

  it('a change past the configured limit faults the instance, which keeps its last saved context', async () => {
    const limited = await startLocalHost({
      env: { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_MAX_INSTANCE_MB: '5' },
      port: 0,
      storageNames: prefixedStorageNames(uniquePrefix('limit')),
      logger: silentLogger,
    });
    try {
      const client = httpClient(limited.url);
      expect((await client.request('PUT', '/api/workflows/large', { json: v1 })).status).toBe(201);
      expect((await client.request('POST', '/api/instances', { json: { workflowId: 'large', instanceId: 'too-big', context: { owner: 'bob' } } })).status).toBe(201);
      const accepted = await client.request('POST', '/api/instances/too-big/triggers', { json: { name: 'Grow' } });
      const operation = (await client.waitForOperation(accepted.body.operationId)).body;
      expect(operation.instances).toEqual([expect.objectContaining({ instanceId: 'too-big', outcome: 'faulted', error: expect.stringMatching(/larger than 5 MiB.*SIGNALBOX_MAX_INSTANCE_MB/) })]);
      const instance = (await client.request('GET', '/api/instances/too-big')).body;
      expect(instance).toMatchObject({ status: 'faulted', stateId: 'open', context: { owner: 'bob' } });
      expect(instance.context).not.toHaveProperty('blob0');
    } finally {
      await limited.stop();
    }
  });
});

describe('SIGNALBOX_MAX_CREATE_BODY_MB', () => {
  /** A context of 10 MB in one creation body. */
  const wholeContext = () => Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`blob${index}`, String.fromCharCode(97 + index).repeat(KEY_LENGTH)]));

  it('is read like the instance limit', () => {
    expect(maxCreateBodyBytes({})).toBeUndefined();
    expect(maxCreateBodyBytes({ SIGNALBOX_MAX_CREATE_BODY_MB: '12' })).toBe(12 * 1024 * 1024);
    expect(() => maxCreateBodyBytes({ SIGNALBOX_MAX_CREATE_BODY_MB: 'none' })).toThrow(/SIGNALBOX_MAX_CREATE_BODY_MB must be a positive number of MiB/);
  });

  it('unset, a creation body is held to 1 MiB like every other (413, nothing created)', async () => {
    const refused = await api.request('POST', '/api/instances', { json: { workflowId: 'large', instanceId: 'whole-default', context: { blob: 'x'.repeat(2_000_000) } } });
    expect(refused.status).toBe(413);
    expect((await api.request('GET', '/api/instances/whole-default')).status).toBe(404);
  });

  it('set, a 10 MB context is created whole through the API; other bodies keep the 1 MiB limit', async () => {
    const roomy = await startLocalHost({
      env: { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_MAX_CREATE_BODY_MB: '12' },
      port: 0,
      storageNames: prefixedStorageNames(uniquePrefix('whole')),
      logger: silentLogger,
    });
    try {
      const client = httpClient(roomy.url);
      expect((await client.request('PUT', '/api/workflows/large', { json: v1 })).status).toBe(201);
      const created = await client.request('POST', '/api/instances', { json: { workflowId: 'large', instanceId: 'whole', context: { owner: 'cy', ...wholeContext() } } });
      expect(created.status).toBe(201);
      const read = (await client.request('GET', '/api/instances/whole')).body;
      expect(read).toMatchObject({ stateId: 'open', context: { owner: 'cy' } });
      expectGrownContext(read.context);
      const trigger = await client.request('POST', '/api/instances/whole/triggers', { json: { name: 'Grow', parameters: { blob: 'x'.repeat(2_000_000) } } });
      expect(trigger.status).toBe(413);
      const workflow = await client.request('PUT', '/api/workflows/other', { json: { ...v1, id: 'other', description: 'x'.repeat(2_000_000) } });
      expect(workflow.status).toBe(413);
    } finally {
      await roomy.stop();
    }
  });
});
