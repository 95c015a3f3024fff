/**
 * Instance records too large for a Table entity (issue 41 section 2), on Azurite over real HTTP: what a
 * save and a read cost in requests, small and large; a crash between the blob's write and the table
 * transaction (nothing lost, the orphan never visible, then collected by the recovery sweep once past its
 * grace period); a lost answer to a save that did commit (its blob must stay); a read racing a save that
 * deletes the blob it was about to read.
 */
import { RestError, type PipelinePolicy } from '@azure/core-rest-pipeline';
import type { TableClient } from '@azure/data-tables';
import type { ContainerClient } from '@azure/storage-blob';
import { Engine } from '../../src/engine/engine';
import { silentLogger } from '../../src/engine/steps';
import { PreconditionFailedError } from '../../src/engine/model';
import { recoverLeftovers } from '../../src/host/start-up-recovery';
import { createTableClient } from '../../src/storage/connection';
import { createRequestCounter, type RequestCounter } from '../../src/storage/request-counter';
import { InstanceBodyBlobs } from '../../src/storage/instance-body-blobs';
import { encodeKey } from '../../src/storage/keys';
import { TableInstanceStore } from '../../src/storage/table-instance-store';
import type { AzureStorage } from '../../src/storage/create-azure-storage';
import { ManualClock } from '../../src/testing';
import { testConnectionString } from '../support/storage';
import { createTestStorage, makeInstance, withoutEtag } from './fixtures';

/** About 2 MB of context: over an entity's 1 MiB, so it goes to a blob. */
function largeContext(fill: string) {
  return { blob: fill.repeat(2_000_000), unicode: '😀é'.repeat(1000) };
}

let storage: AzureStorage;
let counter: RequestCounter;

beforeAll(async () => {
  counter = createRequestCounter();
  storage = await createTestStorage({ requestCounter: counter });
});

/** A store over the same table and container whose table client runs `policy` on every attempt (inside the SDK's retries). */
function storeWith(policy: PipelinePolicy, options: { counter?: RequestCounter } = {}): TableInstanceStore {
  const client: TableClient = createTableClient(
    { kind: 'connectionString', connectionString: testConnectionString() },
    storage.names.instancesTable,
    options.counter ? { requestCounter: options.counter } : {},
  );
  client.pipeline.addPolicy(policy, { afterPhase: 'Retry' });
  return new TableInstanceStore(client, { bodies: new InstanceBodyBlobs(storage.clients.contexts) });
}

const isBatch = (url: string) => url.includes('$batch');

async function blobsOf(container: ContainerClient, instanceId: string): Promise<string[]> {
  const names: string[] = [];
  for await (const blob of container.listBlobsFlat({ prefix: `${encodeKey(instanceId)}/` })) names.push(blob.name);
  return names;
}

async function rowOf(instanceId: string): Promise<Record<string, unknown>> {
  return storage.clients.instances.getEntity<Record<string, unknown>>(encodeKey(instanceId), 'instance');
}

describe('requests', () => {
  it('a small instance is one request to save and one to read, with no blob', async () => {
    counter.reset();
    const stored = await storage.instances.create(makeInstance('small-1'));
    expect(counter.requests()).toEqual(['table POST $batch $batch']);
    counter.reset();
    expect(await storage.instances.get('small-1')).toEqual(stored);
    expect(counter.requests()).toEqual([`table GET ${storage.names.instancesTable}`]);
    counter.reset();
    await storage.instances.save(makeInstance('small-1', { context: { count: 1 } }), {}, { ifMatch: stored.etag });
    expect(counter.counts()).toMatchObject({ table: 1, blob: 0 });
    expect(await blobsOf(storage.clients.contexts, 'small-1')).toEqual([]);
  });

  it('a large one is a blob write before the transaction, a blob read after the row, and the replaced blob deleted after the save', async () => {
    counter.reset();
    const created = await storage.instances.create(makeInstance('large-1', { context: largeContext('a') }));
    const container = storage.names.contextContainer!;
    expect(counter.requests()).toEqual([`blob PUT ${container}`, 'table POST $batch $batch']);
    const [first] = await blobsOf(storage.clients.contexts, 'large-1');
    const row = await rowOf('large-1');
    expect(row).toMatchObject({ bodyBlob: first, bodyBlobEtag: expect.any(String), stateId: 'open', workflowId: 'wf', status: 'waiting' });
    expect(row).not.toHaveProperty('body');

    counter.reset();
    const read = await storage.instances.get('large-1');
    expect(read).toEqual(created);
    expect(read?.context).toEqual(largeContext('a'));
    expect(counter.requests()).toEqual([`table GET ${storage.names.instancesTable}`, `blob GET ${container}`]);

    counter.reset();
    const saved = await storage.instances.save(makeInstance('large-1', { context: largeContext('b') }), {}, { ifMatch: read!.etag });
    expect(counter.requests()).toEqual([`blob PUT ${container}`, 'table POST $batch $batch', `blob DELETE ${container}`]);
    const [second] = await blobsOf(storage.clients.contexts, 'large-1');
    expect(second).not.toBe(first);
    expect(await blobsOf(storage.clients.contexts, 'large-1')).toEqual([second]);

    // Listing ids (what the instance quota counts) reads no body, inline or in a blob.
    counter.reset();
    const ids: string[] = [];
    for await (const id of storage.instances.queryIds({ workflowId: 'wf', status: 'waiting' })) ids.push(id);
    expect(ids).toContain('large-1');
    expect(counter.counts()).toMatchObject({ table: 1, blob: 0 });

    // Back to small: inline again, and the last blob gone.
    await storage.instances.save(makeInstance('large-1', { context: { small: true } }), {}, { ifMatch: saved.etag });
    expect(await blobsOf(storage.clients.contexts, 'large-1')).toEqual([]);
    counter.reset();
    expect((await storage.instances.get('large-1'))?.context).toEqual({ small: true });
    expect(counter.counts()).toMatchObject({ table: 1, blob: 0 });
  });
});

