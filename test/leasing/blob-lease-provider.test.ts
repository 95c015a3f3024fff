/** The lease contract on Azure Blob leases (Azurite) and in memory, plus what only blob leases do. */
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { LeaseLostError } from '../../src/engine/model';
import { BlobLeaseProvider } from '../../src/leasing/blob-lease-provider';
import { InMemoryLeaseProvider } from '../../src/testing';
import { leaseBlobName } from '../../src/leasing/lease-name';
import { createContainerClient } from '../../src/storage/connection';
import { createRequestCounter } from '../../src/storage/request-counter';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { leaseProviderContract } from './lease-provider.contract';

function newContainer(counter?: ReturnType<typeof createRequestCounter>): ContainerClient {
  return createContainerClient({ kind: 'connectionString', connectionString: testConnectionString() }, `${uniquePrefix('l')}-leases`, counter ? { requestCounter: counter } : {});
}

/** A client that bypasses the provider, to act as another party on the same blobs. */
function rawBlob(container: ContainerClient, name: string) {
  return BlobServiceClient.fromConnectionString(testConnectionString()).getContainerClient(container.containerName).getBlockBlobClient(leaseBlobName(name));
}

leaseProviderContract('Azure Blob leases', async () => {
  const container = newContainer();
  // Every worker its own provider, as separate processes would have.
  return () => new BlobLeaseProvider(container);
});

leaseProviderContract('in memory', async () => {
  const provider = new InMemoryLeaseProvider();
  return () => provider;
});

