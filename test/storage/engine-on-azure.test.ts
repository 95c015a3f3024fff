/**
 * The engine on Azure storage under concurrency and faults (issue 3, point 4): several workers, each
 * with its own clients and lease provider, as separate processes would have, sharing one account.
 */
import { onePage } from '../../src/engine/ports';
import { BlobServiceClient } from '@azure/storage-blob';
import { silentLogger } from '../../src/engine/steps';
import { Engine } from '../../src/engine/engine';
import { LeaseLostError, LeaseUnavailableError, StorageError } from '../../src/engine/model';
import type { InstanceStore, LeaseHandle, LeaseProvider } from '../../src/engine/ports';
import type { Trigger } from '../../src/engine/model';
import { leaseBlobName } from '../../src/leasing/lease-name';
import { createAzureStorage, type AzureStorage } from '../../src/storage/create-azure-storage';
import { prefixedStorageNames, type StorageNames } from '../../src/storage/names';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { collect } from './fixtures';
import counterWorkflow from '../../examples/counter.json';

let names: StorageNames;
let admin: AzureStorage;

/** A worker: its own clients and lease provider over the shared tables and container. */
async function worker(
  options: { renewIntervalInMs?: number; maxLeaseWaitInMs?: number; wrapInstances?: (store: InstanceStore) => InstanceStore; wrapLeases?: (leases: LeaseProvider) => LeaseProvider } = {},
): Promise<Engine> {
  const storage = await createAzureStorage({
    connection: testConnectionString(),
    names,
    createIfMissing: false,
    ...(options.renewIntervalInMs && { leases: { renewIntervalInMs: options.renewIntervalInMs } }),
  });
  const instances = options.wrapInstances ? options.wrapInstances(storage.instances) : storage.instances;
  const leases = options.wrapLeases ? options.wrapLeases(storage.leases) : storage.leases;
  return new Engine(
    { workflows: storage.workflows, instances, history: storage.history, outbox: storage.outbox, interests: storage.interests, leases },
    { logger: silentLogger, ...(options.maxLeaseWaitInMs !== undefined && { maxLeaseWaitInMs: options.maxLeaseWaitInMs }) },
  );
}

function increment(instanceId: string, id: string): Trigger {
  return { id, name: 'Increment', subjects: [instanceId] };
}

async function newCounter(engine: Engine, instanceId: string): Promise<void> {
  await engine.createInstance({ workflowId: 'counter', instanceId, context: { count: 0 } });
}

async function historyTriggerIds(instanceId: string): Promise<(string | null)[]> {
  const { items } = await collect((options) => onePage(admin.history.list(instanceId, options)), 1000);
  expect(items.map((entry) => entry.sequence)).toEqual(items.map((_, i) => i));
  return items.map((entry) => entry.triggerId);
}

function rawLease(instanceId: string) {
  return BlobServiceClient.fromConnectionString(testConnectionString()).getContainerClient(names.leaseContainer).getBlockBlobClient(leaseBlobName(instanceId)).getBlobLeaseClient();
}

beforeAll(async () => {
  names = prefixedStorageNames(uniquePrefix('e'));
  admin = await createAzureStorage({ connection: testConnectionString(), names });
  await (await worker()).createWorkflow(counterWorkflow);
});

it('applies 50 concurrent distinct triggers on one instance exactly once each, in a serial order', async () => {
  const workers = await Promise.all(Array.from({ length: 5 }, () => worker()));
  await newCounter(workers[0]!, 'busy-counter');
  const ids = Array.from({ length: 50 }, (_, i) => `inc-${i}`);
  const results = await Promise.all(ids.map((id, i) => workers[i % workers.length]!.applyTrigger('busy-counter', increment('busy-counter', id))));
  expect(results.map((result) => result.outcome)).toEqual(ids.map(() => 'transitioned'));
  const instance = await admin.instances.get('busy-counter');
  expect(instance?.context.count).toBe(50);
  expect(instance?.historyLength).toBe(51);
  // History: the creation, then each trigger exactly once, one after another.
  const history = await historyTriggerIds('busy-counter');
  expect(history[0]).toBeNull();
  expect([...history.slice(1)].sort()).toEqual([...ids].sort());
});