describe('a crash between the blob write and the save', () => {
  it('loses nothing, shows no orphan, and the recovery sweep collects it once past the grace period', async () => {
    const created = await storage.instances.create(makeInstance('crash-1', { context: largeContext('a') }));
    const [committed] = await blobsOf(storage.clients.contexts, 'crash-1');
    // The process dies after its blob is written, before the table transaction leaves.
    const crashing = storeWith({
      name: 'crashBeforeTheTransaction',
      sendRequest: async (request, next) => {
        if (isBatch(request.url)) throw new Error('the process died');
        return next(request);
      },
    });
    await expect(crashing.save(makeInstance('crash-1', { context: largeContext('b') }), {}, { ifMatch: created.etag })).rejects.toThrow('the process died');
    const blobs = await blobsOf(storage.clients.contexts, 'crash-1');
    expect(blobs).toHaveLength(2);
    const orphan = blobs.find((name) => name !== committed)!;
    // Every reader sees the committed version, whole.
    expect(await storage.instances.get('crash-1')).toEqual(created);
    expect((await storage.instances.query({ workflowId: 'wf' }).byPage().next()).value?.items.find((item: { id: string }) => item.id === 'crash-1')).toEqual(created);

    // The sweep of the recovery path (both hosts), by the engine's clock: not yet (a save could be in flight), then an hour on.
    const clock = new ManualClock(new Date());
    const engine = new Engine({ ...storage, leases: storage.leases }, { clock, logger: silentLogger });
    expect(await recoverLeftovers(engine, silentLogger)).toMatchObject({ orphanedBlobs: 0 });
    expect(await blobsOf(storage.clients.contexts, 'crash-1')).toEqual(expect.arrayContaining([orphan, committed]));
    await clock.advanceBy(2 * 3_600_000);
    const { orphanedBlobs } = await recoverLeftovers(engine, silentLogger);
    expect(orphanedBlobs).toBeGreaterThanOrEqual(1);
    expect(await blobsOf(storage.clients.contexts, 'crash-1')).toEqual([committed]);

    // And the change the crash interrupted can be made again.
    const saved = await storage.instances.save(makeInstance('crash-1', { context: largeContext('b') }), {}, { ifMatch: created.etag });
    expect(withoutEtag((await storage.instances.get('crash-1'))!)).toEqual(withoutEtag(saved));
    expect((await storage.instances.get('crash-1'))?.context).toEqual(largeContext('b'));
  });

  it('a save refused (stale ETag, 412) deletes its own blob at once', async () => {
    const created = await storage.instances.create(makeInstance('stale-1', { context: largeContext('a') }));
    const current = await storage.instances.save(makeInstance('stale-1', { context: largeContext('b') }), {}, { ifMatch: created.etag });
    const before = await blobsOf(storage.clients.contexts, 'stale-1');
    expect(before).toHaveLength(1);
    await expect(storage.instances.save(makeInstance('stale-1', { context: largeContext('c') }), {}, { ifMatch: created.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(await blobsOf(storage.clients.contexts, 'stale-1')).toEqual(before);
    expect(await storage.instances.get('stale-1')).toEqual(current);
  });

  it('a save that committed but lost its answer keeps its blob (the retry meets 412)', async () => {
    const created = await storage.instances.create(makeInstance('lost-1', { context: largeContext('a') }));
    let dropped = false;
    const losing = storeWith({
      name: 'dropTheFirstAnswer',
      sendRequest: async (request, next) => {
        const response = await next(request);
        if (isBatch(request.url) && !dropped) {
          dropped = true;
          throw new RestError('socket hang up', { code: 'ECONNRESET', request });
        }
        return response;
      },
    });
    // The SDK retries the transaction, which now fails its precondition: the first attempt did commit.
    await expect(losing.save(makeInstance('lost-1', { context: largeContext('b') }), {}, { ifMatch: created.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(dropped).toBe(true);
    const row = await rowOf('lost-1');
    expect(await blobsOf(storage.clients.contexts, 'lost-1')).toContain(row.bodyBlob);
    expect((await storage.instances.get('lost-1'))?.context).toEqual(largeContext('b'));
  });
});

it('a read whose blob a concurrent save deleted reads the row again and answers the new version', async () => {
  const created = await storage.instances.create(makeInstance('race-1', { context: largeContext('a') }));
  const writer = storage.instances;
  await writer.get('race-1');
  let saved: Awaited<ReturnType<typeof writer.save>> | undefined;
  const readerCounter = createRequestCounter();
  // Between the reader's row and its blob, the writer saves a new version and deletes the old blob.
  const reader = storeWith(
    {
      name: 'saveBetweenRowAndBlob',
      sendRequest: async (request, next) => {
        const response = await next(request);
        if (request.method === 'GET' && !saved) saved = await writer.save(makeInstance('race-1', { context: largeContext('b') }), {}, { ifMatch: created.etag });
        return response;
      },
    },
    { counter: readerCounter },
  );
  const read = await reader.get('race-1');
  expect(saved).toBeDefined();
  expect(read).toEqual(saved);
  expect(read?.context).toEqual(largeContext('b'));
  expect(readerCounter.counts().table).toBe(2);
});
