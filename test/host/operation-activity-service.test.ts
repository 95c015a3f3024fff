/**
 * The storage-backed side of the activity contract both hosts drive (issue 10, section 4): begin marks
 * the operation running, or leaves that to the first progress when the in-process caller defers it;
 * progress and completion write from the record in hand (no read); a finished operation is not run or
 * written again.
 */
import { Engine } from '../../src/engine/engine';
import { OperationStatus } from '../../src/engine/model';
import { MAX_KEPT_RESULT_LENGTH, emptySummary, type AppliedOutcome, type StoredOperation } from '../../src/engine/operations';
import type { OperationStore } from '../../src/engine/ports';
import { silentLogger } from '../../src/host/local/logger';
import { OperationActivityService, OperationWorkCache } from '../../src/host/operation-activity-service';
import { createInMemoryPorts, InMemoryOperationStore } from '../../src/testing';
import { timerTrigger } from '../../src/engine/decide';

/** The activity service on in-memory ports (or the given engine's), over `store`, at a fixed time. */
function activityService(store: ConstructorParameters<typeof OperationActivityService>[0]['operations'], engine = new Engine(createInMemoryPorts())): OperationActivityService {
  return new OperationActivityService({ engine, operations: store, operationWorkCache: new OperationWorkCache(), logger: silentLogger, now: () => new Date('2026-11-23T00:00:00Z') });
}

/** Counts reads and writes of the records, as a storage request counter would. */
function countingStore(): { store: OperationStore; reads: () => number; writes: () => number } {
  const inner = new InMemoryOperationStore();
  let reads = 0;
  let writes = 0;
  const store: OperationStore = {
    create: (operation, options) => inner.create(operation, options),
    get: (id, options) => ((reads += 1), inner.get(id, options)),
    update: (operation, options) => ((writes += 1), inner.update(operation, options)),
    listByStatus: (statuses, options) => inner.listByStatus(statuses, options),
    list: (query, options) => inner.list(query, options),
    delete: (id, options) => inner.delete(id, options),
    putResult: (id, result, options) => inner.putResult(id, result, options),
    listResults: (id, options) => inner.listResults(id, options),
  };
  return { store, reads: () => reads, writes: () => writes };
}

async function setup() {
  const { store, reads, writes } = countingStore();
  const trigger = { id: 'op', name: 'Go', subjects: ['s'] };
  const { operation } = await store.create({
    id: 'op',
    triggerId: 'op',
    trigger,
    status: OperationStatus.notStarted,
    createdAt: 't',
    updatedAt: 't',
    candidates: 0,
    summary: emptySummary(),
    instances: [],
  });
  const service = activityService(store);
  return { store, service, operation, reads, writes };
}

/** What an application answers besides its outcome: what it cost, under its instance's workflow (decision 0021). */
const costed = { cost: expect.objectContaining({ storage: expect.any(Object) }), workflowId: expect.any(String) };

describe('OperationActivityService (the activity contract on storage)', () => {
  it('begin by id reads the record and marks it running, as the durable orchestrator calls it', async () => {
    const { store, service, reads, writes } = await setup();
    await expect(service.beginOperation('op')).resolves.toMatchObject({ shouldRun: true, subjects: ['s'] });
    expect([reads(), writes()]).toEqual([1, 1]);
    expect(await store.get('op')).toMatchObject({ status: OperationStatus.running });
  });

  it('with the record in hand and running deferred: no read, no write until the first progress, then none to complete', async () => {
    const { store, service, operation, reads, writes } = await setup();
    await service.beginOperation({ operationId: 'op', operation, deferRunning: true });
    expect([reads(), writes()]).toEqual([0, 0]);
    await service.recordProgress({ operationId: 'op', progress: { processed: 0 } });
    expect(await store.get('op')).toMatchObject({ status: OperationStatus.running, progress: { processed: 0 } });
    await service.completeOperation({ operationId: 'op', candidates: 2, summary: { transitioned: 2 }, instances: [] });
    const done = (await store.get('op')) as StoredOperation;
    expect(done).toMatchObject({ status: OperationStatus.succeeded, candidates: 2, summary: { transitioned: 2, noTransition: 0 } });
    expect(done.progress).toBeUndefined();
    // Two reads by this test, two writes by the service (progress, completion).
    expect([reads(), writes()]).toEqual([2, 2]);
  });

  it('a single-instance run that records no progress goes from notStarted to finished in one write', async () => {
    const { store, service, operation, writes } = await setup();
    await service.beginOperation({ operationId: 'op', operation, deferRunning: true });
    await service.completeOperation({ operationId: 'op', candidates: 1, summary: { transitioned: 1 }, instances: [], error: 'it broke' });
    expect(writes()).toBe(1);
    expect(await store.get('op')).toMatchObject({ status: OperationStatus.failed, error: 'it broke' });
  });

  it('a finished operation is not run again, and progress for it writes nothing', async () => {
    const { service, operation, writes } = await setup();
    await service.beginOperation({ operationId: 'op', operation });
    await service.completeOperation({ operationId: 'op', candidates: 0, summary: {}, instances: [] });
    const before = writes();
    await expect(service.beginOperation('op')).resolves.toMatchObject({ shouldRun: false });
    await service.recordProgress({ operationId: 'op', progress: { processed: 1 } });
    expect(writes()).toBe(before);
  });
});

