/**
 * Lease carry-over (decision 0024) on Azurite: a lease nobody here is queued for is kept, still held, for
 * `carryOverInMs` after the work, and the name's next holder in this process takes it over with the
 * instance its predecessor saved; unclaimed, it is released, so another process gets it; a process that
 * dies holding one leaves it to expire. With the engine: two workers (two processes) contending for one
 * instance apply every trigger exactly once, one after another, and the second trigger in a row costs
 * no lease request and no instance read.
 */
import type { BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import { Engine } from '../../src/engine/engine';
import type { StoredInstance, Trigger } from '../../src/engine/model';
import { onePage } from '../../src/engine/ports';
import { silentLogger } from '../../src/engine/steps';
import { BlobLeaseProvider } from '../../src/leasing/blob-lease-provider';
import { createContainerClient } from '../../src/storage/connection';
import { createAzureStorage, type AzureStorage } from '../../src/storage/create-azure-storage';
import { prefixedStorageNames, type StorageNames } from '../../src/storage/names';
import { createRequestCounter, type RequestCounter } from '../../src/storage/request-counter';
import { testConnectionString, uniquePrefix } from '../support/storage';
import counterWorkflow from '../../examples/counter.json';

function newContainer(counter?: RequestCounter): ContainerClient {
  return createContainerClient({ kind: 'connectionString', connectionString: testConnectionString() }, `${uniquePrefix('c')}-leases`, counter ? { requestCounter: counter } : {});
}

/** Stands for an instance a holder saved (the provider only passes it on). */
const savedInstance = (count: number) => ({ id: 'carried', etag: `etag-${count}`, context: { count } }) as unknown as StoredInstance;

describe('BlobLeaseProvider with carryOverInMs', () => {
  it('passes the lease to the next holder here without a release or an acquire, with what the last holder carried', async () => {
    const counter = createRequestCounter();
    // Long enough that a loaded machine cannot make the holds below miss it.
    const provider = new BlobLeaseProvider(newContainer(counter), { carryOverInMs: 30_000 });
    await provider.prepare('kept');
    counter.reset();
    const seen: (StoredInstance | undefined)[] = [];
    await provider.withLease('kept', async (lease) => {
      seen.push(lease.carried);
      lease.carry?.(savedInstance(1));
    });
    await provider.withLease('kept', async (lease) => {
      seen.push(lease.carried);
      lease.carry?.(savedInstance(2));
    });
    // This holder carries nothing on (it did not save through the run loop): the next one reads for itself.
    await provider.withLease('kept', async (lease) => void seen.push(lease.carried));
    await provider.withLease('kept', async (lease) => void seen.push(lease.carried));
    expect(seen).toEqual([undefined, savedInstance(1), savedInstance(2), undefined]);
    expect(counter.counts().byKind).toEqual({ 'blob lease acquire': 1 });
    // Kept idle for the next work here, it is no reason to wait ("why is it waiting" reads this), though leased.
    await expect(provider.inspect('kept')).resolves.toEqual({ held: false });
    await provider.withLease('kept', async () => expect((await provider.inspect('kept')).held).toBe(true));
    await provider.settle();
    // The idle one is answered from memory; the one under work reads the blob.
    expect(counter.counts().byKind).toEqual({ 'blob lease acquire': 1, 'blob lease release': 1, 'blob HEAD': 1 });
  });

  it('releases a lease nobody here takes once the carry-over time is up: another process then gets it, and nothing carried', async () => {
    const container = newContainer();
    const counter = createRequestCounter();
    const here = new BlobLeaseProvider(newContainerNamed(container.containerName, counter), { carryOverInMs: 200 });
    const elsewhere = new BlobLeaseProvider(newContainerNamed(container.containerName), { carryOverInMs: 200 });
    await here.withLease('shared', async (lease) => lease.carry?.(savedInstance(1)));
    // The other process waits (409s, backoff) until the carried-over lease is released.
    const carriedElsewhere = await elsewhere.withLease('shared', async (lease) => lease.carried, { maxWaitInMs: 30_000 });
    expect(carriedElsewhere).toBeUndefined();
    expect(counter.counts().byKind['blob lease release']).toBe(1);
    await elsewhere.settle();
    // Back here the lease was let go, so nothing is carried: the next holder reads for itself.
    expect(await here.withLease('shared', async (lease) => lease.carried, { maxWaitInMs: 30_000 })).toBeUndefined();
    await here.settle();
  });

  it('after a process died holding a carried-over lease, another gets it once it expires, and the dead one never trusts it again', async () => {
    const container = newContainer();
    let dead = false;
    const dying = new BlobLeaseProvider(
      deadAfterwards(newContainerNamed(container.containerName), () => dead),
      { carryOverInMs: 120_000 },
    );
    await dying.withLease('crashed', async (lease) => lease.carry?.(savedInstance(7)), { leaseDurationInSeconds: 15 });
    dead = true; // from now on its requests never reach the service: no release, no renewal
    const survivor = new BlobLeaseProvider(newContainerNamed(container.containerName));
    const started = Date.now();
    const carried = await survivor.withLease('crashed', async (lease) => lease.carried, { maxWaitInMs: 60_000 });
    expect(carried).toBeUndefined();
    // It got it by expiry, not by a release (a released lease is free at once; 15 s is the shortest lease).
    expect(Date.now() - started).toBeGreaterThan(5_000);
    dead = false;
    // The dead process's parked lease has expired: it acquires again and carries nothing.
    expect(await dying.withLease('crashed', async (lease) => lease.carried, { leaseDurationInSeconds: 15, maxWaitInMs: 30_000 })).toBeUndefined();
    await dying.settle();
  }, 90_000);
});

function newContainerNamed(containerName: string, counter?: RequestCounter): ContainerClient {
  return createContainerClient({ kind: 'connectionString', connectionString: testConnectionString() }, containerName, counter ? { requestCounter: counter } : {});
}

/** A container whose lease releases and renewals fail without reaching the service once `isDead()`: a crashed process. */
function deadAfterwards(container: ContainerClient, isDead: () => boolean): ContainerClient {
  const getBlockBlobClient = container.getBlockBlobClient.bind(container);
  container.getBlockBlobClient = (blobName: string): BlockBlobClient => {
    const blob = getBlockBlobClient(blobName);
    const getBlobLeaseClient = blob.getBlobLeaseClient.bind(blob);
    blob.getBlobLeaseClient = (proposeLeaseId?: string) => {
      const lease = getBlobLeaseClient(proposeLeaseId);
      for (const method of ['releaseLease', 'renewLease'] as const) {
        const real = lease[method].bind(lease);
        lease[method] = ((...args: Parameters<typeof real>) => (isDead() ? Promise.reject(new Error('the process is gone')) : real(...args))) as never;
      }
      return lease;
    };
    return blob;
  };
  return container;
}

describe('the engine with lease carry-over, two workers on one account', () => {
  let names: StorageNames;
  let admin: AzureStorage;

  /** A worker (a process): its own clients and lease provider; `instanceReads` counts its instance reads. */
  async function worker(options: { counter?: RequestCounter; carryOverInMs?: number } = {}): Promise<Engine & { instanceReads: number; storage: AzureStorage }> {
    const storage = await createAzureStorage({
      connection: testConnectionString(),
      names,
      createIfMissing: false,
      leases: { carryOverInMs: options.carryOverInMs ?? 250 },
      ...(options.counter ? { requestCounter: options.counter } : {}),
    });
    const get = storage.instances.get.bind(storage.instances);
    const engine = Object.assign(
      new Engine(
        { workflows: storage.workflows, instances: storage.instances, history: storage.history, outbox: storage.outbox, interests: storage.interests, leases: storage.leases },
        { logger: silentLogger },
      ),
      { instanceReads: 0, storage },
    );
    storage.instances.get = (...args) => ((engine.instanceReads += 1), get(...args));
    return engine;
  }
  const increment = (instanceId: string, id: string): Trigger => ({ id, name: 'Increment', subjects: [instanceId] });

  beforeAll(async () => {
    names = prefixedStorageNames(uniquePrefix('co'));
    admin = await createAzureStorage({ connection: testConnectionString(), names });
    await (await worker()).createWorkflow(counterWorkflow);
  });

  it('applies 40 distinct triggers sent to both workers at once exactly once each, one after another, and a repeated id once', async () => {
    const [a, b] = await Promise.all([worker(), worker()]);
    await a.createInstance({ workflowId: 'counter', instanceId: 'contended', context: { count: 0 } });
    const ids = Array.from({ length: 40 }, (_, index) => `inc-${index}`);
    const results = await Promise.all(ids.map((id, index) => (index % 2 === 0 ? a : b).applyTrigger('contended', increment('contended', id))));
    expect(results.map((result) => result.outcome)).toEqual(ids.map(() => 'transitioned'));
    // Each worker once more with an id the other applied: duplicates, though its carried copy may be the older one.
    expect((await a.applyTrigger('contended', increment('contended', 'inc-1'))).outcome).toBe('duplicate');
    expect((await b.applyTrigger('contended', increment('contended', 'inc-0'))).outcome).toBe('duplicate');
    const instance = await admin.instances.get('contended');
    expect(instance?.context.count).toBe(40);
    const { items } = await onePage(admin.history.list('contended'), { maxPageSize: 1000 });
    expect(items.map((entry) => entry.sequence)).toEqual(items.map((_, index) => index));
    expect(
      items
        .slice(1)
        .map((entry) => entry.triggerId)
        .sort(),
    ).toEqual([...ids].sort());
    await Promise.all([a.storage.leases.settle(), b.storage.leases.settle()]);
  }, 60_000);

  it('takes turns: the second trigger in a row here costs no lease request and no instance read; the other worker then sees every save', async () => {
    const counter = createRequestCounter();
    // Long enough that a loaded machine cannot make the second trigger miss it; released by settle() below.
    const [a, b] = await Promise.all([worker({ counter, carryOverInMs: 30_000 }), worker()]);
    await a.createInstance({ workflowId: 'counter', instanceId: 'turns', context: { count: 0 } });
    await a.applyTrigger('turns', increment('turns', 'a-1'));
    counter.reset();
    a.instanceReads = 0;
    expect((await a.applyTrigger('turns', increment('turns', 'a-2'))).outcome).toBe('transitioned');
    expect(counter.counts().byKind['blob lease acquire'] ?? 0).toBe(0);
    expect(counter.counts().byKind['blob lease release'] ?? 0).toBe(0);
    expect(a.instanceReads).toBe(0);
    await a.storage.leases.settle();
    await b.applyTrigger('turns', increment('turns', 'b-1'));
    await b.storage.leases.settle();
    // a let its lease go, so it reads b's save rather than trusting what it carried.
    expect((await a.applyTrigger('turns', increment('turns', 'a-3'))).outcome).toBe('transitioned');
    expect(a.instanceReads).toBe(1);
    await a.storage.leases.settle();
    expect((await admin.instances.get('turns'))?.context.count).toBe(4);
  }, 60_000);
});