it('applies a trigger id delivered twice only once, sequentially or concurrently', async () => {
  const [a, b] = await Promise.all([worker(), worker()]);
  await newCounter(a!, 'dup-counter');
  expect((await a!.applyTrigger('dup-counter', increment('dup-counter', 'same'))).outcome).toBe('transitioned');
  expect((await b!.applyTrigger('dup-counter', increment('dup-counter', 'same'))).outcome).toBe('duplicate');
  const racing = await Promise.all([a!.applyTrigger('dup-counter', increment('dup-counter', 'twin')), b!.applyTrigger('dup-counter', increment('dup-counter', 'twin'))]);
  expect(racing.map((result) => result.outcome).sort()).toEqual(['duplicate', 'transitioned']);
  expect((await admin.instances.get('dup-counter'))?.context.count).toBe(2);
  expect(await historyTriggerIds('dup-counter')).toEqual([null, 'same', 'twin']);
});

it('waits out a holder that died without releasing, then applies the trigger once', async () => {
  const engine = await worker();
  await newCounter(engine, 'orphaned');
  await engine.applyTrigger('orphaned', increment('orphaned', 'before'));
  // A crashed worker: took a 15 s lease and never released or renewed it.
  await rawLease('orphaned').acquireLease(15);
  const impatient = await worker({ maxLeaseWaitInMs: 50 });
  await expect(impatient.applyTrigger('orphaned', increment('orphaned', 'after'))).rejects.toBeInstanceOf(LeaseUnavailableError);
  expect((await engine.applyTrigger('orphaned', increment('orphaned', 'after'))).outcome).toBe('transitioned');
  expect((await engine.applyTrigger('orphaned', increment('orphaned', 'after'))).outcome).toBe('duplicate');
  expect((await admin.instances.get('orphaned'))?.context.count).toBe(2);
}, 60000);

/**
 * Worker A loads the instance and is held there (a slow step) while its lease is broken and worker B
 * applies another trigger. `noticeLoss` waits until A's renewal has been refused before letting it go on.
 */
async function brokenMidProcessing(instanceId: string, noticeLoss: boolean) {
  let paused!: () => void;
  const isPaused = new Promise<void>((resolve) => (paused = resolve));
  let resume!: () => void;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  let pauseNextGet = false;
  let handle: LeaseHandle | undefined;
  const a = await worker({
    renewIntervalInMs: noticeLoss ? 50 : 60000,
    wrapInstances: (store) => ({
      create: (...args) => store.create(...args),
      save: (...args) => store.save(...args),
      query: (...args) => store.query(...args),
      purge: (...args) => store.purge(...args),
      fenceCreation: (...args) => store.fenceCreation(...args),
      getApplied: (...args) => store.getApplied(...args),
      get: async (...args) => {
        const read = await store.get(...args);
        if (pauseNextGet) {
          pauseNextGet = false;
          paused();
          await resumed;
        }
        return read;
      },
    }),
    wrapLeases: (leases) => ({
      withLease: (name, work, options) =>
        leases.withLease(
          name,
          (lease) => {
            handle = lease;
            return work(lease);
          },
          options,
        ),
    }),
  });
  const b = await worker();
  await newCounter(b, instanceId);
  pauseNextGet = true;
  const first = a.applyTrigger(instanceId, increment(instanceId, 'from-a'));
  first.catch(() => undefined);
  await isPaused;
  await rawLease(instanceId).breakLease(0);
  expect((await b.applyTrigger(instanceId, increment(instanceId, 'from-b'))).outcome).toBe('transitioned');
  if (noticeLoss) await new Promise<void>((resolve) => (handle!.signal.aborted ? resolve() : handle!.signal.addEventListener('abort', () => resolve())));
  resume();
  return { a, first };
}

it('refuses the save of a worker whose lease was broken mid-processing; nothing is half-written and a retry applies once', async () => {
  const { a, first } = await brokenMidProcessing('broken-lease', true);
  await expect(first).rejects.toBeInstanceOf(LeaseLostError);
  // Only B's change is there: the instance and its history agree, A wrote nothing.
  expect((await admin.instances.get('broken-lease'))?.context.count).toBe(1);
  expect(await historyTriggerIds('broken-lease')).toEqual([null, 'from-b']);
  // The retried delivery applies A's trigger once, and a further retry is a duplicate.
  expect((await a.applyTrigger('broken-lease', increment('broken-lease', 'from-a'))).outcome).toBe('transitioned');
  expect((await a.applyTrigger('broken-lease', increment('broken-lease', 'from-a'))).outcome).toBe('duplicate');
  expect((await admin.instances.get('broken-lease'))?.context.count).toBe(2);
  expect(await historyTriggerIds('broken-lease')).toEqual([null, 'from-b', 'from-a']);
});