describe('applying an operation to an instance', () => {
  it("stores the instance's result in the operation's results and answers its outcome only; a retried application writes the same row", async () => {
    const store = new InMemoryOperationStore();
    const engine = new Engine(createInMemoryPorts());
    await engine.createWorkflow({
      id: 'flow',
      displayName: 'Flow',
      initialStateId: 'draft',
      states: { draft: { interests: ['s'], transitions: [{ id: 'submit', targetStateId: 'sent', conditions: [{ type: 'triggerName', name: 'Go' }] }] }, sent: {} },
    });
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    const trigger = { id: 'op', name: 'Go', subjects: ['s'] };
    await store.create({
      id: 'op',
      triggerId: 'op',
      trigger,
      status: OperationStatus.running,
      createdAt: '2026-11-22T00:00:00Z',
      updatedAt: 't',
      candidates: 0,
      summary: emptySummary(),
      instances: [],
    });
    const service = activityService(store, engine);

    await expect(service.applyOperation({ operationId: 'op', instanceId: 'i1' })).resolves.toEqual({ outcome: 'transitioned', ...costed });
    const stored = { instanceId: 'i1', outcome: 'transitioned', transitionId: 'submit', fromStateId: 'draft', toStateId: 'sent' };
    expect(await rows(store)).toEqual([{ ...stored, trace: expect.any(Array) }]);

    // A retry (the first answer lost): the instance answers `duplicate`, reported as what it did; the first row stays, trace and all.
    await expect(service.applyOperation({ operationId: 'op', instanceId: 'i1' })).resolves.toEqual({ outcome: 'transitioned', ...costed });
    expect(await rows(store)).toEqual([{ ...stored, trace: expect.any(Array) }]);
    // A resumed run whose first application wrote no row (it crashed between the two) writes it from the instance's record.
    await store.delete('op');
    await store.create({
      id: 'op',
      triggerId: 'op',
      trigger,
      status: OperationStatus.running,
      createdAt: '2026-11-22T00:00:00Z',
      updatedAt: 't',
      candidates: 0,
      summary: emptySummary(),
      instances: [],
    });
    await expect(service.applyOperation({ operationId: 'op', instanceId: 'i1' })).resolves.toEqual({ outcome: 'transitioned', ...costed });
    expect(await rows(store)).toEqual([stored]);
    expect((await store.get('op'))!.instances).toEqual([]);
  });

  it('with keepResult answers the result and stores no row, unless the result is longer than MAX_KEPT_RESULT_LENGTH', async () => {
    const store = new InMemoryOperationStore();
    const engine = new Engine(createInMemoryPorts());
    const condition = (name: string) => ({ type: 'triggerName', name });
    await engine.createWorkflow({
      id: 'flow',
      displayName: 'Flow',
      initialStateId: 'draft',
      states: {
        draft: {
          interests: ['s'],
          transitions: [
            { id: 'submit', targetStateId: 'sent', conditions: [condition('Go')] },
            // Many conditions: a trace longer than a kept result may be.
            { id: 'long', targetStateId: 'sent', conditions: Array.from({ length: 60 }, () => condition('Long')) },
          ],
        },
        sent: {},
      },
    });
    for (const instanceId of ['i1', 'i2']) await engine.createInstance({ workflowId: 'flow', instanceId });
    const record = (id: string, name: string) => ({
      id,
      triggerId: id,
      trigger: { id, name, subjects: ['s'] },
      status: OperationStatus.running,
      createdAt: 't',
      updatedAt: 't',
      candidates: 0,
      summary: emptySummary(),
      instances: [],
    });
    await store.create(record('op', 'Go'));
    await store.create(record('long', 'Long'));
    const service = activityService(store, engine);

    const kept = await service.applyOperation({ operationId: 'op', instanceId: 'i1', keepResult: true });
    expect(kept).toEqual({
      outcome: 'transitioned',
      ...costed,
      result: { instanceId: 'i1', outcome: 'transitioned', transitionId: 'submit', fromStateId: 'draft', toStateId: 'sent', trace: expect.any(Array) },
    });
    expect(JSON.stringify((kept as AppliedOutcome).result).length).toBeLessThanOrEqual(MAX_KEPT_RESULT_LENGTH);
    expect(await rows(store)).toEqual([]);

    const long = await service.applyOperation({ operationId: 'long', instanceId: 'i2', keepResult: true });
    expect(long).toEqual({ outcome: 'transitioned', ...costed });
    const [row] = await rows(store, 'long');
    expect(JSON.stringify(row).length).toBeGreaterThan(MAX_KEPT_RESULT_LENGTH);
  });
});

