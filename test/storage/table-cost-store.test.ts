/**
 * Decision 0021, the daily cost rows on Azure Table Storage (Azurite): additions add up per workflow per
 * day, one sent again with the same id adds once, writers racing on one row both land (a 412 reads it
 * again), and a sum since a day reads that day on. DailyCosts holds additions in memory until it writes
 * them, and a sum read through it counts them already.
 */
import { emptyCost, type OperationCost } from '../../src/engine/operations';
import { DailyCosts } from '../../src/host/cost/daily-costs';
import { silentLogger } from '../../src/host/local/logger';
import { TableCostStore } from '../../src/storage/table-cost-store';
import type { AzureStorage } from '../../src/storage/create-azure-storage';
import { createTestStorage } from './fixtures';

let storage: AzureStorage;
beforeAll(async () => {
  storage = await createTestStorage();
});

const writes = (tableWrite: number): OperationCost => ({ ...emptyCost(), storage: { ...emptyCost().storage, tableWrite } });

describe('TableCostStore', () => {
  it('adds per workflow per day, once per addition id, and sums from a day on', async () => {
    const costs = storage.costs;
    await costs.add('2026-11-30', 'orders', 'a-1', writes(3));
    await costs.add('2026-12-01', 'orders', 'a-2', writes(2), 2);
    await costs.add('2026-12-01', 'orders', 'a-2', writes(2), 2);
    await costs.add('2026-12-01', 'claims', 'a-3', writes(5));
    await costs.add('2026-12-01', '', 'a-4', writes(1));
    expect(await costs.list({ sinceDay: '2026-12-01', workflowId: 'orders' })).toEqual([{ day: '2026-12-01', workflowId: 'orders', operations: 2, cost: writes(2) }]);
    const all = await costs.list({ sinceDay: '2026-11-01' });
    expect(all.map((row) => [row.day, row.workflowId, row.cost.storage.tableWrite])).toEqual([
      ['2026-11-30', 'orders', 3],
      ['2026-12-01', 'claims', 5],
      ['2026-12-01', 'orders', 2],
      // No workflow sorts last (`~none`).
      ['2026-12-01', '', 1],
    ]);
  });

  it('lets two writers racing on one row both land', async () => {
    const other = new TableCostStore(storage.clients.operations);
    await Promise.all(Array.from({ length: 6 }, (_, index) => (index % 2 ? storage.costs : other).add('2026-12-02', 'race', `r-${index}`, writes(1))));
    expect(await storage.costs.list({ sinceDay: '2026-12-02', workflowId: 'race' })).toEqual([{ day: '2026-12-02', workflowId: 'race', operations: 6, cost: writes(6) }]);
  });
});

describe('DailyCosts', () => {
  it('counts what it holds in a sum before writing it, writes it in one addition per row, and keeps a failed one for the next flush', async () => {
    let failNext = true;
    const store = {
      add: jest.fn(async (...args: Parameters<TableCostStore['add']>) => {
        if (failNext) {
          failNext = false;
          throw new Error('storage down');
        }
        await storage.costs.add(...args);
      }),
      list: (query: Parameters<TableCostStore['list']>[0]) => storage.costs.list(query),
    };
    const daily = new DailyCosts(store, silentLogger, 60_000);
    try {
      daily.add('2026-12-03', 'held', writes(2));
      daily.add('2026-12-03', 'held', writes(3));
      expect(await daily.list({ sinceDay: '2026-12-03', workflowId: 'held' })).toEqual([{ day: '2026-12-03', workflowId: 'held', operations: 2, cost: writes(5) }]);
      await daily.flush();
      expect(await storage.costs.list({ sinceDay: '2026-12-03', workflowId: 'held' })).toEqual([]);
      // Still held after the failure: the sum counts it once.
      expect((await daily.list({ sinceDay: '2026-12-03', workflowId: 'held' }))[0]?.operations).toBe(2);
      await daily.flush();
      expect(store.add).toHaveBeenCalledTimes(2);
      expect(store.add.mock.calls[0]?.[2]).toBe(store.add.mock.calls[1]?.[2]);
      expect(await storage.costs.list({ sinceDay: '2026-12-03', workflowId: 'held' })).toEqual([{ day: '2026-12-03', workflowId: 'held', operations: 2, cost: writes(5) }]);
      expect(await daily.list({ sinceDay: '2026-12-03', workflowId: 'held' })).toEqual([{ day: '2026-12-03', workflowId: 'held', operations: 2, cost: writes(5) }]);
    } finally {
      await daily.stop();
    }
  });
});
