/**
 * Interest rows of instances changing at the same time go out as one transaction per subject's partition
 * (grouped-row-changes.ts, table-interest-index.ts), on Azurite: the lookup still finds exactly the
 * instances that hold a subject, a delete and a later put of one row end with the row there, and a
 * delete of a row that is not there neither fails its caller nor the others of its group.
 */
import { onePage } from '../../src/engine/ports';
import { GroupedRowChanges } from '../../src/storage/grouped-row-changes';
import { createRequestCounter } from '../../src/storage/request-counter';
import type { AzureStorage } from '../../src/storage/create-azure-storage';
import { createTestStorage } from './fixtures';

const counter = createRequestCounter();
let storage: AzureStorage;

beforeAll(async () => {
  storage = await createTestStorage({ requestCounter: counter });
});

const candidates = async (subject: string): Promise<string[]> => (await onePage(storage.interests.findCandidates([subject]), { maxPageSize: 1000 })).items.sort();

it('writes the rows that twenty instances add to one subject at the same time in at most two requests, and finds all twenty', async () => {
  const ids = Array.from({ length: 20 }, (_, index) => `claim-${String(index).padStart(2, '0')}`);
  counter.reset();
  await Promise.all(ids.map((id) => storage.interests.add(id, ['Approve-grouped'])));
  expect(counter.counts().table).toBeLessThanOrEqual(2);
  expect(await candidates('Approve-grouped')).toEqual(ids);

  counter.reset();
  await Promise.all(ids.slice(0, 15).map((id) => storage.interests.remove(id, ['Approve-grouped'])));
  expect(counter.counts().table).toBeLessThanOrEqual(2);
  expect(await candidates('Approve-grouped')).toEqual(ids.slice(15));
});

it('moves instances between subjects with one request per partition and keeps the lookup exact', async () => {
  await Promise.all(['a', 'b', 'c'].map((id) => storage.interests.add(`move-${id}`, ['Submit-move', 'Update-move'])));
  counter.reset();
  await Promise.all(
    ['a', 'b', 'c'].map(async (id) => {
      await storage.interests.add(`move-${id}`, ['Approve-move']);
      await storage.interests.remove(`move-${id}`, ['Submit-move', 'Update-move']);
    }),
  );
  // Three partitions, each changed by three instances: at most one request alone and one transaction each.
  expect(counter.counts().table).toBeLessThanOrEqual(6);
  expect(await candidates('Approve-move')).toEqual(['move-a', 'move-b', 'move-c']);
  expect(await candidates('Submit-move')).toEqual([]);
  expect(await candidates('Update-move')).toEqual([]);
});

it('writes changes to one row in the order they were made: removed then added again ends with the row there', async () => {
  await storage.interests.add('order-1', ['order-subject']);
  await Promise.all([storage.interests.remove('order-1', ['order-subject']), storage.interests.add('order-1', ['order-subject']), storage.interests.add('order-2', ['order-subject'])]);
  expect(await candidates('order-subject')).toEqual(['order-1', 'order-2']);
  await Promise.all([storage.interests.add('order-1', ['order-subject']), storage.interests.remove('order-1', ['order-subject'])]);
  expect(await candidates('order-subject')).toEqual(['order-2']);
});

it('treats a delete of a row that is not there as done, alone or in a group with rows that are', async () => {
  const rows = new GroupedRowChanges(storage.clients.interests);
  await rows.put({ partitionKey: 'missing-rows', rowKey: 'here' });
  const settled = await Promise.allSettled([
    rows.put({ partitionKey: 'missing-rows', rowKey: 'new' }),
    rows.delete({ partitionKey: 'missing-rows', rowKey: 'never-written' }),
    rows.delete({ partitionKey: 'missing-rows', rowKey: 'here' }),
    rows.put({ partitionKey: 'missing-rows', rowKey: 'also-new' }),
  ]);
  expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
  const stored: string[] = [];
  for await (const row of storage.clients.interests.listEntities({ queryOptions: { filter: "PartitionKey eq 'missing-rows'" } })) stored.push(String(row.rowKey));
  expect(stored.sort()).toEqual(['also-new', 'new']);
});
