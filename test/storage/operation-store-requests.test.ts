/**
 * The operation store's requests on Azure Table Storage (Azurite): a record and its listing row are
 * written in one transaction when it is created and whenever its status changes, and a progress write
 * that keeps the status is one entity request; the listing follows the status either way.
 */
import { onePage } from '../../src/engine/ports';
import { createRequestCounter } from '../../src/storage/request-counter';
import { OPERATIONS_PARTITION, type TableOperationStore } from '../../src/storage/table-operation-store';
import type { AzureStorage } from '../../src/storage/create-azure-storage';
import { createTestStorage, makeOperation } from './fixtures';

const counter = createRequestCounter();
let storage: AzureStorage;
let store: TableOperationStore;

beforeAll(async () => {
  storage = await createTestStorage({ requestCounter: counter });
  store = storage.operations;
});

/** Each request's kind, without the table it names (`table PUT`, `table POST $batch`). */
const kinds = () => counter.requests().map((request) => request.replace(/ (\$batch|\S*Operations)$/, ''));

describe('TableOperationStore requests', () => {
  it('creates the record and its listing row in one request, and keeps them in step with one request per write', async () => {
    counter.reset();
    const { operation } = await store.create(makeOperation('req-1'));
    expect(kinds()).toEqual(['table POST $batch']);
    expect((await onePage(store.list({ status: 'notStarted' }))).items.map((item) => item.id)).toContain('req-1');

    counter.reset();
    const running = await store.update({ ...operation, status: 'running' }, { ifMatch: operation.etag });
    expect(kinds()).toEqual(['table POST $batch']);

    // Progress: the status stays, the listing row is not rewritten.
    counter.reset();
    const progressed = await store.update({ ...running, candidates: 3 }, { ifMatch: running.etag });
    expect(kinds()).toEqual(['table PUT']);

    counter.reset();
    await store.update({ ...progressed, status: 'succeeded' }, { ifMatch: progressed.etag });
    expect(kinds()).toEqual(['table POST $batch']);
    expect((await onePage(store.list({ status: 'running' }))).items.map((item) => item.id)).not.toContain('req-1');
    expect((await onePage(store.list({ status: 'succeeded' }))).items).toEqual([expect.objectContaining({ id: 'req-1', status: 'succeeded', candidates: 3 })]);
  });

  it('a repeated id fails the whole transaction: no second listing row', async () => {
    await store.create(makeOperation('req-2'));
    const again = await store.create(makeOperation('req-2', { createdAt: '2027-01-01T00:00:00.000Z' }));
    expect(again.created).toBe(false);
    expect((await onePage(store.list({}))).items.filter((item) => item.id === 'req-2')).toHaveLength(1);
  });

  it('deletes the record and its listing row together', async () => {
    await store.create(makeOperation('req-3'));
    counter.reset();
    await store.delete('req-3');
    // The record, the query of its result rows (none), then both rows in one transaction.
    expect(kinds()).toEqual(['table GET', 'table GET', 'table POST $batch']);
    expect(await store.get('req-3')).toBeUndefined();
    expect((await onePage(store.list({}))).items.map((item) => item.id)).not.toContain('req-3');
  });

  it('deletes a record whose listing row is already gone (deleted by hand)', async () => {
    await store.create(makeOperation('req-4'));
    for await (const row of storage.clients.operations.listEntities({ queryOptions: { filter: `PartitionKey eq '${OPERATIONS_PARTITION}' and RowKey lt ':'` } })) {
      if (String(row.rowKey).endsWith('-req-4')) await storage.clients.operations.deleteEntity(OPERATIONS_PARTITION, row.rowKey!);
    }
    await store.delete('req-4');
    expect(await store.get('req-4')).toBeUndefined();
  });
});