async function rows(store: OperationStore, operationId = 'op'): Promise<unknown[]> {
  const all: unknown[] = [];
  for await (const result of store.listResults(operationId)) all.push(result);
  return all;
}

describe("a timer's operation", () => {
  it('names its own instance as the candidate, with no interest-index lookup (a fired timer costs what a trigger does)', async () => {
    const store = new InMemoryOperationStore();
    const timer = { timerId: 'timer:c1:0:escalate', instanceId: 'c1', transitionId: 'escalate', stateEntry: 0, dueAt: '2026-11-23T00:00:00.000Z' };
    const trigger = timerTrigger(timer);
    await store.create({ id: trigger.id, triggerId: trigger.id, trigger, status: OperationStatus.notStarted, createdAt: 't', updatedAt: 't', candidates: 0, summary: emptySummary(), instances: [] });
    await store.create({
      id: 'plain',
      triggerId: 'plain',
      trigger: { id: 'plain', name: 'Go', subjects: ['c1'] },
      status: OperationStatus.notStarted,
      createdAt: 't',
      updatedAt: 't',
      candidates: 0,
      summary: emptySummary(),
      instances: [],
    });
    // The interest index is empty: an ordinary trigger to the same subject finds nobody.
    const service = activityService(store);

    const begun = await service.beginOperation(trigger.id);
    expect(begun).toMatchObject({ shouldRun: true, instanceIds: ['c1'] });
    await expect(service.findCandidates(begun)).resolves.toEqual({ instanceIds: ['c1'] });

    const plain = await service.beginOperation('plain');
    expect(plain.instanceIds).toBeUndefined();
    await expect(service.findCandidates(plain)).resolves.toEqual({ instanceIds: [] });
  });
});

describe('an operation sent to one instance by its route', () => {
  it('has that instance as its only candidate, with no interest-index lookup', async () => {
    const store = new InMemoryOperationStore();
    const trigger = { id: 'routed', name: 'Go', subjects: ['c1'] };
    await store.create({
      id: 'routed',
      triggerId: 'routed',
      trigger,
      addressedInstanceId: 'c1',
      status: OperationStatus.notStarted,
      createdAt: 't',
      updatedAt: 't',
      candidates: 0,
      summary: emptySummary(),
      instances: [],
    });
    const service = activityService(store);

    const begun = await service.beginOperation('routed');
    expect(begun).toMatchObject({ shouldRun: true, subjects: ['c1'], instanceIds: ['c1'] });
    await expect(service.findCandidates(begun)).resolves.toEqual({ instanceIds: ['c1'] });
  });
});