describe('BlobLeaseProvider', () => {
  it('creates the container and the lease blob on first use, then costs exactly acquire + release', async () => {
    const counter = createRequestCounter();
    const provider = new BlobLeaseProvider(newContainer(counter));
    await provider.withLease('first', async () => undefined);
    // 404 acquire, 404 upload (no container), create container, upload, acquire, release.
    expect(counter.counts().blob).toBe(6);
    counter.reset();
    await provider.withLease('first', async () => undefined);
    expect(counter.counts().byKind).toEqual({ 'blob lease acquire': 1, 'blob lease release': 1 });
  });

  it('makes the blob client of a name once and reuses it for the next withLease (each costs a pipeline context to build)', async () => {
    const container = newContainer();
    const made: string[] = [];
    const getBlockBlobClient = container.getBlockBlobClient.bind(container);
    container.getBlockBlobClient = (blobName) => (made.push(blobName), getBlockBlobClient(blobName));
    const provider = new BlobLeaseProvider(container);
    await provider.prepare('reused');
    await provider.withLease('reused', async () => undefined);
    await provider.withLease('reused', async () => undefined);
    await provider.withLease('other', async () => undefined);
    expect(made).toEqual([leaseBlobName('reused'), leaseBlobName('other')]);
  });

  it('prepare() creates the lease blob ahead of use, so the first withLease costs exactly acquire + release', async () => {
    const counter = createRequestCounter();
    const provider = new BlobLeaseProvider(newContainer(counter));
    await provider.prepare('early');
    await provider.prepare('early'); // a blob that exists already is fine
    counter.reset();
    await provider.withLease('early', async () => undefined);
    expect(counter.counts().byKind).toEqual({ 'blob lease acquire': 1, 'blob lease release': 1 });
  });

  it('hands the lease over to the next holder in this process, and releases it after the last', async () => {
    const counter = createRequestCounter();
    const container = newContainer(counter);
    const provider = new BlobLeaseProvider(container);
    await provider.prepare('queue');
    counter.reset();
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3].map((index) =>
        provider.withLease('queue', async (lease) => {
          lease.assertHeld();
          // Still exclusive while handed along: another party cannot take it.
          await expect(rawBlob(container, 'queue').getBlobLeaseClient().acquireLease(15)).rejects.toMatchObject({ statusCode: 409 });
          order.push(index);
        }),
      ),
    );
    expect(order).toEqual([1, 2, 3]);
    // One acquire and one release for the three holders (the 409s above are the raw client's, not counted).
    expect(counter.counts().byKind).toEqual({ 'blob lease acquire': 1, 'blob lease release': 1 });
    // Released: another party can take it now.
    await expect(rawBlob(container, 'queue').getBlobLeaseClient().acquireLease(15)).resolves.toBeDefined();
  });

  it('releases in the background with releaseInBackground, and settle() waits for it', async () => {
    const counter = createRequestCounter();
    const container = newContainer(counter);
    const provider = new BlobLeaseProvider(container, { releaseInBackground: true });
    await provider.prepare('background');
    await provider.withLease('background', async () => undefined);
    await provider.settle();
    const other = rawBlob(container, 'background').getBlobLeaseClient();
    await expect(other.acquireLease(15)).resolves.toBeDefined();
    await other.releaseLease();
    counter.reset();
    // The next local holder waits for the release still under way, so it never finds its own process's
    // lease busy: one acquire each, no refused ones.
    await provider.withLease('background', async () => undefined);
    await expect(provider.withLease('background', async () => 'again')).resolves.toBe('again');
    await provider.settle();
    expect(counter.counts().byKind).toEqual({ 'blob lease acquire': 2, 'blob lease release': 2 });
  });

  it('holds a real blob lease: another party can neither lease nor write the blob meanwhile', async () => {
    const container = newContainer();
    const provider = new BlobLeaseProvider(container);
    await provider.withLease('exclusive', async () => {
      const blob = rawBlob(container, 'exclusive');
      await expect(blob.getBlobLeaseClient().acquireLease(15)).rejects.toMatchObject({ statusCode: 409 });
      await expect(blob.upload('x', 1)).rejects.toMatchObject({ statusCode: 412 });
    });
    const after = await rawBlob(container, 'exclusive').getProperties();
    expect(after.leaseState).toBe('available');
  });

  it('tells the work when the lease is broken from outside: signal aborted, assertHeld throws', async () => {
    const container = newContainer();
    const provider = new BlobLeaseProvider(container, { renewIntervalInMs: 50 });
    const other = new BlobLeaseProvider(container);
    const outcome = await provider.withLease('broken', async (lease) => {
      lease.assertHeld();
      await rawBlob(container, 'broken').getBlobLeaseClient().breakLease(0);
      // The next renewal is refused by the service; wait for the loss to be noticed.
      await new Promise<void>((resolve) => lease.signal.addEventListener('abort', () => resolve(), { once: true }));
      expect(lease.signal.reason).toBeInstanceOf(LeaseLostError);
      expect(() => lease.assertHeld()).toThrow(LeaseLostError);
      // Someone else can have it now, while this work is still running.
      return other.withLease('broken', async () => 'taken over', { maxWaitInMs: 0 });
    });
    expect(outcome).toBe('taken over');
    await expect(provider.withLease('broken', async () => 'available again', { maxWaitInMs: 0 })).resolves.toBe('available again');
  });

  it('renews the lease in the background while the work runs, and stops renewing after', async () => {
    const counter = createRequestCounter();
    const container = newContainer(counter);
    const provider = new BlobLeaseProvider(container, { renewIntervalInMs: 50 });
    await provider.withLease('renewed', async () => undefined);
    counter.reset();
    await provider.withLease(
      'renewed',
      async (lease) => {
        // Wait for three renewals, however long the machine takes.
        while ((counter.counts().byKind['blob lease renew'] ?? 0) < 3) await new Promise((resolve) => setTimeout(resolve, 20));
        lease.assertHeld();
        expect(lease.signal.aborted).toBe(false);
        await expect(rawBlob(container, 'renewed').getBlobLeaseClient().acquireLease(15)).rejects.toMatchObject({ statusCode: 409 });
      },
      { leaseDurationInSeconds: 15 },
    );
    const renewals = counter.counts().byKind['blob lease renew'];
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(counter.counts().byKind['blob lease renew']).toBe(renewals);
    expect(counter.counts().byKind['blob lease release']).toBe(1);
  });

  it("stops waiting when the caller aborts, with the caller's reason", async () => {
    const container = newContainer();
    const provider = new BlobLeaseProvider(container);
    await provider.withLease('abort', async () => {
      // Aborted during a backoff wait.
      const controller = new AbortController();
      const waiting = new BlobLeaseProvider(container).withLease('abort', async () => 'ran', { abortSignal: controller.signal });
      setTimeout(() => controller.abort(new Error('caller gave up')), 30);
      await expect(waiting).rejects.toThrow('caller gave up');
      // Aborted before the first request: the SDK's own AbortError must not replace the reason.
      const early = new AbortController();
      early.abort(new Error('gave up at once'));
      await expect(new BlobLeaseProvider(container).withLease('abort', async () => 'ran', { abortSignal: early.signal })).rejects.toThrow('gave up at once');
    });
  });

  it('inspect: free, held here (since when, until when), held elsewhere (fixed or infinite), as the blob says', async () => {
    const container = newContainer();
    const provider = new BlobLeaseProvider(container);
    expect(await provider.inspect('never-leased')).toEqual({ held: false });
    await provider.prepare('inspected');
    expect(await provider.inspect('inspected')).toEqual({ held: false });
    const before = Date.now();
    const inside = await provider.withLease('inspected', () => provider.inspect('inspected'), { leaseDurationInSeconds: 30 });
    expect(inside).toMatchObject({ held: true, infinite: false, heldHere: { since: expect.any(String), expiresAt: expect.any(String) } });
    const since = Date.parse(inside.heldHere!.since);
    // Generous bounds: it was taken during this call, and expires about 30 s after it was taken.
    expect(since).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(inside.heldHere!.expiresAt!) - since).toBeGreaterThan(20_000);
    expect(await provider.inspect('inspected')).toEqual({ held: false });
    const other = rawBlob(container, 'inspected').getBlobLeaseClient();
    await other.acquireLease(-1);
    try {
      expect(await provider.inspect('inspected')).toEqual({ held: true, infinite: true });
    } finally {
      await other.releaseLease();
    }
  });
});