it('refuses a stale save by ETag even before the lease loss is noticed, and the engine reapplies on fresh data', async () => {
  const { first } = await brokenMidProcessing('stale-etag', false);
  expect((await first).outcome).toBe('transitioned');
  // No lost update: A's stale save was refused (412), it reloaded and applied on top of B's change.
  expect((await admin.instances.get('stale-etag'))?.context.count).toBe(2);
  expect(await historyTriggerIds('stale-etag')).toEqual([null, 'from-b', 'from-a']);
});

it('surfaces a deleted table as a typed StorageError, never as a missing instance', async () => {
  const localNames = prefixedStorageNames(uniquePrefix('d'));
  const storage = await createAzureStorage({ connection: testConnectionString(), names: localNames });
  const engine = new Engine({ ...storage }, { logger: silentLogger });
  await engine.createWorkflow(counterWorkflow);
  await engine.createInstance({ workflowId: 'counter', instanceId: 'doomed', context: { count: 0 } });
  await storage.clients.instances.deleteTable();
  const attempts: (() => Promise<unknown>)[] = [() => engine.applyTrigger('doomed', increment('doomed', 't1')), () => engine.getInstance('doomed'), () => storage.instances.get('doomed')];
  for (const attempt of attempts) {
    const error = await attempt().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ code: 'storage', statusCode: 404, retryable: false });
  }
});

describe('operating on Azure storage', () => {
  it('migrates an instance: pinned to the new version, interests recomputed in the index, one history entry', async () => {
    const engine = await worker();
    await engine.createWorkflow({ ...counterWorkflow, id: 'counter-m' });
    await engine.createInstance({ workflowId: 'counter-m', instanceId: 'migrant', context: { count: 0 } });
    const latest = await engine.getWorkflow('counter-m');
    const states = counterWorkflow.states as Record<string, { interests?: string[] }>;
    const [first] = Object.keys(states);
    const v2 = { ...counterWorkflow, id: 'counter-m', states: { ...states, [first!]: { ...states[first!], interests: [...(states[first!]!.interests ?? []), 'migrated-watchers'] } } };
    await engine.addWorkflowVersion(v2, { ifMatch: latest.etag });
    const { request } = await engine.migrationsAndBulkActions.parseMigration('counter-m', { fromVersion: 1, toVersion: 2 });

    expect(await engine.migrationsAndBulkActions.migrate('migrant', request)).toMatchObject({ outcome: 'migrated' });
    expect(await engine.migrationsAndBulkActions.migrate('migrant', request)).toMatchObject({ outcome: 'skipped' });

    expect(await admin.instances.get('migrant')).toMatchObject({ workflowVersion: 2 });
    expect((await onePage(admin.interests.findCandidates(['migrated-watchers']))).items).toEqual(['migrant']);
    const { items } = await collect((options) => onePage(admin.history.list('migrant', options)), 1000);
    expect(items.map((entry) => entry.event)).toEqual(['created', 'migrated']);
  });

  it('deletes every row, index row and the lease blob; a crash mid-deletion leaves nothing reachable and a second run finishes', async () => {
    let crash = true;
    const engine = await worker({
      wrapInstances: (store) => ({
        create: (...args) => store.create(...args),
        save: (...args) => store.save(...args),
        query: (...args) => store.query(...args),
        get: (...args) => store.get(...args),
        getApplied: (...args) => store.getApplied(...args),
        fenceCreation: (...args) => store.fenceCreation(...args),
        purge: async (...args) => {
          if (crash) throw new StorageError('the worker died mid-deletion', 503, true);
          return store.purge(...args);
        },
      }),
    });
    await newCounter(engine, 'doomed');
    await engine.applyTrigger('doomed', increment('doomed', 'one'));
    const subjects = (await admin.instances.get('doomed'))!.interests;
    const blob = BlobServiceClient.fromConnectionString(testConnectionString()).getContainerClient(names.leaseContainer).getBlockBlobClient(leaseBlobName('doomed'));
    expect(await blob.exists()).toBe(true);

    await expect(engine.deleteInstance('doomed', { force: true })).rejects.toThrow('the worker died mid-deletion');
    await expect(engine.getInstance('doomed')).rejects.toMatchObject({ code: 'notFound' });
    expect((await engine.listInstances({ workflowId: 'counter' })).items.map((instance) => instance.id)).not.toContain('doomed');
    expect((await onePage(admin.interests.findCandidates(subjects))).items).not.toContain('doomed');

    crash = false;
    await engine.deleteInstance('doomed');
    expect(await admin.instances.get('doomed')).toBeUndefined();
    expect((await onePage(admin.history.list('doomed'))).items).toEqual([]);
    expect(await blob.exists()).toBe(false);
    await expect(engine.deleteInstance('doomed')).rejects.toMatchObject({ code: 'notFound' });
  });
});
