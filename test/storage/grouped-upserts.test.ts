/**
 * Result rows written at the same time go out together (grouped-upserts.ts), on Azurite: the first alone
 * at once, the rest as one transaction; each caller settles when its own row is stored, and a row the
 * service refuses fails its caller alone.
 */
import { onePage } from '../../src/engine/ports';
import { GroupedUpserts } from '../../src/storage/grouped-upserts';
import { createRequestCounter } from '../../src/storage/request-counter';
import type { AzureStorage } from '../../src/storage/create-azure-storage';
import { createTestStorage } from './fixtures';

const counter = createRequestCounter();
let storage: AzureStorage;

beforeAll(async () => {
  storage = await createTestStorage({ requestCounter: counter });
});

/** Each request's kind, without the table it names (`table PUT`, `table POST $batch`). */
const kinds = () => counter.requests().map((request) => request.replace(/ (\$batch|\S*Operations)$/, ''));

it('writes the results of one operation put at the same time in one transaction, not a request each, and lists them all', async () => {
  await storage.operations.putResult('grouped-1', { instanceId: 'warm-up', outcome: 'transitioned' });
  counter.reset();
  const instanceIds = Array.from({ length: 20 }, (_, index) => `i-${String(index).padStart(2, '0')}`);
  await Promise.all(instanceIds.map((instanceId) => storage.operations.putResult('grouped-1', { instanceId, outcome: 'transitioned', toStateId: 'closed' })));
  // One transaction, after one row alone if no write of the operation's results was still in flight.
  expect(kinds().filter((kind) => kind !== 'table PUT')).toEqual(['table POST $batch']);
  expect(kinds().length).toBeLessThanOrEqual(2);
  const listed = await onePage(storage.operations.listResults('grouped-1', { maxPageSize: 100 }));
  expect(listed.items.map((result) => result.instanceId).sort()).toEqual(['warm-up', ...instanceIds].sort());
  expect(listed.items.find((result) => result.instanceId === 'i-07')).toEqual({ instanceId: 'i-07', outcome: 'transitioned', toStateId: 'closed' });
});

it('writes a row put twice while a write is in flight twice, the later one last', async () => {
  const first = storage.operations.putResult('grouped-2', { instanceId: 'a', outcome: 'transitioned' });
  const again = [storage.operations.putResult('grouped-2', { instanceId: 'b', outcome: 'noTransition' }), storage.operations.putResult('grouped-2', { instanceId: 'b', outcome: 'transitioned' })];
  await Promise.all([first, ...again]);
  const listed = await onePage(storage.operations.listResults('grouped-2'));
  expect(listed.items.find((result) => result.instanceId === 'b')?.outcome).toBe('transitioned');
});

it('fails only the caller whose row the service refuses; the others of its group are stored', async () => {
  const client = storage.clients.operations;
  const upserts = new GroupedUpserts(client, { writeOne: async (row) => void (await client.upsertEntity(row, 'Replace')) });
  const settled = await Promise.allSettled([
    upserts.upsert({ partitionKey: 'grouped-3', rowKey: 'first', value: 1 }),
    upserts.upsert({ partitionKey: 'grouped-3', rowKey: 'good', value: 2 }),
    // Table Storage refuses a string property over 64 KiB (32K UTF-16 characters).
    upserts.upsert({ partitionKey: 'grouped-3', rowKey: 'refused', value: 'x'.repeat(40_000) }),
    upserts.upsert({ partitionKey: 'grouped-3', rowKey: 'also-good', value: 3 }),
  ]);
  expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  const stored: string[] = [];
  for await (const row of client.listEntities({ queryOptions: { filter: "PartitionKey eq 'grouped-3'" } })) stored.push(String(row.rowKey));
  expect(stored.sort()).toEqual(['also-good', 'first', 'good']);
});
