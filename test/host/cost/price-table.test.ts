/**
 * Decision 0021, the price table: the default says where and when its prices were taken, and
 * SIGNALBOX_PRICE_TABLE overrides it key by key; a bad value stops the start-up naming the setting and
 * the field.
 */
import { DEFAULT_PRICE_TABLE, estimateCost, priceTableFromEnv } from '../../../src/host/cost/price-table';
import { emptyCost } from '../../../src/engine/operations';
import { startInMemoryTestHost } from '../../support/in-memory-host';

describe('the price table', () => {
  it('defaults to dated prices with their sources', () => {
    expect(priceTableFromEnv({})).toEqual(DEFAULT_PRICE_TABLE);
    expect(DEFAULT_PRICE_TABLE.takenOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(DEFAULT_PRICE_TABLE.source).toContain('https://azure.microsoft.com/pricing/details/storage/tables/');
  });

  it('takes overrides key by key from SIGNALBOX_PRICE_TABLE', () => {
    const table = priceTableFromEnv({ SIGNALBOX_PRICE_TABLE: JSON.stringify({ currency: 'EUR', per10kRequests: { tableWrite: 0.001 }, perMillionActivities: 20 }) });
    expect(table).toMatchObject({ currency: 'EUR', perMillionActivities: 20, perGbSent: DEFAULT_PRICE_TABLE.perGbSent });
    expect(table.per10kRequests).toEqual({ ...DEFAULT_PRICE_TABLE.per10kRequests, tableWrite: 0.001 });
  });

  it.each([
    ['not JSON', '{currency: EUR', 'not JSON'],
    ['a negative price', JSON.stringify({ per10kRequests: { blobLease: -1 } }), 'per10kRequests.blobLease'],
    ['an unknown key', JSON.stringify({ perRequest: 1 }), 'perRequest'],
    ['a currency that is not ISO 4217', JSON.stringify({ currency: 'euro' }), 'currency'],
    ['a date that is not a day', JSON.stringify({ takenOn: 'December' }), 'takenOn'],
  ])('refuses %s, naming the setting and the field', (_, value, field) => {
    expect(() => priceTableFromEnv({ SIGNALBOX_PRICE_TABLE: value })).toThrow('SIGNALBOX_PRICE_TABLE');
    expect(() => priceTableFromEnv({ SIGNALBOX_PRICE_TABLE: value })).toThrow(field);
  });

  it('stops a host from starting with a bad one', async () => {
    await expect(startInMemoryTestHost({ env: { SIGNALBOX_PRICE_TABLE: JSON.stringify({ perGbSent: 'cheap' }) } })).rejects.toThrow(/SIGNALBOX_PRICE_TABLE.*perGbSent/);
  });

  it('prices counts per 10,000 requests, per GB sent and per million activities', () => {
    const table = { ...DEFAULT_PRICE_TABLE, per10kRequests: { tableRead: 1, tableQuery: 1, tableWrite: 2, blobLease: 3, blobRead: 0, blobWrite: 0 }, perGbSent: 10, perMillionActivities: 5 };
    const counted = {
      ...emptyCost(),
      storage: { ...emptyCost().storage, tableWrite: 10_000, blobLease: 20_000 },
      outbound: { calls: 1, bytesSent: 500_000_000, bytesReceived: 9 },
      activities: 2_000_000,
    };
    expect(estimateCost(counted, table)).toEqual({ currency: 'USD', total: 2 + 6 + 5 + 10, storage: 8, outbound: 5, activities: 10, storageRequests: 30_000 });
  });
});
